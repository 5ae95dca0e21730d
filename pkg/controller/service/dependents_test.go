package service

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// TestDependentsAreTargeted: a change of a template, model, runtime config or template cache re-queues the
// services it can matter to, and no other.
func TestDependentsAreTargeted(t *testing.T) {
	services := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{dependencyIndex: dependencies})
	add := func(s *aimv1.AIMService) {
		if err := services.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	svc := func(ns, name string, mutate func(*aimv1.AIMService)) *aimv1.AIMService {
		s := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		mutate(s)
		return s
	}
	// byName runs qwen chosen automatically; pinned names its template; byImage has an image; other runs
	// llama under its own runtime config; custom has a model it made for itself.
	add(svc("a", "by-name", func(s *aimv1.AIMService) {
		s.Spec.Model.Name = ptr.To("qwen")
		s.Status.ResolvedModel = &aimv1.AIMResolvedReference{Name: "qwen"}
		s.Status.ResolvedTemplate = &aimv1.AIMResolvedReference{Name: "qwen-mi300x"}
	}))
	add(svc("b", "pinned", func(s *aimv1.AIMService) {
		s.Spec.Model.Name = ptr.To("qwen")
		s.Spec.Template = &aimv1.AIMServiceTemplateSelector{Name: "qwen-mi325x"}
	}))
	add(svc("a", "by-image", func(s *aimv1.AIMService) { s.Spec.Model.Image = ptr.To("registry.example/aim/qwen:1.0") }))
	add(svc("a", "other", func(s *aimv1.AIMService) {
		s.Spec.Model.Name = ptr.To("llama")
		s.Spec.RuntimeConfigName = "gpu-team"
	}))
	add(svc("a", "custom", func(s *aimv1.AIMService) {
		s.Spec.Model.Custom = &aimv1.AIMServiceCustomModel{BaseImage: "registry.example/aim/base:1.0"}
		s.Spec.RuntimeConfigName = "gpu-team"
	}))

	var queued []string
	ctl := &Controller{}
	h := ctl.dependentsHandler(services, func(key cache.ObjectName) { queued = append(queued, key.String()) })
	for _, c := range []struct {
		name     string
		old, obj any
		want     []string
	}{
		{"a cluster template of qwen: the services that chose or could choose it", nil,
			&aimv1.AIMClusterServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "qwen-mi300x"}, Spec: aimv1.AIMClusterServiceTemplateSpec{
				AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{ModelName: "qwen"}}},
			[]string{"a/by-name", "b/pinned"}},
		{"a namespaced template: its namespace only", nil,
			&aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "qwen-mi325x"}, Spec: aimv1.AIMServiceTemplateSpec{
				AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{ModelName: "qwen"}}},
			[]string{"b/pinned"}},
		{"a template moved from llama to mistral: llama's services hear of it",
			&aimv1.AIMClusterServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Spec: aimv1.AIMClusterServiceTemplateSpec{
				AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{ModelName: "llama"}}},
			&aimv1.AIMClusterServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Spec: aimv1.AIMClusterServiceTemplateSpec{
				AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{ModelName: "mistral"}}},
			[]string{"a/other"}},
		{"a cluster model with the image some service asks for", nil,
			&aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen-by-image"}, Spec: aimv1.AIMModelSpec{Image: "registry.example/aim/qwen:1.0"}},
			[]string{"a/by-image"}},
		{"the model a service made for itself", nil,
			&aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "custom-x", Labels: map[string]string{aimv1.LabelService: "custom"}},
				Spec: aimv1.AIMModelSpec{Image: "registry.example/aim/base:1.0"}},
			[]string{"a/custom"}},
		{"a named runtime config: the services naming it", nil,
			&aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "gpu-team"}},
			[]string{"a/custom", "a/other"}},
		{"the default cluster runtime config: the services naming none", nil,
			&aimv1.AIMClusterRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
			[]string{"a/by-image", "a/by-name", "b/pinned"}},
		{"a template cache of a template: the services running it", nil,
			&aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "c"}, Spec: aimv1.AIMTemplateCacheSpec{TemplateName: "qwen-mi300x"}},
			[]string{"a/by-name"}},
		{"a cluster model nobody uses", nil,
			&aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "unused"}, Spec: aimv1.AIMModelSpec{Image: "registry.example/aim/unused:1.0"}},
			nil},
	} {
		queued = nil
		if c.old != nil {
			h.OnUpdate(c.old, c.obj)
		} else {
			h.OnAdd(c.obj, false)
		}
		slices.Sort(queued)
		if !slices.Equal(queued, c.want) {
			t.Errorf("%s: queued %q, want %q", c.name, queued, c.want)
		}
	}
	// A deletion seen late (a tombstone) re-queues as well.
	queued = nil
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "qwen", Obj: &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen"}}})
	slices.Sort(queued)
	if want := []string{"a/by-name", "b/pinned"}; !slices.Equal(queued, want) {
		t.Errorf("tombstone: queued %q, want %q", queued, want)
	}
}
