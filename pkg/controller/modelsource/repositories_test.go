package modelsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// publicAPIs serves fakes of what a wildcard on Docker Hub and ghcr.io reaches, at their public names: Docker
// Hub's repositories API (hub.docker.com), GitHub's packages API (api.github.com) and one OCI registry behind
// both index.docker.io and ghcr.io. requests records "host path?query" of every API request.
type publicAPIs struct {
	transport http.RoundTripper
	mu        sync.Mutex
	requests  []string
	// hubLimited answers the next n Hub requests 429 with this Retry-After.
	hubLimited   int
	hubRetry     string
	githubTokens []string
}

func (p *publicAPIs) record(r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, r.Host+" "+r.URL.RequestURI())
}

func startPublicAPIs(t *testing.T, hub map[string][]string, github map[string][]string, images []string) *publicAPIs {
	t.Helper()
	p := &publicAPIs{}
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	hubSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.record(r)
		p.mu.Lock()
		limited := p.hubLimited > 0
		p.hubLimited--
		p.mu.Unlock()
		if limited {
			w.Header().Set("Retry-After", p.hubRetry)
			http.Error(w, `{"message":"Too Many Requests"}`, http.StatusTooManyRequests)
			return
		}
		ns := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v2/namespaces/"), "/repositories")
		repos, ok := hub[ns]
		if !ok {
			http.Error(w, `{"message":"object not found"}`, http.StatusNotFound)
			return
		}
		// Two per page, with Hub's absolute next links.
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		end := min(2*page, len(repos))
		body := map[string]any{"count": len(repos), "results": []map[string]string{}}
		var results []map[string]string
		for _, n := range repos[2*(page-1) : end] {
			results = append(results, map[string]string{"name": n, "namespace": ns})
		}
		body["results"] = results
		if end < len(repos) {
			body["next"] = fmt.Sprintf("https://hub.docker.com/v2/namespaces/%s/repositories?page=%d&page_size=2", ns, page+1)
		}
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(hubSrv.Close)
	ghSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.record(r)
		p.mu.Lock()
		p.githubTokens = append(p.githubTokens, r.Header.Get("Authorization"))
		p.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer ghp_token" {
			http.Error(w, `{"message":"Requires authentication"}`, http.StatusUnauthorized)
			return
		}
		org := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/orgs/"), "/packages")
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		pkgs := github[org]
		start, end := min(per*(page-1), len(pkgs)), min(per*page, len(pkgs))
		var out []map[string]string
		for _, n := range pkgs[start:end] {
			out = append(out, map[string]string{"name": n, "package_type": "container"})
		}
		if out == nil {
			out = []map[string]string{}
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(ghSrv.Close)
	to := map[string]string{"hub.docker.com": hubSrv.URL, "api.github.com": ghSrv.URL, "index.docker.io": reg.URL, "ghcr.io": reg.URL}
	p.transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		target, ok := to[r.URL.Host]
		if !ok && slices.ContainsFunc([]string{reg.URL, hubSrv.URL, ghSrv.URL}, func(u string) bool { return strings.HasSuffix(u, "//"+r.URL.Host) }) {
			return http.DefaultTransport.RoundTrip(r) // a Location the fake registry answered with
		} else if !ok {
			return nil, fmt.Errorf("the test reaches no %s", r.URL.Host)
		}
		u, _ := url.Parse(target)
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = u.Scheme, u.Host
		return http.DefaultTransport.RoundTrip(r)
	})
	// Images are pushed through the same routing, by their public names.
	for _, ref := range images {
		img, err := random.Image(16, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := name.ParseReference(ref)
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Write(r, img, remote.WithTransport(p.transport)); err != nil {
			t.Fatalf("pushing %s: %v", ref, err)
		}
	}
	return p
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestWildcardsOnDockerHubAndGHCR: the canonical AMD source (amdenterpriseai/aim-* on Docker Hub) and an
// organization's packages on ghcr.io list through Hub's and GitHub's APIs, page by page, then the matching
// repositories' tags through the registry API.
func TestWildcardsOnDockerHubAndGHCR(t *testing.T) {
	var packages []string
	for i := range 101 { // more than one page of GitHub's 100
		packages = append(packages, fmt.Sprintf("tool-%03d", i))
	}
	packages = append(packages, "aim-llama")
	p := startPublicAPIs(t,
		map[string][]string{"amdenterpriseai": {"aim-qwen", "aim-base", "other", "aim-llama", "aim-empty"}},
		map[string][]string{"silogen": packages},
		[]string{"amdenterpriseai/aim-qwen:0.8.5", "amdenterpriseai/aim-qwen:0.7.0", "amdenterpriseai/aim-llama:0.9.0",
			"amdenterpriseai/other:1.0.0", "ghcr.io/silogen/aim-llama:1.0.0"})
	secret := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ghcr"}, Type: corev1.SecretTypeDockerConfigJson,
		Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{"ghcr.io":{"username":"bot","password":"ghp_token"}}}`)}}
	l := newRegistryLister([]corev1.Secret{secret}, nil).(RegistryLister)
	l.Transport = p.transport
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	spec := sourceSpec(aimv1.DefaultRegistry, []string{">=0.8.0"},
		aimv1.AIMModelSourceFilter{Image: "amdenterpriseai/aim-*", Exclude: []string{"amdenterpriseai/aim-base"}},
		aimv1.AIMModelSourceFilter{Image: "ghcr.io/silogen/aim-*"})
	images, errs := Discover(ctx, l, spec)
	want := []string{"amdenterpriseai/aim-llama:0.9.0", "amdenterpriseai/aim-qwen:0.8.5", "ghcr.io/silogen/aim-llama:1.0.0"}
	var got []string
	for _, img := range images {
		got = append(got, img.Reference())
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || len(errs) != 1 {
		t.Errorf("images %v, errors %v; want %v and one error (aim-empty has no tags)", got, errs, want)
	}
	var se *state.Error
	if len(errs) == 1 && (!errors.As(errs[0], &se) || se.Category != state.MissingUpstream || !strings.Contains(errs[0].Error(), "aim-empty")) {
		t.Errorf("the repository Hub lists but the registry does not hold: %v", errs[0])
	}
	var hubPages, githubPages int
	for _, r := range p.requests {
		hubPages += strings.Count(r, "hub.docker.com /v2/namespaces/amdenterpriseai/repositories")
		githubPages += strings.Count(r, "api.github.com /orgs/silogen/packages?package_type=container&per_page=100&page=")
	}
	if hubPages != 3 || githubPages != 2 {
		t.Errorf("Hub pages %d (want 3), GitHub pages %d (want 2): %v", hubPages, githubPages, p.requests)
	}
}

// TestRepositoryAPIsRefusals: a rate limit is waited out when short and reported as RegistryRateLimited when
// long; ghcr.io without a token asks for one without a request; an unknown namespace is MissingUpstream.
func TestRepositoryAPIsRefusals(t *testing.T) {
	p := startPublicAPIs(t, map[string][]string{"amdenterpriseai": {"aim-qwen"}}, nil, nil)
	l := RegistryLister{Transport: p.transport}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	p.hubLimited, p.hubRetry = 1, "1"
	if repos, err := l.Repositories(ctx, "docker.io", "amdenterpriseai"); err != nil || !slices.Equal(repos, []string{"amdenterpriseai/aim-qwen"}) {
		t.Errorf("after a 1 s rate limit: %v %v", repos, err)
	}
	p.hubLimited, p.hubRetry = 5, "3600"
	var se *state.Error
	_, err := l.Repositories(ctx, "docker.io", "amdenterpriseai")
	if !errors.As(err, &se) || se.Reason != "RegistryRateLimited" || se.Category != state.Infrastructure || !strings.Contains(err.Error(), "1h0m0s") {
		t.Errorf("a rate limit of an hour: %v, want RegistryRateLimited saying when", err)
	}
	p.hubLimited = 0
	if _, err := l.Repositories(ctx, "docker.io", "nobody"); !errors.As(err, &se) || se.Category != state.MissingUpstream {
		t.Errorf("unknown namespace: %v", err)
	}
	before := len(p.githubTokens)
	if _, err := l.Repositories(ctx, "ghcr.io", "silogen"); !errors.As(err, &se) || se.Category != state.Auth || !strings.Contains(err.Error(), "read:packages") {
		t.Errorf("ghcr.io without a token: %v", err)
	}
	if len(p.githubTokens) != before {
		t.Error("GitHub's API was asked without a token")
	}
}
