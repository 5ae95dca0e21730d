package model

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

func TestDesiredFromRecommendedDeployments(t *testing.T) {
	spec := aimv1.AIMModelSpec{Image: "repo/qwen:1", RuntimeConfigName: "gold", ServiceAccountName: "sa",
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "regcred"}}}
	md := &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{RecommendedDeployments: []aimv1.RecommendedDeployment{
		{GPUModel: "MI300X", GPUCount: 1, Precision: "FP8", Metric: "latency", ProfileID: "p1"},
		{GPUModel: "MI355X", GPUCount: 8, Precision: "fp4", Metric: "throughput"},
	}}}
	ts := Desired("qwen3-32b", spec, md)
	if len(ts) != 2 {
		t.Fatalf("templates %v", ts)
	}
	a := ts[0]
	if a.Spec.ModelName != "qwen3-32b" || *a.Spec.Metric != "latency" || *a.Spec.Precision != "fp8" || a.Spec.ProfileID != "p1" ||
		a.Spec.Hardware.GPU.Model != "MI300X" || a.Spec.Hardware.GPU.Requests != 1 || a.Spec.RuntimeConfigName != "gold" ||
		a.Spec.ServiceAccountName != "sa" || a.Spec.ImagePullSecrets[0].Name != "regcred" {
		t.Errorf("template spec %+v", a.Spec)
	}
	if !strings.HasPrefix(a.Name, "qwen3-32b-1x-mi300x-lat-fp8-") || len(a.Name) > 63 || a.Name == ts[1].Name {
		t.Errorf("names %q %q", a.Name, ts[1].Name)
	}
	// Stable names: the same inputs give the same templates.
	if again := Desired("qwen3-32b", spec, md); again[0].Name != a.Name {
		t.Error("names are not stable")
	}
	if long := Desired(strings.Repeat("m", 100), spec, md); len(long[0].Name) > 63 {
		t.Errorf("long name %d chars", len(long[0].Name))
	}
	off := spec
	off.Discovery = &aimv1.AIMModelDiscoveryConfig{CreateServiceTemplates: ptr.To(false)}
	if ts := Desired("qwen3-32b", off, md); len(ts) != 0 {
		t.Errorf("createServiceTemplates=false still creates %d", len(ts))
	}
}

func TestDesiredCustomModel(t *testing.T) {
	hw := &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI300X"}}
	spec := aimv1.AIMModelSpec{Image: "base:1", ModelSources: []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "s3://b/m"}},
		Custom: &aimv1.AIMModelCustomConfig{Hardware: hw}, Env: []corev1.EnvVar{{Name: "A", Value: "model"}}}
	ts := Desired("mine", spec, nil)
	if len(ts) != 1 || ts[0].Spec.Hardware.GPU.Model != "MI300X" || len(ts[0].Spec.ModelSources) != 1 || *ts[0].Spec.Type != aimv1.AIMProfileTypeUnoptimized {
		t.Fatalf("auto custom template %+v", ts)
	}
	spec.CustomTemplates = []aimv1.AIMCustomTemplate{
		{Name: "fast", Env: []corev1.EnvVar{{Name: "A", Value: "template"}}, Profile: &aimv1.AIMCustomTemplateProfile{Metric: ptr.To(aimv1.AIMMetricLatency)}},
		{Name: "big", Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 4, Model: "MI325X"}}, Type: ptr.To(aimv1.AIMProfileTypePreview)},
	}
	ts = Desired("mine", spec, &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{RecommendedDeployments: []aimv1.RecommendedDeployment{{GPUModel: "MI300X", GPUCount: 1}}}})
	if len(ts) != 2 {
		t.Fatalf("a custom model takes templates from customTemplates only, got %d", len(ts))
	}
	if ts[0].Spec.Env[0].Value != "template" || *ts[0].Spec.Metric != "latency" || ts[0].Spec.Hardware.GPU.Model != "MI300X" {
		t.Errorf("first custom template %+v", ts[0].Spec)
	}
	if ts[1].Spec.Hardware.GPU.Model != "MI325X" || *ts[1].Spec.Type != aimv1.AIMProfileTypePreview {
		t.Errorf("second custom template %+v", ts[1].Spec)
	}
}

func TestTemplatesComponent(t *testing.T) {
	r, n, f, p := aimv1.AIMStatusReady, aimv1.AIMStatusNotAvailable, aimv1.AIMStatusFailed, aimv1.AIMStatusProgressing
	cases := []struct {
		expected int
		states   []aimv1.AIMStatus
		state    aimv1.AIMStatus
		reason   string
	}{
		{0, nil, "", "NoTemplatesExpected"},
		{2, []aimv1.AIMStatus{r}, p, "CreatingTemplates"},
		{2, []aimv1.AIMStatus{r, r}, "", "AllTemplatesReady"},
		{2, []aimv1.AIMStatus{r, n}, "", "SomeTemplatesReady"},
		{2, []aimv1.AIMStatus{n, n}, n, "NoTemplatesAvailable"},
		{2, []aimv1.AIMStatus{f, f}, f, "AllTemplatesFailed"},
		{2, []aimv1.AIMStatus{r, f}, aimv1.AIMStatusDegraded, "SomeTemplatesDegraded"},
		{2, []aimv1.AIMStatus{p, n}, p, "TemplatesProgressing"},
	}
	for _, tc := range cases {
		var ts []TemplateState
		for i, s := range tc.states {
			ts = append(ts, TemplateState{Name: string(rune('a' + i)), Status: s})
		}
		c := TemplatesComponent(tc.expected, ts)
		if c.State != tc.state || c.Reason != tc.reason {
			t.Errorf("%d expected, %v: got %s/%s, want %s/%s", tc.expected, tc.states, c.State, c.Reason, tc.state, tc.reason)
		}
	}
}
