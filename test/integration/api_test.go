package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
	aimapply "github.com/aim-apiserver/aim-apiserver/pkg/generated/applyconfiguration/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
)

var wantResources = map[string]struct {
	kind       string
	shortName  string
	namespaced bool
}{
	"aimservices":                {"AIMService", "aimsvc", true},
	"aimservicetemplates":        {"AIMServiceTemplate", "aimtpl", true},
	"aimclusterservicetemplates": {"AIMClusterServiceTemplate", "aimcltpl", false},
	"aimmodels":                  {"AIMModel", "aimmdl", true},
	"aimclustermodels":           {"AIMClusterModel", "aimclmdl", false},
	"aimruntimeconfigs":          {"AIMRuntimeConfig", "aimrc", true},
	"aimclusterruntimeconfigs":   {"AIMClusterRuntimeConfig", "aimclrc", false},
	"aimtemplatecaches":          {"AIMTemplateCache", "aimtc", true},
	"aimartifacts":               {"AIMArtifact", "aimart", true},
	"aimclustermodelsources":     {"AIMClusterModelSource", "aimclsrc", false},
}

func TestDiscovery(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(shared.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := dc.ServerResourcesForGroupVersion(aimv1.SchemeGroupVersion.String())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range list.APIResources {
		if strings.HasSuffix(r.Name, "/status") {
			seen[r.Name] = true
			continue
		}
		want, ok := wantResources[r.Name]
		if !ok {
			t.Errorf("unexpected resource %s", r.Name)
			continue
		}
		seen[r.Name] = true
		if r.Kind != want.kind || r.Namespaced != want.namespaced || !slices.Equal(r.ShortNames, []string{want.shortName}) {
			t.Errorf("%s: kind %s namespaced %v short names %v; want %s %v [%s]", r.Name, r.Kind, r.Namespaced, r.ShortNames, want.kind, want.namespaced, want.shortName)
		}
		if !slices.Equal(r.Categories, []string{"aim", "all"}) {
			t.Errorf("%s: categories %v, want [aim all]", r.Name, r.Categories)
		}
	}
	for name := range wantResources {
		if !seen[name] || !seen[name+"/status"] {
			t.Errorf("%s or its status subresource is not served", name)
		}
	}
}

// samples decodes artifacts/samples into unstructured objects.
func samples(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "artifacts", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(u.Object) > 0 {
				objs = append(objs, u)
			}
		}
	}
	return objs
}

func resourceFor(t *testing.T, kind string) (schema.GroupVersionResource, bool) {
	for name, r := range wantResources {
		if r.kind == kind {
			return aimv1.SchemeGroupVersion.WithResource(name), r.namespaced
		}
	}
	t.Fatalf("no resource for kind %s", kind)
	return schema.GroupVersionResource{}, false
}

// TestSamplesCRUD creates, reads, lists, updates and deletes every sample manifest; together the samples
// cover all ten kinds.
func TestSamplesCRUD(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	kinds := map[string]bool{}
	for _, u := range samples(t) {
		gvr, namespaced := resourceFor(t, u.GetKind())
		kinds[u.GetKind()] = true
		ri := shared.Dynamic.Resource(gvr)
		var client = ri.Namespace("")
		if namespaced {
			client = ri.Namespace(ns)
			u.SetNamespace(ns)
		}
		u.SetName(u.GetName() + "-crud")
		created, err := client.Create(c, u, metav1.CreateOptions{FieldValidation: "Strict"})
		if err != nil {
			t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		if s, _, _ := unstructured.NestedString(created.Object, "status", "status"); s != "Pending" {
			t.Errorf("%s: status.status = %q, want Pending", u.GetKind(), s)
		}
		if created.GetGeneration() != 1 {
			t.Errorf("%s: generation %d, want 1", u.GetKind(), created.GetGeneration())
		}
		got, err := client.Get(c, u.GetName(), metav1.GetOptions{})
		if err != nil || got.GetUID() != created.GetUID() {
			t.Fatalf("get %s: %v", u.GetName(), err)
		}
		list, err := client.List(c, metav1.ListOptions{FieldSelector: "metadata.name=" + u.GetName()})
		if err != nil || len(list.Items) != 1 {
			t.Fatalf("list %s: %v (%d items)", u.GetKind(), err, len(list.Items))
		}
		got.SetLabels(map[string]string{"team": "inference"})
		updated, err := client.Update(c, got, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update %s: %v", u.GetName(), err)
		}
		if updated.GetGeneration() != 1 {
			t.Errorf("%s: a label change bumped generation to %d", u.GetKind(), updated.GetGeneration())
		}
		if err := client.Delete(c, u.GetName(), metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete %s: %v", u.GetName(), err)
		}
		if _, err := client.Get(c, u.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s still there after delete: %v", u.GetName(), err)
		}
	}
	if len(kinds) != len(wantResources) {
		t.Errorf("samples cover %d kinds, want %d: %v", len(kinds), len(wantResources), kinds)
	}
}

func TestDefaults(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	svc, err := shared.Client.AimV1alpha1().AIMServices(ns).Create(c, newService(ns, "defaults"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Replicas == nil || *svc.Spec.Replicas != 1 {
		t.Errorf("replicas = %v, want 1", svc.Spec.Replicas)
	}
	// As in aim-engine, an absent caching stays absent (the controller reads it as Shared), so that it can be
	// added after creation; a caching without mode gets mode Shared.
	if svc.Spec.Caching != nil {
		t.Errorf("caching = %+v, want none", svc.Spec.Caching)
	}
	withCaching := newService(ns, "defaults-caching")
	withCaching.Spec.Caching = &aimv1.AIMServiceCaching{}
	if svc, err := shared.Client.AimV1alpha1().AIMServices(ns).Create(c, withCaching, metav1.CreateOptions{}); err != nil ||
		svc.Spec.Caching == nil || svc.Spec.Caching.Mode != aimv1.AIMCachingModeShared {
		t.Errorf("caching {} = %v %v, want mode Shared", svc, err)
	}
	if svc.Status.Status != aimv1.AIMStatusPending {
		t.Errorf("status = %q, want Pending", svc.Status.Status)
	}
	tpl := &aimv1.AIMServiceTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "t"},
		Spec: aimv1.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{
			ModelName:            "m",
			AIMRuntimeParameters: aimv1.AIMRuntimeParameters{Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1}}},
		}},
	}
	tpl, err = shared.Client.AimV1alpha1().AIMServiceTemplates(ns).Create(c, tpl, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tpl.Spec.Hardware.GPU.ResourceName; got != "amd.com/gpu" {
		t.Errorf("gpu.resourceName = %q, want amd.com/gpu", got)
	}
	src, err := shared.Client.AimV1alpha1().AIMClusterModelSources().Create(c, &aimv1.AIMClusterModelSource{
		ObjectMeta: metav1.ObjectMeta{Name: "defaults-src"},
		Spec:       aimv1.AIMClusterModelSourceSpec{Filters: []aimv1.AIMModelSourceFilter{{Image: "org/aim-*"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if src.Spec.Registry != "docker.io" || src.Spec.SyncInterval.Duration != time.Hour || *src.Spec.MaxModels != 100 {
		t.Errorf("model source defaults: registry %q sync %v max %v", src.Spec.Registry, src.Spec.SyncInterval, *src.Spec.MaxModels)
	}
}

func TestValidationErrorsNameTheField(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	bad := newService(ns, "bad")
	bad.Spec.Model.Image = ptr.To("repo/image:1")
	_, err := shared.Client.AimV1alpha1().AIMServices(ns).Create(c, bad, metav1.CreateOptions{})
	if code := statusCode(t, err); code != http.StatusUnprocessableEntity {
		t.Fatalf("code %d, want 422: %v", code, err)
	}
	if want := `AIMService.aim.eai.amd.com "bad" is invalid: spec.model: Invalid value`; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not contain %q", err.Error(), want)
	}
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Field != "spec.model" {
		t.Errorf("causes = %+v, want one on spec.model", causes)
	}

	// Immutable fields reject changes on update.
	immutable := newService(ns, "immutable")
	immutable.Spec.Caching = &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeShared}
	svc, err := shared.Client.AimV1alpha1().AIMServices(ns).Create(c, immutable, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Model.Name = ptr.To("another-model")
	svc.Spec.Caching.Mode = aimv1.AIMCachingModeNever
	_, err = shared.Client.AimV1alpha1().AIMServices(ns).Update(c, svc, metav1.UpdateOptions{})
	if code := statusCode(t, err); code != http.StatusUnprocessableEntity {
		t.Fatalf("code %d, want 422: %v", code, err)
	}
	for _, f := range []string{"spec.model", "spec.caching"} {
		if !strings.Contains(err.Error(), f+": Forbidden: field is immutable") {
			t.Errorf("%q does not report %s as immutable", err.Error(), f)
		}
	}

	// A status write with an unknown status value is refused too.
	svc, _ = shared.Client.AimV1alpha1().AIMServices(ns).Get(c, "immutable", metav1.GetOptions{})
	svc.Status.Status = "Exploded"
	_, err = shared.Client.AimV1alpha1().AIMServices(ns).UpdateStatus(c, svc, metav1.UpdateOptions{})
	if code := statusCode(t, err); code != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), "status.status") {
		t.Errorf("status write: code %d, %v", code, err)
	}
}

func TestStatusSubresource(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	svcs := shared.Client.AimV1alpha1().AIMServices(ns)
	svc, err := svcs.Create(c, newService(ns, "status"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// A write to the main resource cannot change status.
	svc.Status.Status = aimv1.AIMStatusRunning
	svc.Spec.Replicas = ptr.To[int32](2)
	svc, err = svcs.Update(c, svc, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Status.Status != aimv1.AIMStatusPending {
		t.Errorf("main-resource update changed status to %q", svc.Status.Status)
	}
	if svc.Generation != 2 {
		t.Errorf("spec change: generation %d, want 2", svc.Generation)
	}

	// A write to /status cannot change spec or metadata, and does not bump the generation.
	svc.Status.Status = aimv1.AIMStatusRunning
	svc.Status.ObservedGeneration = svc.Generation
	svc.Spec.Replicas = ptr.To[int32](7)
	svc.Labels = map[string]string{"sneaky": "yes"}
	svc, err = svcs.UpdateStatus(c, svc, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Status.Status != aimv1.AIMStatusRunning || svc.Status.ObservedGeneration != 2 {
		t.Errorf("status not written: %+v", svc.Status)
	}
	if *svc.Spec.Replicas != 2 || svc.Labels["sneaky"] != "" || svc.Generation != 2 {
		t.Errorf("status write changed spec/metadata: replicas %d labels %v generation %d", *svc.Spec.Replicas, svc.Labels, svc.Generation)
	}

	// Metadata-only changes keep the generation.
	svc.Annotations = map[string]string{"note": "x"}
	svc, err = svcs.Update(c, svc, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Generation != 2 || svc.Status.Status != aimv1.AIMStatusRunning {
		t.Errorf("annotation change: generation %d status %q", svc.Generation, svc.Status.Status)
	}
}

func TestConflictOnStaleResourceVersion(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	svcs := shared.Client.AimV1alpha1().AIMServices(ns)
	first, err := svcs.Create(c, newService(ns, "conflict"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second := first.DeepCopy()
	first.Spec.Replicas = ptr.To[int32](2)
	if _, err := svcs.Update(c, first, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	second.Spec.Replicas = ptr.To[int32](3)
	_, err = svcs.Update(c, second, metav1.UpdateOptions{})
	if code := statusCode(t, err); code != http.StatusConflict {
		t.Errorf("stale update: code %d, want 409: %v", code, err)
	}
}

func TestServerSideApplyMergesEnvByName(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	svcs := shared.Client.AimV1alpha1().AIMServices(ns)
	apply := func(manager string, envs ...[2]string) (*aimv1.AIMService, error) {
		spec := aimapply.AIMServiceSpec().WithModel(aimapply.AIMServiceModel().WithName("qwen3-32b"))
		for _, e := range envs {
			spec.Env = append(spec.Env, *corev1apply(e[0], e[1]))
		}
		return svcs.Apply(c, aimapply.AIMService("ssa", ns).WithSpec(spec), metav1.ApplyOptions{FieldManager: manager})
	}
	if _, err := apply("team-a", [2]string{"A", "1"}); err != nil {
		t.Fatal(err)
	}
	svc, err := apply("team-b", [2]string{"B", "2"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range svc.Spec.Env {
		got[e.Name] = e.Value
	}
	if len(got) != 2 || got["A"] != "1" || got["B"] != "2" {
		t.Errorf("env after two managers = %v, want A=1 and B=2", got)
	}
	// Both managers own the same key: the second must get a conflict, and win with force.
	_, err = apply("team-b", [2]string{"A", "changed"}, [2]string{"B", "2"})
	if code := statusCode(t, err); code != http.StatusConflict {
		t.Errorf("conflicting apply: code %d, want 409: %v", code, err)
	}
	spec := aimapply.AIMServiceSpec().WithModel(aimapply.AIMServiceModel().WithName("qwen3-32b")).
		WithEnv(corev1apply("A", "forced"), corev1apply("B", "2"))
	svc, err = svcs.Apply(c, aimapply.AIMService("ssa", ns).WithSpec(spec), metav1.ApplyOptions{FieldManager: "team-b", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.Spec.Env) != 2 || svc.Spec.Env[0].Name != "A" || svc.Spec.Env[0].Value != "forced" {
		t.Errorf("forced apply: env %v", svc.Spec.Env)
	}

	// A status writer applying status does not take ownership of spec.
	st := aimapply.AIMServiceStatus().WithStatus(aimv1.AIMStatusStarting)
	svc, err = svcs.ApplyStatus(c, aimapply.AIMService("ssa", ns).WithStatus(st), metav1.ApplyOptions{FieldManager: "controller", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Status.Status != aimv1.AIMStatusStarting || len(svc.Spec.Env) != 2 {
		t.Errorf("status apply: status %q env %v", svc.Status.Status, svc.Spec.Env)
	}
}

func TestFieldSelectors(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	a := shared.Client.AimV1alpha1()
	for _, m := range []string{"llama", "qwen", "qwen"} {
		tpl := &aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{GenerateName: m + "-"},
			Spec: aimv1.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{ModelName: m}}}
		if _, err := a.AIMServiceTemplates(ns).Create(c, tpl, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i, img := range []string{"repo/a:1", "repo/b:1"} {
		m := &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("m%d", i)}, Spec: aimv1.AIMModelSpec{Image: img}}
		if _, err := a.AIMModels(ns).Create(c, m, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.AIMTemplateCaches(ns).Create(c, &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: "tc"},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: "tpl-x", TemplateScope: aimv1.AIMTemplateScopeNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AIMArtifacts(ns).Create(c, &aimv1.AIMArtifact{ObjectMeta: metav1.ObjectMeta{Name: "art"},
		Spec: aimv1.AIMArtifactSpec{SourceURI: "hf://org/model"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	count := func(n int, err error) int {
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	tplCount := func(sel string) int {
		l, err := a.AIMServiceTemplates(ns).List(c, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return count(0, err)
		}
		return len(l.Items)
	}
	if got := tplCount("spec.modelName=qwen"); got != 2 {
		t.Errorf("spec.modelName=qwen: %d templates, want 2", got)
	}
	if got := tplCount("spec.modelName!=qwen,status.status=Pending"); got != 1 {
		t.Errorf("spec.modelName!=qwen,status.status=Pending: %d, want 1", got)
	}
	if l, err := a.AIMModels(ns).List(c, metav1.ListOptions{FieldSelector: "spec.image=repo/b:1"}); count(len(l.Items), err) != 1 || l.Items[0].Name != "m1" {
		t.Errorf("spec.image selector: %v", l.Items)
	}
	if l, err := a.AIMTemplateCaches(ns).List(c, metav1.ListOptions{FieldSelector: "spec.templateName=tpl-x"}); count(len(l.Items), err) != 1 {
		t.Errorf("spec.templateName selector: %d", len(l.Items))
	}
	if l, err := a.AIMArtifacts(ns).List(c, metav1.ListOptions{FieldSelector: "spec.sourceUri=hf://org/model"}); count(len(l.Items), err) != 1 {
		t.Errorf("spec.sourceUri selector: %d", len(l.Items))
	}
	if l, err := a.AIMArtifacts(ns).List(c, metav1.ListOptions{FieldSelector: "status.status=Ready"}); count(len(l.Items), err) != 0 {
		t.Errorf("status.status=Ready matched %d pending artifacts", len(l.Items))
	}
	_, err := a.AIMModels(ns).List(c, metav1.ListOptions{FieldSelector: "spec.modelName=qwen"})
	if code := statusCode(t, err); code != http.StatusBadRequest || !strings.Contains(err.Error(), "spec.modelName") {
		t.Errorf("unsupported selector: code %d, %v", code, err)
	}
}

func TestWatchWithFieldSelector(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	svcs := shared.Client.AimV1alpha1().AIMServices(ns)
	w, err := svcs.Watch(c, metav1.ListOptions{FieldSelector: "metadata.name=watched"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := svcs.Create(c, newService(ns, "ignored"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := svcs.Create(c, newService(ns, "watched"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Replicas = ptr.To[int32](4)
	if _, err := svcs.Update(c, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := svcs.Delete(c, "watched", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []watch.EventType
	timeout := time.After(30 * time.Second)
	for len(got) < 3 {
		select {
		case ev := <-w.ResultChan():
			if s, ok := ev.Object.(*aimv1.AIMService); !ok || s.Name != "watched" {
				t.Fatalf("unexpected event %s %T", ev.Type, ev.Object)
			}
			got = append(got, ev.Type)
		case <-timeout:
			t.Fatalf("events so far %v, want ADDED MODIFIED DELETED", got)
		}
	}
	if !slices.Equal(got, []watch.EventType{watch.Added, watch.Modified, watch.Deleted}) {
		t.Errorf("events %v, want ADDED MODIFIED DELETED", got)
	}
}

// TestBadInput sends requests the typed clients cannot: every one must get a 4xx with a reason, never a 500,
// naming the field where it is one; the valid twins of the ones kube-apiserver answers with 500 succeed. Those
// (compatibility.md): a server-side apply the field manager cannot read through the schema (400, the field
// manager's message), and a resourceVersion the storage cannot read (400 for a get or watch, as for a list; 422
// naming metadata.resourceVersion for an object, also a create, a dry run too, that sets a readable one).
func TestBadInput(t *testing.T) {
	ns := namespace(t)
	base := strings.TrimSuffix(shared.Config.Host, "/") + "/apis/aim.eai.amd.com/v1alpha1/namespaces/" + ns + "/aimservices"
	valid := `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"%s"},"spec":{"model":{"name":"m"}%s}}`
	withRV := `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"%s","resourceVersion":"%s"},"spec":{"model":{"name":"m"}}}`
	big := fmt.Sprintf(valid, "big", `,"env":[{"name":"X","value":"`+strings.Repeat("x", 4<<20)+`"}]`)
	const apply, merge = "application/apply-patch+yaml", "application/merge-patch+json"
	if code, _, body := rawRequest(t, http.MethodPost, base, "application/json", fmt.Sprintf(valid, "existing", "")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	cases := []struct {
		name, method, url, contentType, body string
		want                                 int
		mention                              string
		field                                string // the only cause's field, for a 422 about one
	}{
		{"malformed JSON", http.MethodPost, base, "application/json", `{"apiVersion": "aim.eai.amd.com/v1alpha1", "kind":`, http.StatusBadRequest, "", ""},
		{"malformed YAML", http.MethodPost, base, "application/yaml", "apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: [name: x\n", http.StatusBadRequest, "", ""},
		{"wrong type", http.MethodPost, base, "application/json", fmt.Sprintf(valid, "wrongtype", `,"replicas":"three"`), http.StatusUnprocessableEntity,
			`spec.replicas in body must be of type integer: \"string\"`, "spec.replicas"},
		{"unknown field, strict", http.MethodPost, base + "?fieldValidation=Strict", "application/json", fmt.Sprintf(valid, "strict", `,"replicaz":3`), http.StatusBadRequest, `unknown field \"spec.replicaz\"`, ""},
		// kubectl asks for strict validation unless told otherwise: its create of aim-engine's doc field is refused.
		{"unknown field, strict, as kubectl", http.MethodPost, base + "?fieldValidation=Strict", "application/json",
			`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"ref"},"spec":{"model":{"ref":"m"}}}`,
			http.StatusBadRequest, `strict decoding error: unknown field \"spec.model.ref\"`, ""},
		{"duplicate field, strict", http.MethodPost, base + "?fieldValidation=Strict", "application/json", `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"dup"},"spec":{"model":{"name":"m"},"replicas":1,"replicas":2}}`, http.StatusBadRequest, "duplicate field", ""},
		{"oversized body", http.MethodPost, base, "application/json", big, http.StatusRequestEntityTooLarge, "", ""},
		{"wrong kind in body", http.MethodPost, base, "application/json", `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMModel","metadata":{"name":"k"},"spec":{"image":"a"}}`, http.StatusBadRequest, "", ""},
		{"invalid object", http.MethodPost, base, "application/json", fmt.Sprintf(valid, "Invalid_Name", ""), http.StatusUnprocessableEntity, "metadata.name", ""},
		{"malformed merge patch", http.MethodPatch, base + "/nothere", merge, `{"spec":`, http.StatusNotFound, "", ""},
		{"unsupported media type", http.MethodPost, base, "text/plain", "hello", http.StatusUnsupportedMediaType, "", ""},
		// Server-side apply that does not fit the schema.
		{"apply of an unknown field", http.MethodPatch, base + "/bad-apply?fieldManager=gitops", apply, `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"bad-apply"},"spec":{"model":{"ref":"qwen"}}}`,
			http.StatusBadRequest, ".spec.model.ref: field not declared in schema", ""},
		{"apply of a wrong type", http.MethodPatch, base + "/bad-apply?fieldManager=gitops", apply, fmt.Sprintf(valid, "bad-apply", `,"replicas":"three"`),
			http.StatusUnprocessableEntity, `spec.replicas in body must be of type integer: \"string\"`, "spec.replicas"},
		{"apply of a duplicate key of a map list", http.MethodPatch, base + "/bad-apply?fieldManager=gitops", apply, fmt.Sprintf(valid, "bad-apply", `,"env":[{"name":"A","value":"1"},{"name":"A","value":"2"}]`),
			http.StatusBadRequest, "duplicate entries for key", ""},
		{"apply, valid", http.MethodPatch, base + "/good-apply?fieldManager=gitops", apply, fmt.Sprintf(valid, "good-apply", `,"replicas":3,"env":[{"name":"A","value":"1"}]`), http.StatusCreated, "", ""},
		// resourceVersions the storage cannot read.
		{"get", http.MethodGet, base + "/existing?resourceVersion=abc", "", "", http.StatusBadRequest, "invalid resource version", ""},
		{"get of the status", http.MethodGet, base + "/existing/status?resourceVersion=-1", "", "", http.StatusBadRequest, "invalid resource version", ""},
		{"watch", http.MethodGet, base + "?watch=1&resourceVersion=abc&timeoutSeconds=1", "", "", http.StatusBadRequest, "invalid resource version", ""},
		{"list, as before", http.MethodGet, base + "?resourceVersion=abc", "", "", http.StatusBadRequest, "invalid resource version", ""},
		{"update", http.MethodPut, base + "/existing", "application/json", fmt.Sprintf(withRV, "existing", "abc"), http.StatusUnprocessableEntity,
			"must be a resourceVersion the server returned", "metadata.resourceVersion"},
		{"update of the status", http.MethodPut, base + "/existing/status", "application/json", fmt.Sprintf(withRV, "existing", "-1"), http.StatusUnprocessableEntity,
			"must be a resourceVersion the server returned", "metadata.resourceVersion"},
		{"merge patch of one", http.MethodPatch, base + "/existing", merge, `{"metadata":{"resourceVersion":"abc"}}`, http.StatusUnprocessableEntity,
			"must be a resourceVersion", "metadata.resourceVersion"},
		{"create with one", http.MethodPost, base, "application/json", fmt.Sprintf(withRV, "rv-create", "5"), http.StatusUnprocessableEntity,
			"should not be set on objects to be created", "metadata.resourceVersion"},
		{"dry-run create with one", http.MethodPost, base + "?dryRun=All", "application/json", fmt.Sprintf(withRV, "rv-create", "5"), http.StatusUnprocessableEntity,
			"should not be set on objects to be created", "metadata.resourceVersion"},
		{"get from the cache", http.MethodGet, base + "/existing?resourceVersion=0", "", "", http.StatusOK, "", ""},
		{"watch from now", http.MethodGet, base + "?watch=1&resourceVersion=0&timeoutSeconds=1", "", "", http.StatusOK, "", ""},
		{"merge patch without one", http.MethodPatch, base + "/existing", merge, `{"metadata":{"labels":{"a":"b"}}}`, http.StatusOK, "", ""},
		// One the storage cannot read is cleared, as kube-apiserver clears it.
		{"create with one that does not parse", http.MethodPost, base, "application/json", fmt.Sprintf(withRV, "rv-cleared", "abc"), http.StatusCreated, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, status, body := rawRequest(t, tc.method, tc.url, tc.contentType, tc.body)
			if code != tc.want {
				t.Fatalf("code %d, want %d: %.500s", code, tc.want, body)
			}
			if tc.want < 400 {
				return
			}
			if status.Kind != "Status" {
				t.Errorf("body is not a Status: %.500s", body)
			}
			if tc.mention != "" && !strings.Contains(body, tc.mention) {
				t.Errorf("body does not mention %q: %.500s", tc.mention, body)
			}
			if tc.field != "" && (status.Details == nil || len(status.Details.Causes) != 1 || status.Details.Causes[0].Field != tc.field) {
				t.Errorf("causes %+v, want the field %s", status.Details, tc.field)
			}
		})
	}

	// A malformed patch on an existing object is a 400 and changes nothing.
	client := shared.RawClient(t)
	svcURL := base + "/patched"
	resp, err := client.Post(base, "application/json", strings.NewReader(fmt.Sprintf(valid, "patched", "")))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", err, resp)
	}
	resp.Body.Close()
	for _, p := range []struct{ ct, body string }{
		{"application/merge-patch+json", `{"spec":`},
		{"application/json-patch+json", `[{"op":"explode","path":"/spec"}]`},
		{"application/strategic-merge-patch+json", `{"spec":{"env":"notalist"}}`},
	} {
		req, _ := http.NewRequest(http.MethodPatch, svcURL, strings.NewReader(p.body))
		req.Header.Set("Content-Type", p.ct)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 || resp.StatusCode < 400 {
			t.Errorf("patch %s %s: code %d: %s", p.ct, p.body, resp.StatusCode, body)
		}
	}
	svc, err := shared.Client.AimV1alpha1().AIMServices(ns).Get(ctx(t), "patched", metav1.GetOptions{})
	if err != nil || svc.Generation != 1 {
		t.Errorf("object changed by rejected patches: %v generation %d", err, svc.Generation)
	}
}

func TestAnonymousRequestsRefused(t *testing.T) {
	tlsOnly := *shared.Config
	tlsOnly.TLSClientConfig.CertData, tlsOnly.TLSClientConfig.KeyData = nil, nil
	tlsOnly.TLSClientConfig.CertFile, tlsOnly.TLSClientConfig.KeyFile = "", ""
	anon := newClientOrFail(t, &tlsOnly)
	_, err := anon.AimV1alpha1().AIMServices("default").List(ctx(t), metav1.ListOptions{})
	if code := statusCode(t, err); code != http.StatusUnauthorized {
		t.Errorf("anonymous list: code %d, want 401: %v", code, err)
	}
}

// TestWatchWithCustomFieldSelectors watches on spec.modelName and status.status: objects entering the
// selection arrive as ADDED, objects leaving it as DELETED, others not at all.
func TestWatchWithCustomFieldSelectors(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	tpls := shared.Client.AimV1alpha1().AIMServiceTemplates(ns)
	byModel, err := tpls.Watch(c, metav1.ListOptions{FieldSelector: "spec.modelName=wanted"})
	if err != nil {
		t.Fatal(err)
	}
	defer byModel.Stop()
	byStatus, err := tpls.Watch(c, metav1.ListOptions{FieldSelector: "status.status=Ready"})
	if err != nil {
		t.Fatal(err)
	}
	defer byStatus.Stop()

	mk := func(name, model string) *aimv1.AIMServiceTemplate {
		tpl, err := tpls.Create(c, &aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: aimv1.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{ModelName: model}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tpl
	}
	mk("other", "unwanted")
	tpl := mk("picked", "wanted")
	tpl.Status.Status = aimv1.AIMStatusReady
	if tpl, err = tpls.UpdateStatus(c, tpl, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	tpl.Status.Status = aimv1.AIMStatusFailed
	if _, err = tpls.UpdateStatus(c, tpl, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	next := func(w watch.Interface) (watch.EventType, string) {
		t.Helper()
		select {
		case ev := <-w.ResultChan():
			return ev.Type, ev.Object.(*aimv1.AIMServiceTemplate).Name
		case <-time.After(30 * time.Second):
			t.Fatal("no watch event")
		}
		return "", ""
	}
	if typ, name := next(byModel); typ != watch.Added || name != "picked" {
		t.Errorf("spec.modelName watch: %s %s, want ADDED picked", typ, name)
	}
	if typ, name := next(byStatus); typ != watch.Added || name != "picked" {
		t.Errorf("status.status watch: %s %s, want ADDED picked", typ, name)
	}
	if typ, name := next(byStatus); typ != watch.Deleted || name != "picked" {
		t.Errorf("status.status watch after leaving Ready: %s %s, want DELETED picked", typ, name)
	}
}

// TestProtobufIsServed: every kind and its list are served in protobuf to clients that ask (kube-controller-
// manager's garbage collector and namespace controller ask for protobuf first, kubectl for protobuf metadata);
// an AIM type without a protobuf encoding used to answer 500 here. Tables stay JSON, as for built-in kinds.
func TestProtobufIsServed(t *testing.T) {
	ns := namespace(t)
	if _, err := shared.Client.AimV1alpha1().AIMModels(ns).Create(ctx(t), &aimv1.AIMModel{
		ObjectMeta: metav1.ObjectMeta{Name: "m"}, Spec: aimv1.AIMModelSpec{Image: "repo/img:1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	client := shared.RawClient(t)
	base := strings.TrimSuffix(shared.Config.Host, "/") + "/apis/aim.eai.amd.com/v1alpha1/"
	get := func(method, url, accept string) (int, string, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), body
	}
	decode := func(body []byte) runtime.Object {
		t.Helper()
		obj, _, err := apiserver.Codecs.UniversalDeserializer().Decode(body, nil, nil)
		if err != nil {
			t.Fatalf("decoding protobuf: %v", err)
		}
		return obj
	}
	for resource, want := range wantResources {
		url := base + resource
		if want.namespaced {
			url = base + "namespaces/" + ns + "/" + resource
		}
		code, typ, body := get(http.MethodGet, url, runtime.ContentTypeProtobuf)
		if code != http.StatusOK || typ != runtime.ContentTypeProtobuf {
			t.Errorf("list %s in protobuf: code %d, content type %s: %q", resource, code, typ, body)
			continue
		}
		if kind := decode(body).GetObjectKind().GroupVersionKind().Kind; kind != want.kind+"List" {
			t.Errorf("list %s in protobuf decodes as %s", resource, kind)
		}
	}
	url := base + "namespaces/" + ns + "/aimmodels"
	code, typ, body := get(http.MethodGet, url+"/m", runtime.ContentTypeProtobuf+", application/json")
	if code != http.StatusOK || typ != runtime.ContentTypeProtobuf {
		t.Fatalf("get in protobuf: code %d, content type %s: %q", code, typ, body)
	}
	if m, ok := decode(body).(*aimv1.AIMModel); !ok || m.Spec.Image != "repo/img:1" {
		t.Errorf("get in protobuf: %#v", m)
	}
	for _, tc := range []struct {
		accept   string
		wantCode int
		wantType string
	}{
		// The garbage collector's metadata-only lists.
		{"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json", http.StatusOK, runtime.ContentTypeProtobuf},
		// kubectl get: tables have no protobuf encoding (built-in kinds answer the same).
		{"application/json;as=Table;v=v1;g=meta.k8s.io,application/json", http.StatusOK, "application/json"},
		{"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", http.StatusNotAcceptable, "application/json"},
	} {
		if code, typ, body := get(http.MethodGet, url, tc.accept); code != tc.wantCode || typ != tc.wantType {
			t.Errorf("Accept %s: code %d, content type %s: %q", tc.accept, code, typ, body)
		}
	}
	// DELETE collection with protobuf preferred, as the namespace controller sends it.
	if code, typ, body := get(http.MethodDelete, url, runtime.ContentTypeProtobuf+", application/json"); code != http.StatusOK || typ != runtime.ContentTypeProtobuf {
		t.Errorf("deletecollection preferring protobuf: code %d, content type %s: %q", code, typ, body)
	}
}

// TestProtobufClient: the generated clientset sending and accepting only protobuf creates, reads, updates,
// watches and is refused with field paths, as a JSON client is.
func TestProtobufClient(t *testing.T) {
	ns := namespace(t)
	cfg := rest.CopyConfig(shared.Config)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf
	var mu sync.Mutex
	seen := map[string]int{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil {
				mu.Lock()
				seen[req.Header.Get("Content-Type")+" -> "+resp.Header.Get("Content-Type")]++
				mu.Unlock()
			}
			return resp, err
		})
	})
	c := versioned.NewForConfigOrDie(cfg).AimV1alpha1().AIMServices(ns)
	w, err := c.Watch(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	svc, err := c.Create(ctx(t), &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "chat"},
		Spec: aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: ptr.To("qwen")}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Replicas == nil || *svc.Spec.Replicas != 1 {
		t.Errorf("created in protobuf without defaults: %+v", svc.Spec)
	}
	svc.Labels = map[string]string{"team": "a"}
	svc.Spec.Replicas = ptr.To[int32](3)
	if svc, err = c.Update(ctx(t), svc, metav1.UpdateOptions{}); err != nil || *svc.Spec.Replicas != 3 {
		t.Fatalf("update in protobuf: %v %+v", err, svc)
	}
	if got, err := c.Get(ctx(t), "chat", metav1.GetOptions{}); err != nil || got.Labels["team"] != "a" || *got.Spec.Replicas != 3 {
		t.Fatalf("get in protobuf: %v %+v", err, got)
	}
	select {
	case ev := <-w.ResultChan():
		if s, ok := ev.Object.(*aimv1.AIMService); ev.Type != watch.Added || !ok || s.Name != "chat" {
			t.Errorf("watch in protobuf: %s %#v", ev.Type, ev.Object)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event in protobuf")
	}
	svc.Spec.Replicas = ptr.To[int32](-1)
	_, err = c.Update(ctx(t), svc, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.replicas") {
		t.Errorf("invalid update in protobuf: %v, want 422 naming spec.replicas", err)
	}
	// A quantity's text is not parsed by the protobuf decoder, as JSON's parses it: validation refuses it.
	svc.Spec.Replicas = ptr.To[int32](3)
	svc.Spec.Resources = &aimv1.ResourceRequirements{Limits: aimv1.ResourceList{"memory": {Text: "lots"}}}
	_, err = c.Update(ctx(t), svc, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.resources.limits[memory]") {
		t.Errorf("unparsable quantity in protobuf: %v, want 422 naming spec.resources.limits[memory]", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for exchange := range seen {
		if strings.Contains(exchange, "json") {
			t.Errorf("JSON crossed the wire: %v", seen)
		}
	}
	if seen[runtime.ContentTypeProtobuf+" -> "+runtime.ContentTypeProtobuf] < 2 {
		t.Errorf("protobuf bodies both ways: %v", seen)
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestDurationsReadBackAsWritten: a duration reads back as it was written (24h, not 24h0m0s), as aim-engine's
// CRDs store it, through storage and the watch cache; the default reads as aim-engine's (1h).
func TestDurationsReadBackAsWritten(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	sources := shared.Dynamic.Resource(aimv1.SchemeGroupVersion.WithResource("aimclustermodelsources"))
	for name, interval := range map[string]any{"durations-24h": "24h", "durations-default": nil} {
		spec := map[string]any{"filters": []any{map[string]any{"image": "org/aim-*"}}}
		if interval != nil {
			spec["syncInterval"] = interval
		}
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": aimv1.SchemeGroupVersion.String(), "kind": "AIMClusterModelSource",
			"metadata": map[string]any{"name": name}, "spec": spec}}
		if _, err := sources.Create(c, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sources.Delete(context.Background(), name, metav1.DeleteOptions{}) })
		want := "24h"
		if interval == nil {
			want = "1h"
		}
		got, err := sources.Get(c, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s, _, _ := unstructured.NestedString(got.Object, "spec", "syncInterval"); s != want {
			t.Errorf("%s: syncInterval reads back %q, want %q", name, s, want)
		}
	}
	configs := shared.Dynamic.Resource(aimv1.SchemeGroupVersion.WithResource("aimruntimeconfigs")).Namespace(ns)
	cfg := &unstructured.Unstructured{Object: map[string]any{"apiVersion": aimv1.SchemeGroupVersion.String(), "kind": "AIMRuntimeConfig",
		"metadata": map[string]any{"name": "timeouts"}, "spec": map[string]any{"routing": map[string]any{"requestTimeout": "90s"}}}}
	created, err := configs.Create(c, cfg, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = configs.Delete(context.Background(), "timeouts", metav1.DeleteOptions{}) })
	// Served by the watch cache, which holds the create once its watch event arrived: read at that version.
	list, err := configs.List(c, metav1.ListOptions{ResourceVersion: created.GetResourceVersion(), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	if s, _, _ := unstructured.NestedString(list.Items[0].Object, "spec", "routing", "requestTimeout"); s != "90s" {
		t.Errorf("requestTimeout reads back %q, want 90s", s)
	}
}

// TestQuantitiesReadBackAsWritten: a quantity reads back as it was written (1024Mi, not 1Gi; the number 4, not
// "4"), as aim-engine's CRDs store the JSON value, through storage and the watch cache (D17); applying the same
// manifest again changes nothing, so a GitOps tool sees no drift; cpu.requests of 0 is taken.
func TestQuantitiesReadBackAsWritten(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	models := shared.Dynamic.Resource(aimv1.SchemeGroupVersion.WithResource("aimmodels")).Namespace(ns)
	manifest := []byte(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMModel","metadata":{"name":"quantities"},
		"spec":{"image":"registry.example/aim/x:1",
		"resources":{"limits":{"memory":"1024Mi","cpu":4},"requests":{"cpu":"0.5","memory":1e3}},
		"modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m","size":"1000Mi"}],
		"custom":{"hardware":{"cpu":{"requests":0,"limits":"2000m"}}}}}`)
	apply := func() *unstructured.Unstructured {
		t.Helper()
		obj, err := models.Patch(c, "quantities", types.ApplyPatchType, manifest, metav1.PatchOptions{FieldManager: "gitops", Force: ptr.To(true)})
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	created := apply()
	t.Cleanup(func() { _ = models.Delete(context.Background(), "quantities", metav1.DeleteOptions{}) })
	var want map[string]any
	must(t, json.Unmarshal(manifest, &want))
	wantSpec, _ := json.Marshal(want["spec"])
	// Served by the watch cache, which holds the create once its watch event arrived: read at that version.
	list, err := models.List(c, metav1.ListOptions{ResourceVersion: created.GetResourceVersion(), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	got, err := models.Get(c, "quantities", metav1.GetOptions{})
	must(t, err)
	for from, obj := range map[string]*unstructured.Unstructured{"create": created, "list": &list.Items[0], "get": got} {
		spec := obj.Object["spec"].(map[string]any)
		delete(spec, "runtimeConfigName") // a default
		var back any
		data, _ := json.Marshal(spec)
		if must(t, json.Unmarshal(data, &back)); !reflect.DeepEqual(back, want["spec"]) {
			t.Errorf("%s: spec reads back\n%s\nwant\n%s", from, data, wantSpec)
		}
	}
	if again := apply(); again.GetResourceVersion() != created.GetResourceVersion() || again.GetGeneration() != 1 {
		t.Errorf("the same manifest applied again: resourceVersion %s -> %s, generation %d", created.GetResourceVersion(), again.GetResourceVersion(), again.GetGeneration())
	}
}
