package resource_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/install"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclustermodel"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimservice"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	install.Install(s)
	return s
}

func service() *aim.AIMService {
	return &aim.AIMService{
		ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "ns", Labels: map[string]string{"a": "1"}, Generation: 4},
		Spec:       aim.AIMServiceSpec{Model: aim.AIMServiceModel{Name: ptr.To("m")}, Replicas: ptr.To[int32](1)},
		Status: aim.AIMServiceStatus{Status: aim.AIMStatusRunning, ObservedGeneration: 3,
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "AllComponentsReady", LastTransitionTime: metav1.Now()}}},
	}
}

func strategies() (*resource.Strategy[*aim.AIMService], *resource.StatusStrategy[*aim.AIMService]) {
	def := aimservice.Definition()
	s := resource.NewStrategy(scheme(), &def)
	return s, resource.NewStatusStrategy(s)
}

func TestPrepareForCreateResetsStatusAndGeneration(t *testing.T) {
	s, _ := strategies()
	obj := service()
	s.PrepareForCreate(context.Background(), obj)
	if obj.Status.Status != aim.AIMStatusPending || len(obj.Status.Conditions) != 0 || obj.Status.ObservedGeneration != 0 {
		t.Errorf("status not reset: %+v", obj.Status)
	}
	if obj.Generation != 1 {
		t.Errorf("generation %d, want 1", obj.Generation)
	}
}

func TestPrepareForUpdate(t *testing.T) {
	s, _ := strategies()
	ctx := context.Background()

	old := service()
	obj := service()
	obj.Labels = map[string]string{"b": "2"}
	obj.Status = aim.AIMServiceStatus{Status: aim.AIMStatusFailed}
	s.PrepareForUpdate(ctx, obj, old)
	if obj.Status.Status != aim.AIMStatusRunning || len(obj.Status.Conditions) != 1 {
		t.Errorf("main-resource update changed status: %+v", obj.Status)
	}
	if obj.Generation != 4 {
		t.Errorf("metadata-only update: generation %d, want 4", obj.Generation)
	}

	obj = service()
	obj.Spec.Replicas = ptr.To[int32](2)
	s.PrepareForUpdate(ctx, obj, old)
	if obj.Generation != 5 {
		t.Errorf("spec update: generation %d, want 5", obj.Generation)
	}
}

func TestStatusStrategyKeepsSpecAndMetadata(t *testing.T) {
	_, status := strategies()
	old := service()
	old.Finalizers = []string{"keep"}
	old.Annotations = map[string]string{"keep": "me"}
	obj := service()
	obj.Spec.Replicas = ptr.To[int32](9)
	obj.Labels = map[string]string{"changed": "yes"}
	obj.Annotations = nil
	obj.Finalizers = nil
	obj.OwnerReferences = []metav1.OwnerReference{{Name: "x"}}
	obj.Status.Status = aim.AIMStatusDegraded
	status.PrepareForUpdate(context.Background(), obj, old)
	if *obj.Spec.Replicas != 1 || obj.Labels["a"] != "1" || obj.Labels["changed"] != "" ||
		obj.Annotations["keep"] != "me" || len(obj.Finalizers) != 1 || len(obj.OwnerReferences) != 0 {
		t.Errorf("status update changed spec or metadata: %+v %+v", obj.ObjectMeta, obj.Spec)
	}
	if obj.Status.Status != aim.AIMStatusDegraded {
		t.Errorf("status update lost the new status: %q", obj.Status.Status)
	}
	if errs := status.ValidateUpdate(context.Background(), obj, old); len(errs) != 0 {
		t.Errorf("valid status rejected: %v", errs)
	}
	obj.Status.Status = "Ready" // not a service status
	if errs := status.ValidateUpdate(context.Background(), obj, old); len(errs) == 0 || errs[0].Field != "status.status" {
		t.Errorf("invalid status accepted: %v", errs)
	}
}

// An object stored invalid (migrate --allow-invalid) takes metadata changes and a fix, not a new error.
func TestValidateUpdateRatchetsStoredErrors(t *testing.T) {
	s, _ := strategies()
	ctx := context.Background()
	old := service()
	old.Spec.Replicas = ptr.To[int32](-1)
	obj := old.DeepCopy()
	obj.Finalizers = []string{"aim.eai.amd.com/template-cache-cleanup"}
	if errs := s.ValidateUpdate(ctx, obj, old); len(errs) != 0 {
		t.Errorf("finalizer added to a stored invalid object: %v", errs)
	}
	obj.Spec.Replicas = ptr.To[int32](-2)
	if errs := s.ValidateUpdate(ctx, obj, old); len(errs) != 1 || errs[0].Field != "spec.replicas" {
		t.Errorf("invalid field changed to another invalid value: %v", errs)
	}
	obj.Spec.Replicas = ptr.To[int32](2)
	if errs := s.ValidateUpdate(ctx, obj, old); len(errs) != 0 {
		t.Errorf("fixed: %v", errs)
	}
	valid := service()
	obj = valid.DeepCopy()
	obj.Spec.Replicas = ptr.To[int32](-1)
	if errs := s.ValidateUpdate(ctx, obj, valid); len(errs) != 1 || errs[0].Field != "spec.replicas" {
		t.Errorf("valid object made invalid: %v", errs)
	}
}

func TestResetFields(t *testing.T) {
	s, status := strategies()
	has := func(set map[fieldpath.APIVersion]*fieldpath.Set, path ...string) bool {
		parts := make([]any, len(path))
		for i, p := range path {
			parts[i] = p
		}
		return set["aim.eai.amd.com/v1alpha1"].Has(fieldpath.MakePathOrDie(parts...))
	}
	main := s.GetResetFields()
	if !has(main, "status") || has(main, "spec") {
		t.Errorf("main reset fields: %v", main)
	}
	st := status.GetResetFields()
	if !has(st, "spec") || !has(st, "metadata", "labels") || has(st, "status") {
		t.Errorf("status reset fields: %v", st)
	}
}

func TestGetAttrs(t *testing.T) {
	s, _ := strategies()
	_, f, err := s.GetAttrs(service())
	if err != nil {
		t.Fatal(err)
	}
	want := fields.Set{"metadata.name": "svc", "metadata.namespace": "ns", "status.status": "Running"}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	def := aimclustermodel.Definition()
	cm := resource.NewStrategy(scheme(), &def)
	_, f, err = cm.GetAttrs(&aim.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Spec: aim.AIMModelSpec{Image: "img"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f["metadata.namespace"]; ok || f["spec.image"] != "img" {
		t.Errorf("cluster model fields %v", f)
	}
	if _, _, err := s.GetAttrs(&aim.AIMModel{}); err == nil {
		t.Error("GetAttrs accepted the wrong kind")
	}
}

func TestWarnings(t *testing.T) {
	s, _ := strategies()
	obj := service()
	obj.Spec.Caching = &aim.AIMServiceCaching{Mode: aim.AIMCachingModeAuto}
	obj.Spec.CacheModel = ptr.To(true)
	w := s.WarningsOnCreate(context.Background(), obj)
	if len(w) != 2 || !strings.HasPrefix(w[0], "spec.caching.mode:") || !strings.HasPrefix(w[1], "spec.cacheModel:") {
		t.Errorf("warnings %q", w)
	}
	if w := s.WarningsOnUpdate(context.Background(), service(), service()); len(w) != 0 {
		t.Errorf("warnings on a clean object: %q", w)
	}
}

func TestTable(t *testing.T) {
	st, err := resource.NewTableConvertorForTest(aimservice.Definition())
	if err != nil {
		t.Fatal(err)
	}
	obj := service()
	obj.Status.ResolvedModel = &aim.AIMResolvedReference{Name: "qwen"}
	obj.Status.Runtime = &aim.AIMServiceRuntimeStatus{Replicas: "1/2 (1-3)"}
	list := &aim.AIMServiceList{ListMeta: metav1.ListMeta{ResourceVersion: "42"}, Items: []aim.AIMService{*obj}}
	table, err := st.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		if c.Priority == 0 {
			names = append(names, c.Name)
		}
	}
	if got := strings.Join(names, ","); got != "Name,Status,Model,Template,Replicas,Age" {
		t.Errorf("columns %s", got)
	}
	if table.ResourceVersion != "42" || len(table.Rows) != 1 {
		t.Fatalf("table rv %q rows %d", table.ResourceVersion, len(table.Rows))
	}
	cells := table.Rows[0].Cells
	if cells[0] != "svc" || cells[1] != "Running" || cells[2] != "qwen" || cells[3] != nil || cells[4] != "1/2 (1-3)" {
		t.Errorf("cells %v", cells)
	}
	noHeaders, err := st.ConvertToTable(context.Background(), obj, &metav1.TableOptions{NoHeaders: true})
	if err != nil || len(noHeaders.ColumnDefinitions) != 0 || len(noHeaders.Rows) != 1 {
		t.Errorf("no-headers table: %v %+v", err, noHeaders)
	}
}

func TestCheckRejectsIncompleteDefinitions(t *testing.T) {
	def := aimservice.Definition()
	def.ValidateStatus = nil
	if err := def.Check(); err == nil || !strings.Contains(err.Error(), "ValidateStatus") {
		t.Errorf("missing ValidateStatus: %v", err)
	}
	def = aimservice.Definition()
	def.SelectableFields = func(*aim.AIMService) fields.Set { return fields.Set{} }
	if err := def.Check(); err == nil || !strings.Contains(err.Error(), "status.status") {
		t.Errorf("missing selectable field: %v", err)
	}
	def = aimservice.Definition()
	def.Validate = func(*aim.AIMService) field.ErrorList { return nil }
	if err := def.Check(); err != nil {
		t.Errorf("complete definition rejected: %v", err)
	}
}

// TestMarkUnreconciled: where no controller runs, a new object's status says so in its Ready condition; the
// status a client sends is still dropped.
func TestMarkUnreconciled(t *testing.T) {
	s, _ := strategies()
	main := &resource.REST{Store: &genericregistry.Store{CreateStrategy: s}}
	main.MarkUnreconciled("no controller here")
	obj := service()
	obj.Status.Status = aim.AIMStatusRunning
	main.CreateStrategy.PrepareForCreate(context.Background(), obj)
	if obj.Status.Status != aim.AIMStatusPending || len(obj.Status.Conditions) != 1 {
		t.Fatalf("status %+v", obj.Status)
	}
	c := obj.Status.Conditions[0]
	if c.Type != "Ready" || c.Status != metav1.ConditionUnknown || c.Reason != resource.ReasonControllerNotRunning || c.Message != "no controller here" {
		t.Errorf("condition %+v", c)
	}
}
