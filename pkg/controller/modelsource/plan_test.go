package modelsource

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

func img(repo, tag string) Image { return Image{Registry: "r.example", Repository: repo, Tag: tag} }

func refs(images []Image) []string {
	var out []string
	for _, i := range images {
		out = append(out, i.Repository+":"+i.Tag)
	}
	return out
}

func TestSort(t *testing.T) {
	images := []Image{img("b", "1.0.0"), img("a", "latest"), img("a", "0.9.0"), img("a", "v0.10.0"), img("a", "dev"),
		img("a", "0.9"), {Registry: "a.example", Repository: "z", Tag: "1"}}
	Sort(images)
	// 0.9 is not semver, as the versions filter reads tags: it sorts by name after the versions.
	want := []string{"z:1", "a:v0.10.0", "a:0.9.0", "a:0.9", "a:dev", "a:latest", "b:1.0.0"}
	if got := refs(images); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestPlanModels(t *testing.T) {
	images := []Image{img("aim/qwen", "0.8.4"), img("aim/qwen", "0.9.0"), img("aim/llama", "1.0.0"), img("aim/qwen", "latest")}
	for _, tc := range []struct {
		name     string
		existing map[string]bool
		max      int
		want     []string
		limitHit bool
	}{
		{"all fit", nil, 100, []string{"aim/llama:1.0.0", "aim/qwen:0.9.0", "aim/qwen:0.8.4", "aim/qwen:latest"}, false},
		{"cut at maxModels, in order", nil, 2, []string{"aim/llama:1.0.0", "aim/qwen:0.9.0"}, true},
		{"exactly maxModels", nil, 4, []string{"aim/llama:1.0.0", "aim/qwen:0.9.0", "aim/qwen:0.8.4", "aim/qwen:latest"}, false},
		{"existing owned models are skipped and count", map[string]bool{ModelName(img("aim/llama", "1.0.0")): true}, 2,
			[]string{"aim/qwen:0.9.0"}, true},
		{"owned models no longer selected count too", map[string]bool{"gone-1": true, "gone-2": true}, 2, nil, true},
		{"a name taken by a model of someone else is left alone and does not count",
			map[string]bool{ModelName(img("aim/llama", "1.0.0")): false}, 2, []string{"aim/qwen:0.9.0", "aim/qwen:0.8.4"}, true},
		{"everything exists: nothing to do", map[string]bool{
			ModelName(images[0]): true, ModelName(images[1]): true, ModelName(images[2]): true, ModelName(images[3]): true}, 4, nil, false},
	} {
		p := PlanModels(images, tc.existing, tc.max)
		if got := refs(p.Create); !slices.Equal(got, tc.want) || p.LimitReached != tc.limitHit {
			t.Errorf("%s: create %v limit %v; want %v limit %v", tc.name, got, p.LimitReached, tc.want, tc.limitHit)
		}
	}
	if refs(images)[0] != "aim/qwen:0.8.4" {
		t.Error("PlanModels reordered its input")
	}
}

func TestModelName(t *testing.T) {
	a := ModelName(img("aim/qwen", "0.8.5"))
	if !strings.HasPrefix(a, "aim-qwen-0-8-5-") || len(a) != len("aim-qwen-0-8-5-")+6 {
		t.Errorf("name %q", a)
	}
	if a != ModelName(img("aim/qwen", "0.8.5")) {
		t.Error("names are not stable")
	}
	// Images that sanitize alike, or differ only in the registry, get different names.
	for _, other := range []Image{img("aim/qwen", "0-8-5"), img("aim-qwen", "0.8.5"), {Registry: "other.example", Repository: "aim/qwen", Tag: "0.8.5"}} {
		if ModelName(other) == a {
			t.Errorf("%v has the name of aim/qwen:0.8.5", other)
		}
	}
	long := ModelName(img(strings.Repeat("r", 80), strings.Repeat("t", 80)))
	if len(long) > 63 {
		t.Errorf("long name %d chars", len(long))
	}
	// aim-engine's names (expected values computed with its algorithm): the longer part is shortened first.
	for _, tc := range []struct {
		img  Image
		want string
	}{
		{Image{Registry: "docker.io", Repository: "amdenterpriseai/aim-qwen-qwen3-32b", Tag: "0.8.5"}, "amdenterpriseai-aim-qwen-qwen3-32b-0-8-5-72f726"},
		{Image{Registry: "docker.io", Repository: "amdenterpriseai/aim-meta-llama-llama-3-3-70b-instruct-fp8-kv", Tag: "0.8.5-preview"},
			"amdenterpriseai-aim-meta-llama-llama-3-3-7-0-8-5-preview-46bb49"},
	} {
		if got := ModelName(tc.img); got != tc.want {
			t.Errorf("ModelName(%+v) = %q, want %q", tc.img, got, tc.want)
		}
	}
}

// TestReference: a model's image is written as aim-engine writes it, without Docker Hub's registry name.
func TestReference(t *testing.T) {
	for img, want := range map[Image]string{
		{Registry: "docker.io", Repository: "amdenterpriseai/aim-qwen-qwen3-32b", Tag: "0.8.5"}: "amdenterpriseai/aim-qwen-qwen3-32b:0.8.5",
		{Registry: "ghcr.io", Repository: "silogen/aim-llama", Tag: "1.0"}:                      "ghcr.io/silogen/aim-llama:1.0",
	} {
		if got := img.Reference(); got != want {
			t.Errorf("Reference(%+v) = %q, want %q", img, got, want)
		}
	}
}

func TestNewModel(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("s", 70), UID: "uid-1",
		Labels: map[string]string{"team": "a", "other": "x"}},
		Spec: aimv1.AIMClusterModelSourceSpec{ImagePullSecrets: []corev1.LocalObjectReference{{Name: "regcred"}}}}
	// The cluster runtime config default propagates the source's labels it matches, as aim-engine's pipeline does.
	rc := runtimeconfig.Resolved{Spec: aimv1.AIMRuntimeConfigSpec{LabelPropagation: &aimv1.AIMLabelPropagationConfig{Enabled: ptr.To(true), Match: []string{"team"}}}}
	m := NewModel(src, rc, img("aim/qwen", "0.8.5"))
	if m.Labels["team"] != "a" || m.Labels["other"] != "" {
		t.Errorf("propagated labels %v: want team only", m.Labels)
	}
	if m.Name != ModelName(img("aim/qwen", "0.8.5")) || m.Spec.Image != "r.example/aim/qwen:0.8.5" || m.Spec.ImagePullSecrets[0].Name != "regcred" {
		t.Errorf("model %s spec %+v", m.Name, m.Spec)
	}
	if m.Kind != "AIMClusterModel" || m.APIVersion != "aim.eai.amd.com/v1alpha1" {
		t.Errorf("type meta %+v (server-side apply needs it)", m.TypeMeta)
	}
	l := m.Labels
	if v := l["aim.eai.amd.com/model-source"]; len(v) > 63 || !strings.HasPrefix(v, "sssss") {
		t.Errorf("source label %q must be a valid label value", v)
	}
	if l["aim.eai.amd.com/origin"] != "auto-generated" || l["app.kubernetes.io/managed-by"] != aimv1.ManagedByValue {
		t.Errorf("labels %v", l)
	}
	a := m.Annotations
	if a["aim.eai.amd.com/source-registry"] != "r.example" || a["aim.eai.amd.com/source-repository"] != "aim/qwen" || a["aim.eai.amd.com/source-tag"] != "0.8.5" {
		t.Errorf("annotations %v", a)
	}
	if o := m.OwnerReferences; len(o) != 1 || o[0].UID != "uid-1" || o[0].Kind != "AIMClusterModelSource" || !ptr.Deref(o[0].Controller, false) {
		t.Errorf("owner %+v", o)
	}
}

func TestMaxModelsDefault(t *testing.T) {
	if got := maxModels(aimv1.AIMClusterModelSourceSpec{}); got != 100 {
		t.Errorf("default %d", got)
	}
	if got := maxModels(aimv1.AIMClusterModelSourceSpec{MaxModels: ptr.To[int32](2)}); got != 2 {
		t.Errorf("set %d", got)
	}
}
