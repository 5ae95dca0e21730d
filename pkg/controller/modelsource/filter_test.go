package modelsource

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

func TestParseFilter(t *testing.T) {
	for _, tc := range []struct {
		image, registry          string
		wantReg, wantRepo, wantT string
		wildcard                 bool
	}{
		{"amdenterpriseai/aim-qwen", "docker.io", "docker.io", "amdenterpriseai/aim-qwen", "", false},
		{"amdenterpriseai/aim-*", "docker.io", "docker.io", "amdenterpriseai/aim-*", "", true},
		{"aim/qwen:0.8.5", "127.0.0.1:5000", "127.0.0.1:5000", "aim/qwen", "0.8.5", false},
		{"ghcr.io/amd/aim-qwen:latest", "docker.io", "ghcr.io", "amd/aim-qwen", "latest", false},
		{"127.0.0.1:5000/aim/*:0.8.*", "docker.io", "127.0.0.1:5000", "aim/*", "0.8.*", true},
		{"localhost/aim/llama", "docker.io", "localhost", "aim/llama", "", false},
		// As aim-engine reads an image without wildcards: a reference whose Docker Hub host stands for
		// spec.registry, a one-segment name in Docker's library (empty spec.registry: the API default).
		{"qwen", "", "docker.io", "library/qwen", "", false},
		{"nginx:1.27", "docker.io", "docker.io", "library/nginx", "1.27", false},
		{"index.docker.io/org/x:1", "docker.io", "docker.io", "org/x", "1", false},
		{"docker.io/org/x:1", "127.0.0.1:5000", "127.0.0.1:5000", "org/x", "1", false},
		{"localhost:5000/aim/qwen", "docker.io", "localhost:5000", "aim/qwen", "", false},
	} {
		f, err := ParseFilter(aimv1.AIMModelSourceFilter{Image: tc.image}, tc.registry, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.image, err)
			continue
		}
		if f.Registry != tc.wantReg || f.Repository != tc.wantRepo || f.Tag != tc.wantT || f.Wildcard() != tc.wildcard {
			t.Errorf("%s: got %+v", tc.image, f)
		}
	}
}

func TestParseFilterRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		filter aimv1.AIMModelSourceFilter
		global []string
	}{
		{"empty tag", aimv1.AIMModelSourceFilter{Image: "aim/qwen:"}, nil},
		{"empty repository", aimv1.AIMModelSourceFilter{Image: "ghcr.io/"}, nil},
		{"empty path segment", aimv1.AIMModelSourceFilter{Image: "aim//qwen"}, nil},
	} {
		_, err := ParseFilter(tc.filter, "docker.io", tc.global)
		var se *state.Error
		if !errors.As(err, &se) || se.Category != state.InvalidSpec || se.Reason != "InvalidFilter" {
			t.Errorf("%s: want an InvalidFilter InvalidSpec error, got %v", tc.name, err)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"aim/*", "aim/qwen", true},
		{"aim/*", "aim/sub/qwen", true}, // * crosses slashes
		{"aim/*", "aimx/qwen", false},
		{"aim/*", "aim/", true},
		{"*", "anything", true},
		{"amdenterpriseai/aim-*", "amdenterpriseai/aim-llama", true},
		{"amdenterpriseai/aim-*", "amdenterpriseai/other", false},
		{"*-instruct", "aim/llama-instruct", true},
		{"*-instruct", "aim/llama-base", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxcyyb", false},
		{"ab*ba", "aba", false}, // prefix and suffix may not overlap
		{"aim/qwen", "aim/qwen", true},
		{"aim/qwen", "aim/qwen2", false},
	} {
		if got := Match(tc.pattern, tc.s); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

func TestTagSelected(t *testing.T) {
	parse := func(image string, filterVersions, global []string) Filter {
		t.Helper()
		f, err := ParseFilter(aimv1.AIMModelSourceFilter{Image: image, Versions: filterVersions}, "r.example", global)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tags := []string{"0.8.4", "0.8.5", "v0.9.0", "1.0.0-rc1", "latest", "0.8"}
	for _, tc := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"no constraints: every tag", parse("aim/qwen", nil, nil), tags},
		{"global constraint; non-semver skipped, v prefix fine, prerelease is a version", parse("aim/qwen", nil, []string{">=0.8.5"}),
			[]string{"0.8.5", "v0.9.0", "1.0.0-rc1"}},
		{"filter constraint replaces global", parse("aim/qwen", []string{"<0.8.5"}, []string{">=0.8.5"}), []string{"0.8.4"}},
		{"every constraint must hold", parse("aim/qwen", []string{">=0.8.5", "<0.9"}, nil), []string{"0.8.5"}},
		{"alternatives in one constraint", parse("aim/qwen", []string{"0.8.4 || >=0.9.0 <1.0.0"}, nil), []string{"0.8.4", "v0.9.0", "1.0.0-rc1"}},
		{"tag pattern and constraint", parse("aim/qwen:0.8.*", nil, []string{">=0.8.5"}), []string{"0.8.5"}},
		{"exact tag ignores constraints", parse("aim/*:latest", nil, []string{">=1"}), []string{"latest"}},
		{"an ignored constraint still skips non-semver tags", parse("aim/qwen", []string{"~0.8"}, nil), []string{"0.8.4", "0.8.5", "v0.9.0", "1.0.0-rc1"}},
	} {
		var got []string
		for _, tag := range tags {
			if tc.f.TagSelected(tag) {
				got = append(got, tag)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTagSelectedAsAimEngine: the tags aim-engine's matchesFilter selects, with its own test cases
// (internal/aimclustermodelsource/filtering_test.go TestMatchesSemver and TestMatchesFilter) and the cases where
// another semver library selects differently: blang/semver ranges have no ~, ^ or comma, and aim-engine skips
// what does not parse instead of failing the filter.
func TestTagSelectedAsAimEngine(t *testing.T) {
	for _, tc := range []struct {
		name           string
		tag            string
		versions       []string // the filter's
		globalVersions []string
		want           bool
	}{
		// aim-engine's TestMatchesSemver.
		{"exact version match", "1.0.0", []string{">=1.0.0"}, nil, true},
		{"v prefix stripped", "v1.0.0", []string{">=1.0.0"}, nil, true},
		{"greater than", "2.0.0", []string{">=1.0.0"}, nil, true},
		{"less than", "1.0.0", []string{"<2.0.0"}, nil, true},
		{"multiple constraints all satisfied", "1.5.0", []string{">=1.0.0", "<2.0.0"}, nil, true},
		{"multiple constraints not all satisfied", "2.5.0", []string{">=1.0.0", "<2.0.0"}, nil, false},
		{"tilde is ignored", "1.2.3", []string{"~1.2.0"}, nil, true},
		{"caret is ignored", "1.5.0", []string{"^1.2.0"}, nil, true},
		{"non-semver tag skipped: latest", "latest", []string{">=1.0.0"}, nil, false},
		{"non-semver tag skipped: dev", "dev", []string{">=1.0.0"}, nil, false},
		{"non-semver tag skipped: stable", "stable", []string{">=1.0.0"}, nil, false},
		{"invalid constraint ignored", "1.0.0", []string{"invalid", ">=1.0.0"}, nil, true},
		{"all constraints invalid", "1.0.0", []string{"invalid", "also-invalid"}, nil, true},
		{"prerelease with constraint", "0.8.1-rc1", []string{">=0.8.0"}, nil, true},
		{"prerelease with prerelease constraint", "0.8.1-rc1", []string{">=0.8.1-rc1"}, nil, true},
		{"prerelease alpha", "1.0.0-alpha.1", []string{">=1.0.0-alpha"}, nil, true},
		{"prerelease no constraints", "0.8.1-rc1", nil, nil, true},
		{"below a one-dot minimum", "0.8.4", []string{">=0.9"}, nil, false},
		{"below the minimum", "0.8.4", []string{">=0.9.0"}, nil, false},
		// aim-engine's TestMatchesFilter, versions.
		{"filter-specific constraint", "1.5.0", []string{">=1.0.0", "<2.0.0"}, nil, true},
		{"filter-specific constraint fails", "2.5.0", []string{">=1.0.0", "<2.0.0"}, nil, false},
		{"global constraint", "1.5.0", nil, []string{">=1.0.0"}, true},
		{"filter versions override global", "0.9.0", []string{">=0.8.0"}, []string{">=1.0.0"}, true},
		{"global versions apply without the filter's", "0.9.0", nil, []string{">=1.0.0"}, false},
		// Where Masterminds/semver selected differently.
		{"a prerelease is its version", "0.8.1-rc1", []string{">=0.8.0"}, nil, true},
		{"~0.8 is ignored", "0.9.5", []string{"~0.8"}, nil, true},
		{"^1.0.0 is ignored", "2.0.0", []string{"^1.0.0"}, nil, true},
		{"a comma list is ignored", "1.5.0", []string{">=0.8.0, <1.0.0"}, nil, true},
		{"an ignored constraint still needs a semver tag", "latest", []string{">=0.8.0, <1.0.0"}, nil, false},
		{"one dot is not semver", "0.9", []string{">=0.8.0"}, nil, false},
		{"a date is not semver", "20240101", []string{">=0.8.0"}, nil, false},
		{"a constraint that is not a version is ignored", "1.0.0", []string{"latest"}, nil, true},
		{"a global constraint that is not a version is ignored", "0.1.0", nil, []string{"latest"}, true},
		// aim-engine's normalization and parsing.
		{"a one-dot constraint gets its patch", "0.9.0", []string{">=0.9"}, nil, true},
		{"a one-dot upper bound gets its patch", "0.9.0", []string{"<0.9"}, nil, false},
		{"two one-dot versions in one entry are ignored", "1.5.0", []string{">=0.8 <1.0"}, nil, true},
		{"space-separated ranges narrow", "1.5.0", []string{">=0.8.0 <1.0.0"}, nil, false},
		{"|| alternatives", "1.5.0", []string{"<1.0.0 || >=1.5.0"}, nil, true},
		{"only one v is stripped", "vv1.0.0", []string{">=0.1.0"}, nil, false},
		{"a capital V is not stripped", "V1.0.0", []string{">=0.1.0"}, nil, false},
		{"leading zeros are not semver", "01.0.0", []string{">=0.1.0"}, nil, false},
	} {
		f, err := ParseFilter(aimv1.AIMModelSourceFilter{Image: "amdenterpriseai/aim-*", Versions: tc.versions}, "docker.io", tc.globalVersions)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := f.TagSelected(tc.tag); got != tc.want {
			t.Errorf("%s: TagSelected(%q) with versions %q, global %q = %v, want %v", tc.name, tc.tag, tc.versions, tc.globalVersions, got, tc.want)
		}
	}
}

// TestIgnoredVersions: the entries a filter applies but cannot parse, once each; not those of filters that name a
// tag or whose own versions replace the spec's.
func TestIgnoredVersions(t *testing.T) {
	spec := aimv1.AIMClusterModelSourceSpec{Registry: "docker.io", Versions: []string{"~0.8", ">=0.8.0", "latest"},
		Filters: []aimv1.AIMModelSourceFilter{
			{Image: "aim/a"},
			{Image: "aim/b", Versions: []string{"^1.0.0", ">=0.8.0, <1.0.0", "~0.8"}},
			{Image: "aim/c:1.0.0", Versions: []string{"exact-tags-ignore-me"}},
		}}
	want := []string{"~0.8", "latest", "^1.0.0", ">=0.8.0, <1.0.0"}
	if diff := cmp.Diff(want, IgnoredVersions(spec)); diff != "" {
		t.Errorf("ignored versions (-want +got):\n%s", diff)
	}
	spec.Versions = []string{">=0.8", "0.8.x"}
	spec.Filters = spec.Filters[:1]
	if got := IgnoredVersions(spec); len(got) != 0 {
		t.Errorf("versions that parse reported as ignored: %q", got)
	}
}

func TestExcluded(t *testing.T) {
	f := Filter{Exclude: []string{"aim/old", " aim/spaced "}}
	if !f.Excluded("aim/old") || !f.Excluded("aim/spaced") || f.Excluded("aim/old2") || f.Excluded("aim/*") {
		t.Errorf("exclude matches exact names only")
	}
}
