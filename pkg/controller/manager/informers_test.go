package manager

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/google/go-cmp/cmp"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// TestInformersKeepOnlyWhoWrote: cached objects keep each managedFields entry's manager and operation (MadeBy),
// not the fields it owns.
func TestInformersKeepOnlyWhoWrote(t *testing.T) {
	fields := &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:backoffLimit":{}}}`)}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "d", ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: fields, APIVersion: "batch/v1", FieldsType: "FieldsV1"},
		{Manager: "aim-model-controller", Operation: metav1.ManagedFieldsOperationApply, FieldsV1: fields}}}}
	out, err := stripManagedFields(job)
	want := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate},
		{Manager: "aim-model-controller", Operation: metav1.ManagedFieldsOperationApply}}
	if diff := cmp.Diff(want, out.(*batchv1.Job).ManagedFields); err != nil || diff != "" || out.(*batchv1.Job).Name != "d" {
		t.Errorf("cached managed fields (-want +got):\n%s (%v)", diff, err)
	}
	// A tombstone passes as it is.
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/d", Obj: job}
	if out, err := stripManagedFields(tomb); err != nil || out != any(tomb) {
		t.Errorf("tombstone: %v (%v)", out, err)
	}
}

func TestDynamicObjectsAreCachedTyped(t *testing.T) {
	gvr := batchv1.SchemeGroupVersion.WithResource("jobs")
	transform := typedTransform(gvr, func() runtime.Object { return &batchv1.Job{} })
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "d", "namespace": "ns", "managedFields": []any{map[string]any{"manager": "kubectl"}}},
		"spec":     map[string]any{"backoffLimit": int64(0), "template": map[string]any{"spec": map[string]any{"restartPolicy": "Never"}}}}}
	out, err := transform(u)
	job, ok := out.(*batchv1.Job)
	if err != nil || !ok || job.Name != "d" || len(job.ManagedFields) != 1 || job.ManagedFields[0].Manager != "kubectl" || job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 {
		t.Fatalf("cached as %T %+v (%v)", out, out, err)
	}
	// Read back as a map, it holds what it held (without managed fields).
	back, err := AsUnstructured(job)
	if err != nil || back.GetAPIVersion() != "batch/v1" || back.GetKind() != "Job" {
		t.Fatalf("as a map: %v (%v)", back, err)
	}
	var again batchv1.Job
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(back.Object, &again); err != nil || !apiequality.Semantic.DeepEqual(again.Spec, job.Spec) {
		t.Errorf("the map read back lost part of the spec: %+v (%v)", again.Spec, err)
	}
	// A field of the wrong type (a hand edit the server's schema let through) keeps the object a map.
	bad := u.DeepCopy()
	_ = unstructured.SetNestedField(bad.Object, "zero", "spec", "backoffLimit")
	if out, err := transform(bad); err != nil || out != any(bad) {
		t.Errorf("an object its type cannot hold: %T (%v)", out, err)
	}
	// Read as the Go type: the cached struct itself; a map is converted, and one the type cannot hold fails.
	if got, err := AsTyped[batchv1.Job](job); err != nil || got != job {
		t.Errorf("as typed: %p %v, want the cached %p", got, err, job)
	}
	if got, err := AsTyped[batchv1.Job](u); err != nil || got.Name != "d" || *got.Spec.BackoffLimit != 0 {
		t.Errorf("a map as typed: %+v (%v)", got, err)
	}
	if _, err := AsTyped[batchv1.Job](bad); err == nil {
		t.Error("an object its type cannot hold read as typed without error")
	}
}

// TestTypedDynamicListers: the listers of a dynamic informer whose objects are cached typed list and get
// them (client-go's dynamic lister would panic on a struct).
func TestTypedDynamicListers(t *testing.T) {
	gvr := batchv1.SchemeGroupVersion.WithResource("jobs")
	f := &dynamicInformers{factory: dynamicinformer.NewDynamicSharedInformerFactory(nil, 0),
		typed: map[schema.GroupVersionResource]func() runtime.Object{gvr: func() runtime.Object { return &batchv1.Job{} }}}
	inf, err := f.informer(gvr)
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.informer.GetIndexer().Add(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}); err != nil {
		t.Fatal(err)
	}
	all, err := inf.lister.List(labels.Everything())
	if err != nil || len(all) != 1 {
		t.Fatalf("list: %v (%v)", all, err)
	}
	in, err := inf.lister.ByNamespace("ns").List(labels.Everything())
	if err != nil || len(in) != 1 {
		t.Fatalf("list in ns: %v (%v)", in, err)
	}
	if _, err := inf.lister.ByNamespace("ns").Get("d"); err != nil {
		t.Fatal(err)
	}
}
