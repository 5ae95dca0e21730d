package modelsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	"github.com/aim-apiserver/aim-apiserver/test/registrytest"
)

// fakeLister serves a fixed registry content and counts calls.
type fakeLister struct {
	repos      map[string][]string // repository -> tags
	catalogErr error
	tagErr     map[string]error
	calls      []string
	// onList runs at each listing of repositories or tags, as the time a listing takes.
	onList func()
}

func (f *fakeLister) Repositories(_ context.Context, registry, namespace string) ([]string, error) {
	f.calls = append(f.calls, "repositories "+registry+"/"+namespace)
	if f.onList != nil {
		f.onList()
	}
	if f.catalogErr != nil {
		return nil, f.catalogErr
	}
	var out []string
	for r := range f.repos {
		if namespace == "" || strings.HasPrefix(r, namespace+"/") {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (f *fakeLister) Tags(_ context.Context, registry, repository string) ([]string, error) {
	f.calls = append(f.calls, "tags "+registry+"/"+repository)
	if f.onList != nil {
		f.onList()
	}
	if err := f.tagErr[repository]; err != nil {
		return nil, err
	}
	return f.repos[repository], nil
}

func sourceSpec(registry string, versions []string, filters ...aimv1.AIMModelSourceFilter) aimv1.AIMClusterModelSourceSpec {
	return aimv1.AIMClusterModelSourceSpec{Registry: registry, Versions: versions, Filters: filters}
}

func full(images []Image) []string {
	var out []string
	for _, i := range images {
		out = append(out, i.Reference())
	}
	slices.Sort(out)
	return out
}

func TestDiscover(t *testing.T) {
	content := map[string][]string{
		"aim/qwen":  {"0.8.4", "0.8.5", "0.9.0", "latest"},
		"aim/llama": {"1.0.0"},
		"aim/old":   {"0.1.0"},
		"other/x":   {"1.0.0"},
	}
	f := func(image string, versions ...string) aimv1.AIMModelSourceFilter {
		return aimv1.AIMModelSourceFilter{Image: image, Versions: versions}
	}
	for _, tc := range []struct {
		name  string
		spec  aimv1.AIMClusterModelSourceSpec
		want  []string
		calls []string
	}{
		{"exact repo:tag is that image, no listing", sourceSpec("r.example", []string{">=5"}, f("aim/qwen:latest")),
			[]string{"r.example/aim/qwen:latest"}, nil},
		{"exact repo:tag is that image even when excluded", sourceSpec("r.example", nil,
			aimv1.AIMModelSourceFilter{Image: "aim/qwen:0.8.4", Exclude: []string{"aim/qwen"}}),
			[]string{"r.example/aim/qwen:0.8.4"}, nil},
		{"repository lists its tags", sourceSpec("r.example", nil, f("aim/llama")),
			[]string{"r.example/aim/llama:1.0.0"}, []string{"tags r.example/aim/llama"}},
		{"filter versions", sourceSpec("r.example", nil, f("aim/qwen", ">=0.8.5")),
			[]string{"r.example/aim/qwen:0.8.5", "r.example/aim/qwen:0.9.0"}, []string{"tags r.example/aim/qwen"}},
		{"wildcard: catalog, glob, exclude (per filter), global versions; lists read once, images deduplicated",
			sourceSpec("r.example", []string{">=0.9"},
				aimv1.AIMModelSourceFilter{Image: "aim/*", Exclude: []string{"aim/old"}}, f("aim/qwen"), f("r.example/aim/*")),
			[]string{"r.example/aim/llama:1.0.0", "r.example/aim/qwen:0.9.0"},
			[]string{"repositories r.example/", "tags r.example/aim/llama", "tags r.example/aim/qwen", "tags r.example/aim/old"}},
		{"versions that do not parse are ignored, not an error; non-semver tags still skipped",
			sourceSpec("r.example", []string{"latest", "~0.8"}, f("aim/qwen")),
			[]string{"r.example/aim/qwen:0.8.4", "r.example/aim/qwen:0.8.5", "r.example/aim/qwen:0.9.0"}, []string{"tags r.example/aim/qwen"}},
		{"host prefix overrides spec.registry", sourceSpec("docker.io", nil, f("mirror.example:5000/aim/llama")),
			[]string{"mirror.example:5000/aim/llama:1.0.0"}, []string{"tags mirror.example:5000/aim/llama"}},
	} {
		l := &fakeLister{repos: content}
		images, errs := Discover(context.Background(), l, tc.spec)
		if len(errs) > 0 {
			t.Errorf("%s: %v", tc.name, errs)
		}
		if got := full(images); !slices.Equal(got, tc.want) || !slices.Equal(l.calls, tc.calls) {
			t.Errorf("%s: images %v calls %v; want %v calls %v", tc.name, got, l.calls, tc.want, tc.calls)
		}
	}
}

func TestDiscoverErrors(t *testing.T) {
	repos := map[string][]string{"aim/qwen": {"1.0.0"}, "aim/llama": {"1.0.0"}}
	infra := state.NewError(state.Infrastructure, "RegistryUnreachable", "connection refused")
	for _, tc := range []struct {
		name       string
		lister     *fakeLister
		spec       aimv1.AIMClusterModelSourceSpec
		wantImages []string
		category   state.Category
		reason     string
	}{
		{"a Docker Hub wildcard without its namespace fails without a request", &fakeLister{repos: repos},
			sourceSpec("docker.io", nil, aimv1.AIMModelSourceFilter{Image: "*/aim-*"}),
			nil, state.InvalidSpec, "InvalidFilter"},
		{"a ghcr.io wildcard without its organization, by host prefix", &fakeLister{repos: repos},
			sourceSpec("r.example", nil, aimv1.AIMModelSourceFilter{Image: "ghcr.io/aim*"}),
			nil, state.InvalidSpec, "InvalidFilter"},
		{"a failing filter does not stop the others", &fakeLister{repos: repos, tagErr: map[string]error{"aim/qwen": infra}},
			sourceSpec("r.example", nil, aimv1.AIMModelSourceFilter{Image: "aim/qwen"}, aimv1.AIMModelSourceFilter{Image: "aim/llama"}),
			[]string{"r.example/aim/llama:1.0.0"}, state.Infrastructure, "RegistryUnreachable"},
		{"a repository of a wildcard that cannot be listed fails the filter, not the other repositories",
			&fakeLister{repos: repos, tagErr: map[string]error{"aim/llama": infra}},
			sourceSpec("r.example", nil, aimv1.AIMModelSourceFilter{Image: "aim/*"}),
			[]string{"r.example/aim/qwen:1.0.0"}, state.Infrastructure, "RegistryUnreachable"},
		{"catalog error", &fakeLister{repos: repos, catalogErr: infra},
			sourceSpec("r.example", nil, aimv1.AIMModelSourceFilter{Image: "aim/*"}), nil, state.Infrastructure, "RegistryUnreachable"},
		{"invalid filter", &fakeLister{repos: repos},
			sourceSpec("r.example", nil, aimv1.AIMModelSourceFilter{Image: "aim/qwen:"}), nil, state.InvalidSpec, "InvalidFilter"},
	} {
		images, errs := Discover(context.Background(), tc.lister, tc.spec)
		if got := full(images); !slices.Equal(got, tc.wantImages) {
			t.Errorf("%s: images %v, want %v", tc.name, got, tc.wantImages)
		}
		var se *state.Error
		if len(errs) != 1 || !errors.As(errs[0], &se) || se.Category != tc.category || se.Reason != tc.reason ||
			!strings.HasPrefix(errs[0].Error(), "filters[0] ") {
			t.Errorf("%s: errors %v, want one %s/%s for filters[0]", tc.name, errs, tc.category, tc.reason)
		}
		if tc.category == state.InvalidSpec && len(tc.lister.calls) > 0 {
			t.Errorf("%s: asked the registry %v", tc.name, tc.lister.calls)
		}
	}
}

// TestRegistryLister lists a real OCI registry served in-process, through Discover.
func TestRegistryLister(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, ref := range []string{"aim/qwen:0.8.4", "aim/qwen:0.8.5", "aim/qwen:v0.9.0", "aim/qwen:latest", "aim/llama:1.0.0", "other/x:1.0.0"} {
		img, err := random.Image(16, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := name.ParseReference(host + "/" + ref)
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Write(r, img); err != nil {
			t.Fatalf("pushing %s: %v", ref, err)
		}
	}
	l := RegistryLister{}
	ctx := context.Background()
	repos, err := l.Repositories(ctx, host, "")
	if slices.Sort(repos); err != nil || !slices.Equal(repos, []string{"aim/llama", "aim/qwen", "other/x"}) {
		t.Fatalf("catalog %v %v", repos, err)
	}
	spec := sourceSpec(host, []string{">=0.8.5"}, aimv1.AIMModelSourceFilter{Image: "aim/*"})
	images, errs := Discover(ctx, l, spec)
	want := []string{host + "/aim/llama:1.0.0", host + "/aim/qwen:0.8.5", host + "/aim/qwen:v0.9.0"}
	if got := full(images); len(errs) > 0 || !slices.Equal(got, want) {
		t.Errorf("images %v errors %v; want %v", got, errs, want)
	}

	// A repository that does not exist is for the user (MissingUpstream), not an outage.
	_, err = l.Tags(ctx, host, "aim/missing")
	var se *state.Error
	if !errors.As(err, &se) || se.Category != state.MissingUpstream {
		t.Errorf("missing repository: %v", err)
	}
	// Unreachable registries are infrastructure errors, retried.
	_, err = l.Tags(ctx, "127.0.0.1:1", "aim/qwen")
	if !errors.As(err, &se) || se.Category != state.Infrastructure {
		t.Errorf("unreachable registry: %v", err)
	}
}

// TestRegistryListerAuth checks credentials from a pull secret reach the registry, and that a registry
// without a catalog or refusing credentials gets a user-facing error.
func TestRegistryListerAuth(t *testing.T) {
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	authenticated := registrytest.BasicAuth("aim", "s3cret", reg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/_catalog") {
			http.Error(w, `{"errors":[{"code":"UNSUPPORTED"}]}`, http.StatusNotFound)
			return
		}
		authenticated.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var se *state.Error
	if _, err := (RegistryLister{}).Tags(ctx, host, "aim/qwen"); !errors.As(err, &se) || se.Category != state.Auth {
		t.Errorf("without credentials: %v", err)
	}
	secret := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "regcred"}, Type: corev1.SecretTypeDockerConfigJson,
		Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{"` + host + `":{"username":"aim","password":"s3cret"}}}`)}}
	l := newRegistryLister([]corev1.Secret{secret}, nil)
	if _, err := l.Tags(ctx, host, "aim/qwen"); !errors.As(err, &se) || se.Category != state.MissingUpstream {
		t.Errorf("with credentials, an empty registry: %v", err) // authenticated: the repository is just missing
	}
	if _, err := l.Repositories(ctx, host, ""); !errors.As(err, &se) || se.Reason != "CatalogNotSupported" || se.Category != state.InvalidSpec {
		t.Errorf("no catalog: %v", err)
	}
}

// TestListingErrorsQuoteNoOwnSecret: a registry that quotes back the password it got, here from aim-apiserver's
// own docker config, has it removed from the error (a condition message, an Event, a log line).
func TestListingErrorsQuoteNoOwnSecret(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="echo"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.Error(w, fmt.Sprintf(`{"errors":[{"code":"DENIED","message":"%s may not list with %s"}]}`, user, pass), http.StatusForbidden)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{"`+host+`":{"username":"aim","password":"s3cret"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	_, err := newRegistryLister(nil, nil).Tags(context.Background(), host, "aim/qwen")
	var se *state.Error
	if !errors.As(err, &se) || se.Category != state.Auth || !strings.Contains(err.Error(), "aim may not list") {
		t.Fatalf("got %v; want the registry's refusal", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the error quotes the password: %v", err)
	}
}

// TestDockerHubBehindAMirror: a Docker Hub namespace behind a mirror that may list is read from the mirror's
// catalog under its prefix (Hub's own API is not mirrored), tags from the mirror; the images keep Docker Hub's
// names, which the nodes pull through their mirrors.
func TestDockerHubBehindAMirror(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, ref := range []string{"hub/amdenterpriseai/aim-qwen:0.8.5", "hub/amdenterpriseai/aim-llama:0.8.5", "hub/other/aim-x:1.0.0", "elsewhere/amdenterpriseai/aim-y:1.0.0"} {
		img, err := random.Image(16, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := name.ParseReference(host + "/" + ref)
		if err := remote.Write(r, img); err != nil {
			t.Fatalf("pushing %s: %v", ref, err)
		}
	}
	cfg, err := mirrors.Parse([]byte(`registries: {docker.io: {fallback: false, mirrors: [{endpoint: "http://127.0.0.1:1"}, {endpoint: "http://` + host + `/hub", capabilities: [pull, resolve, list]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	l := newRegistryLister(nil, cfg)
	images, errs := Discover(context.Background(), l, sourceSpec("docker.io", nil, aimv1.AIMModelSourceFilter{Image: "amdenterpriseai/aim-*"}))
	want := []string{"amdenterpriseai/aim-llama:0.8.5", "amdenterpriseai/aim-qwen:0.8.5"}
	if got := full(images); len(errs) > 0 || !slices.Equal(got, want) {
		t.Errorf("images %v errors %v; want %v", got, errs, want)
	}
	if used := l.(RegistryLister).MirrorsUsed(); !slices.Equal(used, []string{"http://" + host + "/hub"}) {
		t.Errorf("mirrors used: %v", used)
	}
}

// TestUnlistedRepositoriesCounted: a filter several repositories of which cannot be listed names the first and
// counts the others, and keeps the first one's category (an unreachable registry is retried).
func TestUnlistedRepositoriesCounted(t *testing.T) {
	infra := state.NewError(state.Infrastructure, "RegistryUnreachable", "connection refused")
	l := &fakeLister{repos: map[string][]string{"aim/a": nil, "aim/b": nil, "aim/c": {"1.0.0"}},
		tagErr: map[string]error{"aim/a": infra, "aim/b": infra}}
	images, errs := Discover(context.Background(), l, sourceSpec("r.example", nil, aimv1.AIMModelSourceFilter{Image: "aim/*"}))
	var se *state.Error
	if len(errs) != 1 || !errors.As(errs[0], &se) || se.Category != state.Infrastructure ||
		!strings.HasSuffix(errs[0].Error(), "(and 1 more repository whose tags could not be listed)") {
		t.Errorf("errors %v", errs)
	}
	if got := full(images); !slices.Equal(got, []string{"r.example/aim/c:1.0.0"}) {
		t.Errorf("images %v", got)
	}
}
