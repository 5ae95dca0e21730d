package modelsource

import (
	"errors"
	"slices"
	"testing"

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
		{"qwen", "", "docker.io", "qwen", "", false}, // empty spec.registry: the API default
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
		{"bad filter constraint", aimv1.AIMModelSourceFilter{Image: "aim/qwen", Versions: []string{"~>"}}, nil},
		{"bad global constraint", aimv1.AIMModelSourceFilter{Image: "aim/qwen"}, []string{"not a version"}},
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
		{"global constraint; non-semver skipped, v prefix fine", parse("aim/qwen", nil, []string{">=0.8.5"}), []string{"0.8.5", "v0.9.0"}},
		{"filter constraint replaces global", parse("aim/qwen", []string{"<0.8.5"}, []string{">=0.8.5"}), []string{"0.8.4", "0.8"}},
		{"every constraint must hold", parse("aim/qwen", []string{">=0.8.5", "<0.9"}, nil), []string{"0.8.5"}},
		{"alternatives in one constraint", parse("aim/qwen", []string{"0.8.4 || ^0.9"}, nil), []string{"0.8.4", "v0.9.0"}},
		{"tag pattern and constraint", parse("aim/qwen:0.8.*", nil, []string{">=0.8.5"}), []string{"0.8.5"}},
		{"exact tag ignores constraints", parse("aim/*:latest", nil, []string{">=1"}), []string{"latest"}},
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

func TestExcluded(t *testing.T) {
	f := Filter{Exclude: []string{"aim/old", " aim/spaced "}}
	if !f.Excluded("aim/old") || !f.Excluded("aim/spaced") || f.Excluded("aim/old2") || f.Excluded("aim/*") {
		t.Errorf("exclude matches exact names only")
	}
}
