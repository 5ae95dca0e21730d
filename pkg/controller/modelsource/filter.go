// Package modelsource reconciles AIMClusterModelSources: it lists a container registry through a Lister,
// keeps the images its filters select, and creates one AIMClusterModel per image, up to maxModels. Discovery
// (what the registry holds) and planning (which models to create) are separate so that both are testable
// without a network.
package modelsource

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Filter is a parsed spec.filters[] entry.
type Filter struct {
	// Registry is the host the filter lists: its own host prefix, else spec.registry.
	Registry string
	// Repository is a repository name, or a pattern when it has * wildcards.
	Repository string
	// Tag is empty (every tag), a tag, or a pattern when it has * wildcards.
	Tag string
	// Exclude are repositories to skip, by exact name.
	Exclude []string
	// Constraints select tags by semver; nil when neither the filter nor the spec has any.
	Constraints []*semver.Constraints
}

// ParseFilter reads a filter. The image is "[host[:port]/]repository[:tag]": the first path segment is a host
// when it has a dot or a port or is localhost (the Docker convention), and the tag follows the last colon
// after the last slash. Per-filter versions replace the spec's.
func ParseFilter(f aimv1.AIMModelSourceFilter, registry string, versions []string) (Filter, error) {
	out := Filter{Registry: registry, Repository: strings.TrimSpace(f.Image), Exclude: f.Exclude}
	if first, rest, ok := strings.Cut(out.Repository, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		out.Registry, out.Repository = first, rest
	}
	if i := strings.LastIndex(out.Repository, ":"); i >= 0 && !strings.Contains(out.Repository[i:], "/") {
		out.Repository, out.Tag = out.Repository[:i], out.Repository[i+1:]
		if out.Tag == "" {
			return Filter{}, invalidFilter(f.Image, "the tag after ':' is empty")
		}
	}
	if out.Registry == "" {
		out.Registry = aimv1.DefaultRegistry
	}
	if out.Repository == "" || strings.HasPrefix(out.Repository, "/") || strings.HasSuffix(out.Repository, "/") || strings.Contains(out.Repository, "//") {
		return Filter{}, invalidFilter(f.Image, "the repository is empty or has an empty path segment")
	}
	if len(f.Versions) > 0 {
		versions = f.Versions
	}
	for _, v := range versions {
		c, err := semver.NewConstraint(v)
		if err != nil {
			return Filter{}, invalidFilter(f.Image, fmt.Sprintf("version constraint %q: %v", v, err))
		}
		out.Constraints = append(out.Constraints, c)
	}
	return out, nil
}

func invalidFilter(image, why string) error {
	return state.NewError(state.InvalidSpec, ReasonInvalidFilter, "filter %q: %s", image, why)
}

// Wildcard reports whether the filter's repository is a pattern, which needs the registry's catalog.
func (f Filter) Wildcard() bool { return strings.Contains(f.Repository, "*") }

// ExactTag reports whether the filter names one tag: the user chose it, so version constraints do not apply.
func (f Filter) ExactTag() bool { return f.Tag != "" && !strings.Contains(f.Tag, "*") }

// Excluded reports whether a repository is excluded by name.
func (f Filter) Excluded(repository string) bool {
	for _, e := range f.Exclude {
		if strings.TrimSpace(e) == repository {
			return true
		}
	}
	return false
}

// TagSelected reports whether a listed tag passes the filter's tag (exact or a pattern) and version
// constraints. An exact tag is selected by name alone. With constraints, a tag that is not a semver version (a leading v is fine) is skipped; a tag must satisfy every
// constraint, as a list of constraints narrows (alternatives go into one constraint: "~0.8 || ~0.9").
func (f Filter) TagSelected(tag string) bool {
	if f.Tag != "" && !Match(f.Tag, tag) {
		return false
	}
	if f.ExactTag() || len(f.Constraints) == 0 {
		return true
	}
	v, err := semver.NewVersion(tag)
	if err != nil {
		return false
	}
	for _, c := range f.Constraints {
		if !c.Check(v) {
			return false
		}
	}
	return true
}

// Match reports whether s matches a glob pattern whose only special character is *, which matches any run of
// characters, slashes included: "aim/*" selects every repository under aim/.
func Match(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
