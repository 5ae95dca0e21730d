package modelsource

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	corev1 "k8s.io/api/core/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Lister reads what a registry holds. Errors are categorized (state.Error).
type Lister interface {
	// Repositories lists the repositories of a registry a wildcard can select: with a namespace, those of the
	// Docker Hub namespace or ghcr.io organization (listsByNamespace); without, the registry's catalog.
	Repositories(ctx context.Context, registry, namespace string) ([]string, error)
	// Tags lists the tags of a repository.
	Tags(ctx context.Context, registry, repository string) ([]string, error)
}

// RegistryLister lists registries over the OCI distribution API.
type RegistryLister struct {
	// Credentials are the source's pull secrets and aim-apiserver's own; nil: anonymous. Their values are never
	// quoted from a registry's answer.
	Credentials *imagemeta.Credentials
	// Transport, if set, carries registry and API requests (tests).
	Transport http.RoundTripper
	// DockerHubAPI and GitHubAPI are the base URLs of those APIs; empty: the public ones.
	DockerHubAPI, GitHubAPI string
	// Mirrors that may list a registry are listed instead of it (--registry-config); nil: none.
	Mirrors *mirrors.Config
	// used collects the mirrors that answered, for the status (nil: not collected).
	used *mirrorsUsed
}

// mirrorsUsed are the mirror endpoints that answered a lister's requests, in the order they first did.
type mirrorsUsed struct {
	mu   sync.Mutex
	list []string
}

func (m *mirrorsUsed) add(e mirrors.Endpoint) {
	if m == nil || !e.Mirror {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.list, e.String()) {
		m.list = append(m.list, e.String())
	}
}

// MirrorsUsed are the mirrors that answered the lister's requests.
func (l RegistryLister) MirrorsUsed() []string {
	if l.used == nil {
		return nil
	}
	l.used.mu.Lock()
	defer l.used.mu.Unlock()
	return slices.Clone(l.used.list)
}

// newRegistryLister lists with the credentials of pull secrets, through the mirrors of cfg.
func newRegistryLister(secrets []corev1.Secret, cfg *mirrors.Config) Lister {
	return RegistryLister{Credentials: imagemeta.Keychain(secrets), Mirrors: cfg, used: &mirrorsUsed{}}
}

func (l RegistryLister) options(ctx context.Context, e mirrors.Endpoint) []remote.Option {
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(l.Credentials)}
	if t := cmp.Or(l.Transport, e.Transport); t != nil {
		opts = append(opts, remote.WithTransport(t))
	}
	return opts
}

// Repositories lists a registry's repositories (Lister). A Docker Hub namespace or ghcr.io organization behind
// mirrors that may list is read from the mirrors' catalog: their own APIs are not mirrored.
func (l RegistryLister) Repositories(ctx context.Context, registry, namespace string) ([]string, error) {
	switch {
	case namespace != "" && l.Mirrors.HasMirrors(registry, mirrors.List):
		repos, err := l.catalog(ctx, registry)
		return slices.DeleteFunc(repos, func(r string) bool { return !strings.HasPrefix(r, namespace+"/") }), err
	case namespace == "":
		return l.catalog(ctx, registry)
	case dockerHub(registry):
		return l.hubRepositories(ctx, namespace)
	case registry == ghcrRegistry:
		return l.ghcrRepositories(ctx, namespace)
	}
	return nil, state.NewError(state.InvalidSpec, ReasonInvalidFilter, "registry %s does not list repositories by namespace", registry)
}

// catalog lists a registry's repositories. A registry that answers 404 does not serve the catalog: that is
// for the user to fix (name repositories without wildcards), not to retry.
func (l RegistryLister) catalog(ctx context.Context, registry string) ([]string, error) {
	if _, err := name.NewRegistry(registry); err != nil {
		return nil, state.NewError(state.InvalidSpec, ReasonInvalidRegistry, "registry %q: %v", registry, err)
	}
	repos, answered, err := mirrors.Try(l.Mirrors.Endpoints(registry, mirrors.List), func(e mirrors.Endpoint) ([]string, error) {
		// A mirror's catalog names its repositories under its prefix; only those are the registry's.
		at, err := e.Repository("")
		if err != nil {
			return nil, err
		}
		all, err := remote.Catalog(ctx, at.Registry, l.options(ctx, e)...)
		if err != nil || e.Prefix == "" {
			return all, err
		}
		var repos []string
		for _, r := range all {
			if rest, ok := strings.CutPrefix(r, e.Prefix+"/"); ok {
				repos = append(repos, rest)
			}
		}
		return repos, nil
	})
	if err == nil {
		l.used.add(answered)
	}
	var terr *transport.Error
	if errors.As(err, &terr) && terr.StatusCode == http.StatusNotFound {
		return nil, catalogUnsupported(registry)
	}
	if err != nil {
		return nil, imagemeta.RegistryError("listing the repositories of "+registry, err, l.Credentials.Values()...)
	}
	return repos, nil
}

// Tags lists a repository's tags.
func (l RegistryLister) Tags(ctx context.Context, registry, repository string) ([]string, error) {
	if _, err := name.NewRepository(registry + "/" + repository); err != nil {
		return nil, state.NewError(state.InvalidSpec, ReasonInvalidFilter, "repository %s/%s: %v", registry, repository, err)
	}
	tags, answered, err := mirrors.Try(l.Mirrors.Endpoints(registry, mirrors.List), func(e mirrors.Endpoint) ([]string, error) {
		repo, err := e.Repository(repository)
		if err != nil {
			return nil, err
		}
		return remote.List(repo, l.options(ctx, e)...)
	})
	if err == nil {
		l.used.add(answered)
	}
	if err != nil {
		return nil, imagemeta.RegistryError(fmt.Sprintf("listing the tags of %s/%s", registry, repository), err, l.Credentials.Values()...)
	}
	return tags, nil
}

func catalogUnsupported(registry string) error {
	return state.NewError(state.InvalidSpec, ReasonCatalogNotSupported,
		"registry %s does not serve a catalog (/v2/_catalog), so wildcards cannot be resolved; name the repositories without *", registry)
}

// dockerHub reports whether a registry host is Docker Hub, which has no catalog endpoint but an API of its own.
func dockerHub(registry string) bool {
	switch registry {
	case aimv1.DefaultRegistry, name.DefaultRegistry, "registry-1.docker.io":
		return true
	}
	return false
}
