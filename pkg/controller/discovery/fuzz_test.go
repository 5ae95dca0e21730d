package discovery

import (
	"testing"
)

// FuzzParse: whatever a discovery container prints, parsing never panics, and a result it accepts always has
// model sources (F8: a template never becomes Ready without them).
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`[{"filename":"a.yaml","profile":{"model":"Org/M","metadata":{"engine":"vllm","gpu":"MI300X","precision":"fp8","gpu_count":1,"metric":"latency","type":"optimized"}},"models":[{"name":"Org/M","source":"hf://Org/M","size_gb":16}]}]`,
		"log line\n[]\n", "Traceback (most recent call last):", `[{"models":[]}]`, `[{"models":[{"name":"x","source":"ftp://x"}]}]`, "[", "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		r, err := Parse(out)
		if err == nil && (r == nil || len(r.ModelSources) == 0) {
			t.Fatalf("Parse(%q) accepted a result without model sources: %+v", out, r)
		}
	})
}
