package modelsource

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Docker Hub and ghcr.io serve no catalog (/v2/_catalog); the repositories a wildcard can select are listed
// through their own APIs, as aim-engine does: Hub's repositories of a namespace, GitHub's container packages
// of an organization.
const (
	DockerHubAPI = "https://hub.docker.com"
	GitHubAPI    = "https://api.github.com"
	ghcrRegistry = "ghcr.io"
)

// Bounds of one listing: pages (100 entries each) and waits on a rate limit the service asks for.
const (
	maxPages        = 100
	maxRetryAfter   = 30 * time.Second
	rateLimitTries  = 3
	defaultRetryGap = 2 * time.Second
)

// hubRepositories lists the repositories of a Docker Hub namespace (anonymous: the public ones, as aim-engine
// lists them), following Hub's next links.
func (l RegistryLister) hubRepositories(ctx context.Context, namespace string) ([]string, error) {
	next := strings.TrimSuffix(l.api(l.DockerHubAPI, DockerHubAPI), "/") + "/v2/namespaces/" + url.PathEscape(namespace) + "/repositories?page_size=100"
	var repos []string
	for page := 0; next != "" && page < maxPages; page++ {
		var body struct {
			Results []struct {
				Name string `json:"name"`
			} `json:"results"`
			Next string `json:"next"`
		}
		if err := l.getJSON(ctx, "Docker Hub", next, "", &body); err != nil {
			return nil, fmt.Errorf("listing the repositories of %s on Docker Hub: %w", namespace, err)
		}
		for _, r := range body.Results {
			repos = append(repos, namespace+"/"+r.Name)
		}
		next = body.Next
	}
	return repos, nil
}

// ghcrRepositories lists the container packages of a GitHub organization. GitHub's API needs a token (one with
// read:packages): the password of the pull secret's entry for ghcr.io, which is what `docker login ghcr.io`
// stores.
func (l RegistryLister) ghcrRepositories(ctx context.Context, org string) ([]string, error) {
	token, err := l.ghcrToken()
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(l.api(l.GitHubAPI, GitHubAPI), "/") + "/orgs/" + url.PathEscape(org) + "/packages?package_type=container&per_page=100&page="
	var repos []string
	for page := 1; page <= maxPages; page++ {
		var body []struct {
			Name string `json:"name"`
		}
		if err := l.getJSON(ctx, "GitHub", base+strconv.Itoa(page), token, &body); err != nil {
			return nil, fmt.Errorf("listing the container packages of %s on ghcr.io: %w", org, err)
		}
		for _, p := range body {
			repos = append(repos, org+"/"+p.Name)
		}
		if len(body) < 100 {
			break
		}
	}
	return repos, nil
}

// ghcrToken is the password the keychain holds for ghcr.io.
func (l RegistryLister) ghcrToken() (string, error) {
	reg, _ := name.NewRegistry(ghcrRegistry)
	var cfg *authn.AuthConfig
	if a, err := l.Credentials.Resolve(reg); err == nil && a != authn.Anonymous {
		cfg, _ = authn.Authorization(context.Background(), a)
	}
	switch {
	case cfg == nil:
	case cfg.Password != "":
		return cfg.Password, nil
	case cfg.RegistryToken != "":
		return cfg.RegistryToken, nil
	}
	return "", state.NewError(state.Auth, imagemeta.ReasonImagePullAuthFailure,
		"listing ghcr.io packages takes GitHub's API, which needs a token with read:packages: add a pull secret with credentials for ghcr.io to spec.imagePullSecrets, or name the repositories without *")
}

func (l RegistryLister) api(set, def string) string {
	if set != "" {
		return set
	}
	return def
}

// getJSON GETs a JSON API, waiting out a rate limit the service announces (429 or 503 with Retry-After) up to
// maxRetryAfter, at most rateLimitTries times. Errors are categorized as the registry's are.
func (l RegistryLister) getJSON(ctx context.Context, service, u, token string, into any) error {
	client := &http.Client{Transport: l.Transport}
	for try := 1; ; try++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return state.NewError(state.InvalidSpec, ReasonInvalidFilter, "%s: %v", service, err)
		}
		req.Header.Set("Accept", "application/json")
		if token != "" {
			req.Header.Set("Accept", "application/vnd.github+json")
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return state.NewError(state.Infrastructure, imagemeta.ReasonRegistryUnreachable, "%s cannot be reached: %s", service,
				redact.Excerpt(err.Error(), redact.DefaultLimit, append(l.Credentials.Values(), token)...))
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		_ = resp.Body.Close()
		if err != nil {
			return state.NewError(state.Infrastructure, imagemeta.ReasonRegistryUnreachable, "reading %s's answer: %v", service, err)
		}
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(data, into); err != nil {
				return state.NewError(state.Infrastructure, imagemeta.ReasonRegistryUnreachable, "%s answered what is not its API's JSON: %v", service, err)
			}
			return nil
		}
		wait, limited := retryAfter(resp)
		if limited && try < rateLimitTries && wait <= maxRetryAfter {
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return state.NewError(state.Infrastructure, imagemeta.ReasonRegistryRateLimited, "%s limits the request rate; gave up waiting: %v", service, ctx.Err())
			}
		}
		return apiError(service, resp.StatusCode, wait, limited, redact.Excerpt(string(data), redact.DefaultLimit, append(l.Credentials.Values(), token)...))
	}
}

// retryAfter reads a rate limit: 429, or 503 with Retry-After (seconds or an HTTP date).
func retryAfter(resp *http.Response) (time.Duration, bool) {
	h := resp.Header.Get("Retry-After")
	if resp.StatusCode != http.StatusTooManyRequests && (resp.StatusCode != http.StatusServiceUnavailable || h == "") {
		return 0, false
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0), true
	}
	return defaultRetryGap, true
}

func apiError(service string, code int, wait time.Duration, limited bool, excerpt string) error {
	status := fmt.Sprintf("HTTP %d %s", code, http.StatusText(code))
	switch {
	case limited:
		return state.NewError(state.Infrastructure, imagemeta.ReasonRegistryRateLimited, "%s limits the request rate (%s; retry after %s): %s", service, status, wait, excerpt)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return state.NewError(state.Auth, imagemeta.ReasonImagePullAuthFailure, "%s refused the credentials (%s): %s", service, status, excerpt)
	case code == http.StatusNotFound:
		return state.NewError(state.MissingUpstream, imagemeta.ReasonImageNotFound, "%s knows no such namespace or organization (%s): %s", service, status, excerpt)
	}
	return state.NewError(state.Infrastructure, imagemeta.ReasonRegistryUnreachable, "%s failed (%s): %s", service, status, excerpt)
}

// listsByNamespace reports whether a registry lists repositories by namespace (Docker Hub, ghcr.io) rather than
// by catalog.
func listsByNamespace(registry string) bool { return dockerHub(registry) || registry == ghcrRegistry }

// wildcardNamespace is the namespace (Docker Hub) or organization (ghcr.io) a wildcard repository pattern lists:
// its first path segment, which must be written out.
func wildcardNamespace(registry, pattern string) (string, error) {
	ns, _, found := strings.Cut(pattern, "/")
	if !found || ns == "" || strings.ContainsAny(ns, "*?[") {
		return "", state.NewError(state.InvalidSpec, ReasonInvalidFilter,
			"%s lists repositories by namespace: write the namespace out (for example amdenterpriseai/aim-*), not %q", registry, pattern)
	}
	return ns, nil
}
