package artifact

import (
	"testing"
)

// FuzzParseSizeOutput: whatever a check-size container prints, parsing never panics and accepts only sizes
// in 1..2^50.
func FuzzParseSizeOutput(f *testing.F) {
	for _, seed := range []string{`{"url":"hf://a/b","sizeBytes":123}`, "log\n{\"sizeBytes\": 1125899906842624}", `{"sizeBytes":"12"}`,
		`{"sizeBytes":1e3}`, `{"sizeBytes":-1}`, "", "\n\n", `{"sizeBytes":null}`, `[1]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, out string) {
		n, err := ParseSizeOutput(out)
		if err == nil && (n <= 0 || n > MaxSizeBytes) {
			t.Fatalf("ParseSizeOutput(%q) = %d", out, n)
		}
	})
}
