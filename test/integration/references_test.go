package integration

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
)

// TestWarnsOfMissingReferences (F16): an object that names a model, template or runtime config that does not
// exist is stored, as aim-engine stores it, and the response warns of each such field; a name that exists (in
// the namespace, or the cluster's kind of the name) and the default runtime config are not warned of, nor is
// an update that leaves the references as they were.
func TestWarnsOfMissingReferences(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	cfg, seen := warningConfig()
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	aim := client.AimV1alpha1()
	model := &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "refs-present"},
		Spec: aimv1.AIMModelSpec{Image: "registry.example/aim/present:1"}}
	if _, err := aim.AIMClusterModels().Create(c, model, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = aim.AIMClusterModels().Delete(c, model.Name, metav1.DeleteOptions{}) })

	missing := newService(ns, "missing")
	missing.Spec.Model.Name = ptr.To("refs-nowhere")
	missing.Spec.Template = &aimv1.AIMServiceTemplateSelector{Name: "tpl-nowhere"}
	missing.Spec.RuntimeConfigName = "rc-nowhere"
	seen.take()
	if _, err := aim.AIMServices(ns).Create(c, missing, metav1.CreateOptions{}); err != nil {
		t.Fatalf("an object with missing references is refused: %v", err)
	}
	want := []string{
		`spec.model.name: neither AIMModel "refs-nowhere" in namespace "` + ns + `" nor AIMClusterModel "refs-nowhere" exists; the object waits for it and says so in its status`,
		`spec.template.name: neither AIMServiceTemplate "tpl-nowhere" in namespace "` + ns + `" nor AIMClusterServiceTemplate "tpl-nowhere" exists; the object waits for it and says so in its status`,
		`spec.runtimeConfigName: neither AIMRuntimeConfig "rc-nowhere" in namespace "` + ns + `" nor AIMClusterRuntimeConfig "rc-nowhere" exists; the object waits for it and says so in its status`,
	}
	if diff := cmp.Diff(want, references(seen.take())); diff != "" {
		t.Errorf("warnings of the create (-want +got):\n%s", diff)
	}

	// A label changes, the references stay: nothing to say again.
	if _, err := aim.AIMServices(ns).Patch(c, "missing", types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := references(seen.take()); len(got) > 0 {
		t.Errorf("an update that changes no reference warns: %q", got)
	}

	present := newService(ns, "present")
	present.Spec.Model.Name = ptr.To(model.Name)
	present.Spec.RuntimeConfigName = "default"
	if _, err := aim.AIMServices(ns).Create(c, present, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := references(seen.take()); len(got) > 0 {
		t.Errorf("references to a cluster model and to the default runtime config warn: %q", got)
	}

	// A cache's templateScope decides which kind is looked for.
	cache := &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "scoped"},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: "tpl-nowhere", TemplateScope: aimv1.AIMTemplateScopeCluster}}
	if _, err := aim.AIMTemplateCaches(ns).Create(c, cache, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want = []string{`spec.templateName: no AIMClusterServiceTemplate "tpl-nowhere" exists; the object waits for it and says so in its status`}
	if diff := cmp.Diff(want, references(seen.take())); diff != "" {
		t.Errorf("warnings of the cache (-want +got):\n%s", diff)
	}
}

// references are the warnings about references among ws.
func references(ws []string) []string {
	var out []string
	for _, w := range ws {
		if strings.Contains(w, " exists; the object waits for it") {
			out = append(out, w)
		}
	}
	return out
}
