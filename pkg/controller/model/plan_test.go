package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
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
		a.Spec.Hardware.GPU.Model != "MI300X" || a.Spec.Hardware.GPU.Requests != 1 || a.Spec.RuntimeConfigName != "" ||
		a.Spec.ServiceAccountName != "sa" || a.Spec.ImagePullSecrets[0].Name != "regcred" {
		t.Errorf("template spec %+v", a.Spec)
	}
	if a.Name != "repo-qwen-1-1x-mi300x-lat-fp8-44f0" || len(a.Name) > 63 || a.Name == ts[1].Name {
		t.Errorf("names %q %q", a.Name, ts[1].Name)
	}
	// The model's runtimeConfigName stays its own: aim-engine's templates resolve their default one.
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

	// Two deployments the name cannot tell apart (it leaves profileId out) are one template, with the last one's
	// spec as aim-engine's applies in turn leave it: the model does not wait for a second.
	twins := &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{RecommendedDeployments: []aimv1.RecommendedDeployment{
		{GPUModel: "MI300X", GPUCount: 1, Precision: "fp8", Metric: "latency", ProfileID: "a"},
		{GPUModel: "MI355X", GPUCount: 8, Precision: "fp4", Metric: "throughput"},
		{GPUModel: "MI300X", GPUCount: 1, Precision: "fp8", Metric: "latency", ProfileID: "b"},
	}}}
	ts = Desired("qwen3-32b", spec, twins)
	if len(ts) != 2 || ts[0].Spec.ProfileID != "b" || ts[1].Spec.Hardware.GPU.Model != "MI355X" {
		t.Errorf("deployments naming one template: %+v", ts)
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
	// Users select custom templates by their alias.
	for i, alias := range []string{"fast", "big"} {
		if got := ts[i].Labels[LabelTemplateAlias]; got != alias {
			t.Errorf("custom template %d: %s = %q, want %q", i, LabelTemplateAlias, got, alias)
		}
	}
	// custom.hardware.cpu becomes the resources of the template (aim-engine's cpuRequirementsToResources),
	// which the InferenceService reads.
	spec.Custom.Hardware = &aimv1.AIMHardwareRequirements{CPU: &aimv1.AIMCpuRequirements{Requests: aimv1.MustParseQuantity("8"), Limits: ptr.To(aimv1.MustParseQuantity("16"))}}
	spec.CustomTemplates = nil
	ts = Desired("mine", spec, nil)
	wantRes := &aimv1.ResourceRequirements{Requests: aimv1.ResourceList{corev1.ResourceCPU: aimv1.MustParseQuantity("8")},
		Limits: aimv1.ResourceList{corev1.ResourceCPU: aimv1.MustParseQuantity("16")}}
	if diff := cmp.Diff(wantRes, ts[0].Spec.Resources); diff != "" {
		t.Errorf("resources of a CPU template (-want +got):\n%s", diff)
	}
	// The template's quantities are written canonically, as aim-engine's controller writes them (its chainsaw test
	// custom-models/cpu-only: limits 2000m reads "2"); the model keeps its own spelling.
	spec.Custom.Hardware = &aimv1.AIMHardwareRequirements{CPU: &aimv1.AIMCpuRequirements{Requests: aimv1.MustParseQuantity("500m"),
		Limits: ptr.To(aimv1.MustParseQuantity("2000m"))}}
	spec.ModelSources[0].WeightsSize = ptr.To(aimv1.MustParseQuantity("16384Mi"))
	ts = Desired("mine", spec, nil)
	cpu, res := ts[0].Spec.Hardware.CPU, ts[0].Spec.Resources
	if cpu.Requests.String() != "500m" || cpu.Limits.String() != "2" || res.Limits[corev1.ResourceCPU].String() != "2" ||
		ts[0].Spec.ModelSources[0].WeightsSize.String() != "16Gi" {
		t.Errorf("canonical quantities: cpu %s/%s, resources %v, size %s", cpu.Requests, cpu.Limits, res, ts[0].Spec.ModelSources[0].WeightsSize)
	}
	if spec.Custom.Hardware.CPU.Limits.String() != "2000m" || spec.ModelSources[0].WeightsSize.String() != "16384Mi" {
		t.Error("the model's own quantities were rewritten")
	}
	spec.ModelSources[0].WeightsSize = nil
	spec.Custom.Hardware = hw

	// A template that sets only gpu.requests keeps the model's gpu.model (merged field by field).
	spec.CustomTemplates = []aimv1.AIMCustomTemplate{{Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 8}}}}
	ts = Desired("mine", spec, nil)
	want := &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 8, Model: "MI300X"}}
	if diff := cmp.Diff(want, ts[0].Spec.Hardware); diff != "" || ts[0].Labels[LabelTemplateAlias] != "" {
		t.Errorf("merged hardware (-want +got):\n%s; labels %v", diff, ts[0].Labels)
	}
}

// TestMergeHardware: aim-engine's MergeHardware, field by field; the model's hardware is not changed.
func TestMergeHardware(t *testing.T) {
	q := aimv1.MustParseQuantity
	model := &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI300X", ResourceName: "amd.com/gpu"},
		CPU: &aimv1.AIMCpuRequirements{Requests: q("4"), Limits: ptr.To(q("8"))}}
	for _, tc := range []struct {
		name            string
		model, template *aimv1.AIMHardwareRequirements
		want            *aimv1.AIMHardwareRequirements
	}{
		{"no model hardware", nil, &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2}},
			&aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2}}},
		{"no template hardware", model, nil, model},
		{"GPU requests only", model, &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 4}},
			&aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 4, Model: "MI300X", ResourceName: "amd.com/gpu"}, CPU: model.CPU}},
		{"GPU model and CPU limit", model, &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Model: "MI325X"},
			CPU: &aimv1.AIMCpuRequirements{Limits: ptr.To(q("16"))}},
			&aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI325X", ResourceName: "amd.com/gpu"},
				CPU: &aimv1.AIMCpuRequirements{Requests: q("4"), Limits: ptr.To(q("16"))}}},
		{"CPU only keeps the GPU", &aimv1.AIMHardwareRequirements{GPU: model.GPU}, &aimv1.AIMHardwareRequirements{CPU: &aimv1.AIMCpuRequirements{Requests: q("2")}},
			&aimv1.AIMHardwareRequirements{GPU: model.GPU, CPU: &aimv1.AIMCpuRequirements{Requests: q("2")}}},
		// A GPU by minVram replaces the model's GPU by model, and the other way round: a template with both is refused.
		{"minVram over a model", model, &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{MinVRAM: ptr.To(q("64Gi"))}},
			&aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, MinVRAM: ptr.To(q("64Gi")), ResourceName: "amd.com/gpu"}, CPU: model.CPU}},
		{"a model over minVram", &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, MinVRAM: ptr.To(q("64Gi"))}},
			&aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Model: "MI325X"}},
			&aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI325X"}}},
	} {
		before := tc.model.DeepCopy()
		if diff := cmp.Diff(tc.want, MergeHardware(tc.model, tc.template)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(before, tc.model); diff != "" {
			t.Errorf("%s changed the model's hardware:\n%s", tc.name, diff)
		}
	}
}

// TestTemplateNamesAreAimEngines: templates are named as aim-engine names them (expected values computed with
// its algorithm), so that a migrated model keeps its templates.
func TestTemplateNamesAreAimEngines(t *testing.T) {
	const image = "docker.io/amdenterpriseai/aim-qwen-qwen3-32b:0.8.5"
	recommended := func(model, image string, d aimv1.RecommendedDeployment) string {
		ts := Desired(model, aimv1.AIMModelSpec{Image: image},
			&aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{RecommendedDeployments: []aimv1.RecommendedDeployment{d}}})
		return ts[0].Name
	}
	sources := []aimv1.AIMModelSource{{ModelID: "Qwen/Qwen3-8B", SourceURI: "hf://Qwen/Qwen3-8B"}}
	custom := Desired("qwen3-8b-custom", aimv1.AIMModelSpec{Image: "base:1", ModelSources: sources, CustomTemplates: []aimv1.AIMCustomTemplate{
		{Name: "fast", Profile: &aimv1.AIMCustomTemplateProfile{Metric: ptr.To(aimv1.AIMMetricLatency), Precision: ptr.To(aimv1.AIMPrecision("fp16"))},
			Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI300X"}}},
		{Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2, Model: "MI325X"}}},
	}}, nil)
	for _, tc := range []struct{ what, got, want string }{
		// The image reference, shortened to fit, and the deployment; a 4-digit hash.
		{"recommended", recommended("aim-qwen-qwen3-32b-0-8-5-1311475f", image,
			aimv1.RecommendedDeployment{GPUModel: "MI300X", GPUCount: 1, Metric: "latency", Precision: "fp8"}),
			"docker-io-amdenterpriseai-aim-qwen-qwen3-1x-mi300x-lat-fp8-dfdb"},
		{"recommended, 8 GPUs", recommended("aim-qwen-qwen3-32b-0-8-5-1311475f", image,
			aimv1.RecommendedDeployment{GPUModel: "MI300X", GPUCount: 8, Metric: "throughput", Precision: "fp16"}),
			"docker-io-amdenterpriseai-aim-qwen-qwen-8x-mi300x-thr-fp16-8892"},
		{"recommended, cluster model of a model source", recommended("amdenterpriseai-aim-qwen-qwen3-32b-0-8-5-72f726", "amdenterpriseai/aim-qwen-qwen3-32b:0.8.5",
			aimv1.RecommendedDeployment{GPUModel: "MI300X", GPUCount: 1, Metric: "latency", Precision: "fp8"}),
			"amdenterpriseai-aim-qwen-qwen3-32b-0-8-5-1x-mi300x-lat-fp8-0cc7"},
		{"recommended, nothing set", recommended("qwen3-32b", "qwen3:1", aimv1.RecommendedDeployment{}), "qwen3-1-part-2a11"},
		{"auto custom", Desired("qwen3-8b-custom", aimv1.AIMModelSpec{Image: "base:1", ModelSources: sources}, nil)[0].Name,
			"qwen3-8b-custom-custom-294165b5"},
		{"customTemplates[0]", custom[0].Name, "qwen3-8b-custom-custom-fast-fp16-mi300x-2c8236e2"},
		{"customTemplates[1]", custom[1].Name, "qwen3-8b-custom-custom-mi325x-c035153f"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.what, tc.got, tc.want)
		}
	}
}

func TestTemplatesComponent(t *testing.T) {
	r, n, f, p := aimv1.AIMStatusReady, aimv1.AIMStatusNotAvailable, aimv1.AIMStatusFailed, aimv1.AIMStatusProgressing
	d := aimv1.AIMStatusDegraded
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
		{2, []aimv1.AIMStatus{d, d}, f, "AllTemplatesFailed"},
		{2, []aimv1.AIMStatus{f, d}, f, "AllTemplatesFailed"},
		{2, []aimv1.AIMStatus{d, p}, d, "SomeTemplatesDegraded"},
		{2, []aimv1.AIMStatus{r, f}, d, "SomeTemplatesDegraded"},
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

// TestTemplatesKnown: a model plans templates once it knows which, and not while its runtime config is
// missing (its existing templates are then left alone). An image's custom templates add to its metadata's, as in
// aim-engine: without metadata (labels not read yet, or unparsable after a spec change) none is planned, so the
// templates of the earlier metadata are not deleted.
func TestTemplatesKnown(t *testing.T) {
	md := &aimv1.ImageMetadata{}
	custom := aimv1.AIMModelSpec{ModelSources: []aimv1.AIMModelSource{{ModelID: "org/m"}}}
	missing := errors.New("AIMRuntimeConfig gold not found")
	for _, tc := range []struct {
		name     string
		spec     aimv1.AIMModelSpec
		metadata *aimv1.ImageMetadata
		rcErr    error
		want     bool
	}{
		{"metadata read", aimv1.AIMModelSpec{}, md, nil, true},
		{"metadata not read yet", aimv1.AIMModelSpec{}, nil, nil, false},
		{"custom templates of an image without metadata", aimv1.AIMModelSpec{Image: "org/aim:1",
			CustomTemplates: []aimv1.AIMCustomTemplate{{Name: "mine"}}}, nil, nil, false},
		{"custom model", custom, nil, nil, true},
		// aim-engine's ExpectsTemplates: false, whatever the metadata, so ServiceTemplatesReady is NoTemplatesExpected.
		{"no templates created, metadata unknown", aimv1.AIMModelSpec{Image: "org/aim:1",
			Discovery: &aimv1.AIMModelDiscoveryConfig{ExtractMetadata: ptr.To(false), CreateServiceTemplates: ptr.To(false)}}, nil, nil, true},
		{"runtime config missing", custom, md, missing, false},
	} {
		if got := templatesKnown(tc.spec, tc.metadata, tc.rcErr); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAwaitingMetadata: a model whose templates wait for the image's labels says so in (Cluster)ServiceTemplatesReady,
// as aim-engine does; not when no read will come (extraction off, R9.12) or while the runtime config is missing.
func TestAwaitingMetadata(t *testing.T) {
	image := aimv1.AIMModelSpec{Image: "org/aim:1"}
	if c, ok := awaitingMetadata(image, nil); !ok || c.State != aimv1.AIMStatusProgressing || c.Reason != ReasonAwaitingMetadata ||
		c.Message != "Waiting for the model to fetch metadata" {
		t.Errorf("labels not read yet: %+v %v", c, ok)
	}
	if c := templatesOfKind(state.Component{Name: ComponentServiceTemplates}, true); c.Name != ComponentClusterServiceTemplates {
		t.Errorf("a cluster model's component %q", c.Name)
	}
	off := image
	off.Discovery = &aimv1.AIMModelDiscoveryConfig{ExtractMetadata: ptr.To(false)}
	if _, ok := awaitingMetadata(off, nil); ok {
		t.Error("extraction off: the model would wait for good")
	}
	if _, ok := awaitingMetadata(image, errors.New("runtime config gold not found")); ok {
		t.Error("runtime config missing: nothing is planned")
	}
}

// TestTemplatesOfKind: while its templates are prepared a cluster model is Pending and a namespaced one
// Progressing, as aim-engine reports them; each names the component after its kind of templates.
func TestTemplatesOfKind(t *testing.T) {
	preparing := TemplatesComponent(2, []TemplateState{{Name: "a", Status: aimv1.AIMStatusProgressing}, {Name: "b", Status: aimv1.AIMStatusProgressing}})
	for _, tc := range []struct {
		cluster bool
		want    string
	}{{true, "ClusterServiceTemplates Pending"}, {false, "ServiceTemplates Progressing"}} {
		c := templatesOfKind(preparing, tc.cluster)
		out := state.Derive(state.Input{Components: []state.Component{c}, Generation: 1})
		if got := c.Name + " " + string(out.Status); got != tc.want {
			t.Errorf("cluster %v: %s, want %s", tc.cluster, got, tc.want)
		}
	}
	// A failed apply of a cluster model's templates is the controller's own error, not an upstream's.
	failed := templatesOfKind(state.Component{Dependency: state.DependencyDownstream, Errors: []error{errors.New("apply refused")}}, true)
	if failed.Dependency != state.DependencyDownstream {
		t.Errorf("apply error dependency %s", failed.Dependency)
	}
}

// TestTemplateLabelsOfALongModelName: a model name over 63 characters (names may have 253) labels its templates
// with a valid value, the same one its lookups select by; a short name is used as it is, as aim-engine does.
func TestTemplateLabelsOfALongModelName(t *testing.T) {
	long := strings.Repeat("qwen3-", 33) + "32b"
	for _, name := range []string{long, "qwen3-32b"} {
		model := &metav1.ObjectMeta{Name: name, Namespace: "team", Labels: map[string]string{"aim.eai.amd.com/team": "a"}}
		meta := metav1.ObjectMeta{Labels: TemplateLabels(childlabels.Model, model, runtimeconfig.Resolved{}, nil)}
		if meta.Labels["aim.eai.amd.com/team"] != "a" || meta.Labels["aim.eai.amd.com/model.name"] != naming.LabelValue(name) ||
			meta.Labels["app.kubernetes.io/managed-by"] != "aim-apiserver" || meta.Labels[aimv1.LabelOrigin] != aimv1.OriginAutoGenerated {
			t.Errorf("%s: labels %v", name[:10], meta.Labels)
		}
		for k, v := range meta.Labels {
			if errs := utilvalidation.IsValidLabelValue(v); len(errs) != 0 {
				t.Errorf("%s: label %s=%q: %v", name[:10], k, v, errs)
			}
		}
		if got, want := meta.Labels[aimv1.LabelModel], naming.LabelValue(name); got != want {
			t.Errorf("%s: model label %q, lookups select %q", name[:10], got, want)
		}
		if len(name) <= 63 && meta.Labels[aimv1.LabelModel] != name {
			t.Errorf("short name labelled %q", meta.Labels[aimv1.LabelModel])
		}
	}
}
