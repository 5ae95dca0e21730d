package modelsource

import (
	"context"
	"fmt"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// Image is one registry image a filter selected.
type Image struct {
	Registry, Repository, Tag string
}

// Reference is the image's reference as aim-engine writes a model's spec.image: without the registry when it
// is Docker Hub's default name. Template names start with the image, so they follow it.
func (i Image) Reference() string {
	if i.Registry == aimv1.DefaultRegistry {
		return i.Repository + ":" + i.Tag
	}
	return i.Registry + "/" + i.Repository + ":" + i.Tag
}

// Discover lists the images the spec's filters select, each once. A filter that fails does not stop the
// others: errs has one categorized error per failed filter, prefixed with its index. Each repository and tag
// list is read once per call, however many filters need it.
func Discover(ctx context.Context, l Lister, spec aimv1.AIMClusterModelSourceSpec) (images []Image, errs []error) {
	catalogs := map[string][]string{}
	tags := map[Image][]string{} // keyed by registry and repository
	seen := map[Image]bool{}
	for i, f := range spec.Filters {
		found, err := discoverFilter(ctx, l, f, spec, catalogs, tags)
		if err != nil {
			errs = append(errs, fmt.Errorf("filters[%d] %q: %w", i, f.Image, err))
		}
		for _, img := range found {
			if !seen[img] {
				seen[img] = true
				images = append(images, img)
			}
		}
	}
	return images, errs
}

func discoverFilter(ctx context.Context, l Lister, spec aimv1.AIMModelSourceFilter, source aimv1.AIMClusterModelSourceSpec,
	catalogs map[string][]string, tagLists map[Image][]string) ([]Image, error) {
	f, err := ParseFilter(spec, source.Registry, source.Versions)
	if err != nil {
		return nil, err
	}
	repos := []string{f.Repository}
	if f.Wildcard() {
		var namespace string
		if listsByNamespace(f.Registry) {
			if namespace, err = wildcardNamespace(f.Registry, f.Repository); err != nil {
				return nil, err
			}
		}
		scope := f.Registry + "/" + namespace
		catalog, ok := catalogs[scope]
		if !ok {
			if catalog, err = l.Repositories(ctx, f.Registry, namespace); err != nil {
				return nil, err
			}
			catalogs[scope] = catalog
		}
		repos = repos[:0]
		for _, r := range catalog {
			if Match(f.Repository, r) {
				repos = append(repos, r)
			}
		}
	}
	var out []Image
	var unlisted []error
	for _, repo := range repos {
		// A named tag of a named repository is that image: no listing, and no version constraints or exclusions
		// either, since the user chose it (aim-engine's static images, registry.go:113).
		if f.ExactTag() && !f.Wildcard() {
			out = append(out, Image{Registry: f.Registry, Repository: repo, Tag: f.Tag})
			continue
		}
		if f.Excluded(repo) {
			continue
		}
		key := Image{Registry: f.Registry, Repository: repo}
		tags, ok := tagLists[key]
		if !ok {
			if tags, err = l.Tags(ctx, f.Registry, repo); err != nil {
				if ctx.Err() != nil {
					return out, err
				}
				// One repository a wildcard matched that cannot be listed fails the filter, but does not hide the
				// images of the others, as aim-engine skips it (registry.go:251).
				unlisted = append(unlisted, err)
				continue
			}
			tagLists[key] = tags
		}
		for _, t := range tags {
			if f.TagSelected(t) {
				out = append(out, Image{Registry: f.Registry, Repository: repo, Tag: t})
			}
		}
	}
	return out, unlistedError(unlisted)
}

// unlistedError is the error of a filter some repositories of which could not be listed: the first one's,
// which names the repository and carries the category, with the count of the others.
func unlistedError(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	others := fmt.Sprintf("%d more repositories", len(errs)-1)
	if len(errs) == 2 {
		others = "1 more repository"
	}
	return fmt.Errorf("%w (and %s whose tags could not be listed)", errs[0], others)
}
