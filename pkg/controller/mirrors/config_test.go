package mirrors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const sample = `
rewriteImages: true
registries:
  docker.io:
    fallback: false
    mirrors:
    - endpoint: https://harbor.example/dockerhub-proxy/
      capabilities: [pull, resolve, list]
    - endpoint: http://127.0.0.1:5000
  ghcr.io:
    mirrors:
    - endpoint: https://zot.example:8443
`

func endpoints(eps []Endpoint) []string {
	var out []string
	for _, e := range eps {
		out = append(out, e.String())
	}
	return out
}

// TestEndpoints: mirrors in order, only those that may be asked for the capabilities, then the registry unless
// fallback is off; Docker Hub's names are one registry; an unconfigured registry is reached directly.
func TestEndpoints(t *testing.T) {
	cfg, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		registry string
		caps     []Capability
		want     []string
	}{
		{"index.docker.io", []Capability{Pull, Resolve}, []string{"https://harbor.example/dockerhub-proxy", "http://127.0.0.1:5000"}},
		{"docker.io", []Capability{List}, []string{"https://harbor.example/dockerhub-proxy"}},
		{"ghcr.io", []Capability{Resolve}, []string{"https://zot.example:8443", "https://ghcr.io"}},
		{"ghcr.io", []Capability{List}, []string{"https://ghcr.io"}},
		{"quay.io", []Capability{Pull}, []string{"https://quay.io"}},
	} {
		if diff := cmp.Diff(tc.want, endpoints(cfg.Endpoints(tc.registry, tc.caps...))); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", tc.registry, tc.caps, diff)
		}
	}
	if got := endpoints((*Config)(nil).Endpoints("docker.io", Pull)); len(got) != 1 || got[0] != "https://docker.io" {
		t.Errorf("no configuration: %v", got)
	}
}

// TestRepositoryUnderPrefix: a proxy project's prefix goes before the registry's repository path.
func TestRepositoryUnderPrefix(t *testing.T) {
	cfg, _ := Parse([]byte(sample))
	e := cfg.Endpoints("docker.io", List)[0]
	repo, err := e.Repository("amdenterpriseai/aim-qwen3-32b")
	if err != nil || repo.Name() != "harbor.example/dockerhub-proxy/amdenterpriseai/aim-qwen3-32b" {
		t.Errorf("repository %v %v", repo, err)
	}
	for image, want := range map[string]string{
		"docker.io/amdenterpriseai/aim-qwen:0.8.5": "harbor.example/dockerhub-proxy/amdenterpriseai/aim-qwen:0.8.5",
		"nginx": "harbor.example/dockerhub-proxy/library/nginx:latest",
		"ghcr.io/org/aim@sha256:" + strings.Repeat("a", 64): "zot.example:8443/org/aim@sha256:" + strings.Repeat("a", 64),
		"quay.io/org/x:1": "quay.io/org/x:1",
	} {
		if got := cfg.Rewrite(image); got != want {
			t.Errorf("Rewrite(%s) = %s, want %s", image, got, want)
		}
	}
	off, _ := Parse([]byte(strings.Replace(sample, "rewriteImages: true", "rewriteImages: false", 1)))
	if got := off.Rewrite("docker.io/org/x:1"); got != "docker.io/org/x:1" {
		t.Errorf("rewriting off: %s", got)
	}
}

// TestParseErrorsNameTheField: every mistake is refused with its path.
func TestParseErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{`registries: {"docker.io/x": {mirrors: [{endpoint: "https://m"}]}}`, `registries[docker.io/x]`},
		{`registries: {docker.io: {mirrors: [{endpoint: "ftp://m"}]}}`, `registries[docker.io].mirrors[0].endpoint`},
		{`registries: {docker.io: {mirrors: [{endpoint: "https://m/UPPER"}]}}`, `registries[docker.io].mirrors[0].endpoint`},
		{`registries: {docker.io: {mirrors: [{endpoint: "https://m", capabilities: [push]}]}}`, `registries[docker.io].mirrors[0].capabilities[0]`},
		{`registries: {docker.io: {mirrors: [{endpoint: "https://m", certFile: /c}]}}`, `registries[docker.io].mirrors[0].keyFile`},
		{`registries: {docker.io: {mirrors: [{endpoint: "http://m", caFile: /ca}]}}`, `TLS settings need an https:// endpoint`},
		{`registries: {docker.io: {mirrors: [{endpoint: "https://m", caFile: /no/such/ca.pem}]}}`, `caFile`},
		{`registries: {docker.io: {fallback: false}}`, `registries[docker.io].fallback`},
		{`registries: {docker.io: {}, index.docker.io: {}}`, `Duplicate value`},
		{`registries: {docker.io: {mirror: []}}`, `unknown field "mirror"`},
	} {
		_, err := Parse([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.yaml, err, tc.want)
		}
	}
}

// TestSourceReloads: an edit of the file is used at the next request; an edit that does not parse keeps the
// configuration in use.
func TestSourceReloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registries.yaml")
	write := func(s string, at time.Time) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().Add(-time.Hour)
	write(`registries: {docker.io: {mirrors: [{endpoint: "https://one.example"}]}}`, start)
	src, err := NewSource(path)
	if err != nil {
		t.Fatal(err)
	}
	first := func() string { return src.Config().Endpoints("docker.io", Pull)[0].String() }
	if got := first(); got != "https://one.example" {
		t.Fatalf("first mirror %s", got)
	}
	write(`registries: {docker.io: {mirrors: [{endpoint: "https://two.example"}]}}`, start.Add(time.Minute))
	if got := first(); got != "https://two.example" {
		t.Errorf("after the edit: %s", got)
	}
	write(`registries: {docker.io: {mirrors: [{endpoint: "ftp://three"}]}}`, start.Add(2*time.Minute))
	if got := first(); got != "https://two.example" {
		t.Errorf("after a broken edit: %s, want the previous configuration", got)
	}
	if _, err := NewSource(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("a missing file starts")
	}
}

// TestTryNamesEveryEndpoint: the first endpoint that answers wins; when none does, the error names each.
func TestTryNamesEveryEndpoint(t *testing.T) {
	cfg, _ := Parse([]byte(sample))
	eps := cfg.Endpoints("ghcr.io", Pull)
	got, e, err := Try(eps, func(e Endpoint) (string, error) {
		if e.Mirror {
			return "", os.ErrDeadlineExceeded
		}
		return "tags", nil
	})
	if err != nil || got != "tags" || e.Mirror {
		t.Errorf("second endpoint: %q %v %v", got, e, err)
	}
	_, _, err = Try(eps, func(e Endpoint) (string, error) { return "", os.ErrDeadlineExceeded })
	if msg := err.Error(); !strings.Contains(msg, "https://zot.example:8443: i/o timeout") || !strings.Contains(msg, "https://ghcr.io: i/o timeout") {
		t.Errorf("error %q names not every endpoint", msg)
	}
}

// TestSourceReloadsAConfigMapVolume: the chart mounts the ConfigMap as a directory, which the kubelet updates as
// its atomic writer does: the new content in a new directory, then the ..data link swapped; registries.yaml is a
// link through ..data. An edit of the ConfigMap reaches the next request.
func TestSourceReloadsAConfigMapVolume(t *testing.T) {
	dir := t.TempDir()
	version := func(name, content string) {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "registries.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, "..data_tmp")
		if err := os.Symlink(name, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	version("..2026_11_27_01_00_00.1", `registries: {docker.io: {mirrors: [{endpoint: "https://one.example"}]}}`)
	if err := os.Symlink("..data/registries.yaml", filepath.Join(dir, "registries.yaml")); err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(filepath.Join(dir, "registries.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The same length as the first, as an edit of one character is.
	version("..2026_11_27_01_05_00.2", `registries: {docker.io: {mirrors: [{endpoint: "https://two.example"}]}}`)
	if got := src.Config().Endpoints("docker.io", Pull)[0].String(); got != "https://two.example" {
		t.Errorf("after the ConfigMap's update: %s", got)
	}
}
