package template

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// TestModelAndConfigChangesRequeueTheirTemplates: a model or runtime config re-queues the templates that use
// it: a namespaced one those of its namespace, a cluster one cluster templates and namespaced ones anywhere.
func TestModelAndConfigChangesRequeueTheirTemplates(t *testing.T) {
	namespaced := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{dependencyIndex: dependencies})
	cluster := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{dependencyIndex: dependencies})
	common := func(model, config string) aimv1.AIMServiceTemplateSpecCommon {
		return aimv1.AIMServiceTemplateSpecCommon{ModelName: model, RuntimeConfigName: config}
	}
	for _, tpl := range []*aimv1.AIMServiceTemplate{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "qwen-a"}, Spec: aimv1.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: common("qwen", "")}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "qwen-b"}, Spec: aimv1.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: common("qwen", "team")}},
	} {
		if err := namespaced.Add(tpl); err != nil {
			t.Fatal(err)
		}
	}
	for _, tpl := range []*aimv1.AIMClusterServiceTemplate{
		{ObjectMeta: metav1.ObjectMeta{Name: "qwen-cl"}, Spec: aimv1.AIMClusterServiceTemplateSpec{AIMServiceTemplateSpecCommon: common("qwen", "default")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "llama-cl"}, Spec: aimv1.AIMClusterServiceTemplateSpec{AIMServiceTemplateSpecCommon: common("llama", "team")}},
	} {
		if err := cluster.Add(tpl); err != nil {
			t.Fatal(err)
		}
	}
	var queued []string
	h := dependentsHandler(namespaced, cluster, func(k cache.ObjectName) { queued = append(queued, "ns:"+k.String()) }, func(k cache.ObjectName) { queued = append(queued, "cl:"+k.String()) })
	for _, c := range []struct {
		name string
		obj  any
		want []string
	}{
		{"a namespaced model", &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "qwen"}}, []string{"ns:a/qwen-a"}},
		{"a cluster model", &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen"}}, []string{"cl:qwen-cl", "ns:a/qwen-a", "ns:b/qwen-b"}},
		{"a namespaced config", &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "team"}}, []string{"ns:b/qwen-b"}},
		{"the default cluster config", &aimv1.AIMClusterRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, []string{"cl:qwen-cl", "ns:a/qwen-a"}},
		{"a model nobody uses", &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "mistral"}}, nil},
		{"a tombstone", cache.DeletedFinalStateUnknown{Key: "llama", Obj: &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "llama"}}}, []string{"cl:llama-cl"}},
	} {
		queued = nil
		h.OnDelete(c.obj)
		slices.Sort(queued)
		if !slices.Equal(queued, c.want) {
			t.Errorf("%s: queued %q, want %q", c.name, queued, c.want)
		}
	}
}
