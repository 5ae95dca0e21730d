package mirrors

import (
	"strings"
	"testing"
)

// FuzzParse: any file is parsed or refused, never a panic; what parses gives endpoints whose repositories and
// rewritten images are valid references.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`registries: {docker.io: {fallback: false, mirrors: [{endpoint: "http://127.0.0.1:5000/a/b"}]}}`))
	f.Add([]byte(`registries: {"[::1]:5000": {mirrors: [{endpoint: "https://[::1]:5001"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			return
		}
		for host := range cfg.registries {
			for _, e := range cfg.Endpoints(host, Pull) {
				if _, err := e.Repository("org/model"); err != nil && e.Mirror {
					t.Fatalf("%s: repository: %v", e, err)
				}
			}
			if got := cfg.Rewrite(host + "/org/model:1"); strings.TrimSpace(got) == "" {
				t.Fatalf("rewrite of %s is empty", host)
			}
		}
	})
}
