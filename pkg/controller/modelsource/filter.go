// Package modelsource reconciles AIMClusterModelSources: it lists a container registry through a Lister,
// keeps the images its filters select, and creates one AIMClusterModel per image, up to maxModels. Discovery
// (what the registry holds) and planning (which models to create) are separate so that both are testable
// without a network.
package modelsource

import (
	"path"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/google/go-containerregistry/pkg/name"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
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
	// Ranges are the versions that parse (validation.VersionRange); a tag must be in each.
	Ranges []semver.Range
	// IgnoredVersions are the versions that do not parse, which aim-engine skips rather than fail the filter.
	IgnoredVersions []string
}

// ParseFilter reads a filter. The image is "[host[:port]/]repository[:tag]": the first path segment is a host
// when it has a dot or a port or is localhost (the Docker convention), and the tag follows the last colon
// after the last slash. An image without wildcards is read as aim-engine reads it, as an image reference
// (parseImageFilter in its filtering.go): Docker Hub's names stand for spec.registry, and a one-segment
// repository is Docker's library/<name>. Per-filter versions replace the spec's.
func ParseFilter(f aimv1.AIMModelSourceFilter, registry string, versions []string) (Filter, error) {
	out := Filter{Registry: registry, Repository: strings.TrimSpace(f.Image), Exclude: f.Exclude}
	if ref, err := name.ParseReference(out.Repository); err == nil && !strings.Contains(out.Repository, "*") {
		if host := ref.Context().RegistryStr(); host != name.DefaultRegistry && host != aimv1.DefaultRegistry {
			out.Registry = host
		}
		out.Repository = ref.Context().RepositoryStr()
		// The parser adds "latest" to an image without a tag; only a tag the filter gives selects one.
		if t, ok := ref.(name.Tag); ok && strings.Contains(path.Base(f.Image), ":") {
			out.Tag = t.TagStr()
		}
	} else if first, rest, ok := strings.Cut(out.Repository, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
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
		if r, err := validation.VersionRange(v); err == nil {
			out.Ranges = append(out.Ranges, r)
		} else {
			out.IgnoredVersions = append(out.IgnoredVersions, v)
		}
	}
	return out, nil
}

// IgnoredVersions are the versions entries that some filter applies but that do not parse, each once, in spec
// order. aim-engine only skips them; the status names them, since the filter then selects more tags than it says.
func IgnoredVersions(spec aimv1.AIMClusterModelSourceSpec) []string {
	var out []string
	for _, fs := range spec.Filters {
		f, err := ParseFilter(fs, spec.Registry, spec.Versions)
		if err != nil || f.ExactTag() {
			continue
		}
		for _, v := range f.IgnoredVersions {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
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

// versioned reports whether the filter or the spec lists versions: only semver tags pass then, even when every
// entry is ignored, as in aim-engine.
func (f Filter) versioned() bool { return len(f.Ranges)+len(f.IgnoredVersions) > 0 }

// TagSelected reports whether a listed tag passes the filter's tag (exact or a pattern) and versions. An exact
// tag is selected by name alone. With versions, a tag that is not a semver version (TagVersion) is skipped, and a
// tag must be in every range, as a list of versions narrows (alternatives go into one entry: "0.8.x || 0.9.x").
// Prereleases are ordinary versions there: 0.8.1-rc1 is >=0.8.0.
func (f Filter) TagSelected(tag string) bool {
	if f.Tag != "" && !Match(f.Tag, tag) {
		return false
	}
	if f.ExactTag() || !f.versioned() {
		return true
	}
	v, ok := TagVersion(tag)
	if !ok {
		return false
	}
	for _, r := range f.Ranges {
		if !r(v) {
			return false
		}
	}
	return true
}

// TagVersion is a tag's semver version as aim-engine reads it: one leading v dropped, then strict semver, so
// 0.9 and 20240101 are not versions.
func TagVersion(tag string) (semver.Version, bool) {
	v, err := semver.Parse(strings.TrimPrefix(tag, "v"))
	return v, err == nil
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
