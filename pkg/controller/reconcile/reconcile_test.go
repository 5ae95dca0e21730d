package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

func TestLookup(t *testing.T) {
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "aimmodels"}, "m")
	boom := errors.New("cache broken")
	model := func(ann map[string]string) *aimv1.AIMModel {
		return &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Name: "m", Annotations: ann}}
	}
	deleting := model(nil)
	deleting.DeletionTimestamp, deleting.Finalizers = ptr.To(metav1.Now()), []string{metav1.FinalizerDeleteDependents}
	for _, tc := range []struct {
		name      string
		obj       *aimv1.AIMModel
		err       error
		reconcile bool
		wantErr   error
	}{
		{"present", model(nil), nil, true, nil},
		{"gone", nil, gone, false, nil},
		{"cache error", nil, boom, false, boom},
		{"paused", model(map[string]string{aimv1.AnnotationReconciliationPaused: "true"}), nil, false, nil},
		{"being deleted (a foreground deletion waits for the children)", deleting, nil, false, nil},
		{"pause annotation not true", model(map[string]string{aimv1.AnnotationReconciliationPaused: "no"}), nil, true, nil},
	} {
		_, ok, err := Lookup(func() (*aimv1.AIMModel, error) { return tc.obj, tc.err })
		if ok != tc.reconcile || !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: reconcile %v err %v", tc.name, ok, err)
		}
	}
}

func TestSetFinalizer(t *testing.T) {
	obj := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "7", Finalizers: []string{"other"}}}
	var sent []string
	patch := func(_ context.Context, name string, data []byte) error {
		sent = append(sent, name+" "+string(data))
		return nil
	}
	if err := SetFinalizer(context.Background(), obj, "mine", true, patch); err != nil {
		t.Fatal(err)
	}
	if want := `s {"metadata":{"finalizers":["other","mine"],"resourceVersion":"7"}}`; len(sent) != 1 || sent[0] != want {
		t.Fatalf("patch = %v, want %s", sent, want)
	}
	obj.Finalizers = []string{"other", "mine"}
	sent = nil
	if err := SetFinalizer(context.Background(), obj, "mine", true, patch); err != nil || len(sent) != 0 {
		t.Fatalf("a present finalizer was patched again: %v %v", sent, err)
	}
	if err := SetFinalizer(context.Background(), obj, "mine", false, patch); err != nil {
		t.Fatal(err)
	}
	if want := `s {"metadata":{"finalizers":["other"],"resourceVersion":"7"}}`; len(sent) != 1 || sent[0] != want {
		t.Fatalf("patch = %v, want %s", sent, want)
	}
	if err := SetFinalizer(context.Background(), obj, "x", true, func(context.Context, string, []byte) error { return errBoom }); !errors.Is(err, errBoom) {
		t.Fatalf("the patch error was lost: %v", err)
	}
}

var errBoom = errors.New("conflict")

// TestLookupFinalizedMigratesLegacyNames: a live object holding an old name of the finalizer gets the new one
// instead, and a deleted one holding only the old name is cleaned up and released.
func TestLookupFinalizedMigratesLegacyNames(t *testing.T) {
	var sent []string
	patch := func(_ context.Context, name string, data []byte) error {
		sent = append(sent, string(data))
		return nil
	}
	live := &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "3", Finalizers: []string{"old", "other"}}}
	_, reconcile, err := LookupFinalized(context.Background(), func() (*aimv1.AIMTemplateCache, error) { return live, nil },
		"new", patch, func(*aimv1.AIMTemplateCache) error { t.Fatal("cleanup of a live object"); return nil }, "old")
	if want := `{"metadata":{"finalizers":["other","new"],"resourceVersion":"3"}}`; err != nil || reconcile || len(sent) != 1 || sent[0] != want {
		t.Fatalf("live: reconcile %v err %v patches %v, want %s", reconcile, err, sent, want)
	}
	sent = nil
	gone := live.DeepCopy()
	gone.DeletionTimestamp = &metav1.Time{}
	cleaned := false
	_, reconcile, err = LookupFinalized(context.Background(), func() (*aimv1.AIMTemplateCache, error) { return gone, nil },
		"new", patch, func(*aimv1.AIMTemplateCache) error { cleaned = true; return nil }, "old")
	if want := `{"metadata":{"finalizers":["other"],"resourceVersion":"3"}}`; err != nil || reconcile || !cleaned || len(sent) != 1 || sent[0] != want {
		t.Fatalf("deleted: reconcile %v err %v cleaned %v patches %v, want %s", reconcile, err, cleaned, sent, want)
	}
}

func TestFinish(t *testing.T) {
	obj := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n"}}
	transition := state.Output{Transitions: []state.Transition{{Type: "Ready", Reason: "Resolved", Status: metav1.ConditionTrue}}}
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "aimservices"}, "s", errors.New("modified"))
	applyErr := errors.New("apply failed")
	for _, tc := range []struct {
		name       string
		changed    bool
		writeErr   error
		out        state.Output
		applyErr   error
		requeue    time.Duration
		wantErr    string
		wantEvents int
		wantAfter  time.Duration
	}{
		{"unchanged: no write, events", false, errors.New("must not be called"), transition, nil, 0, "", 1, 0},
		{"written: events", true, nil, transition, nil, 0, "", 1, 0},
		{"requeue wanted", true, nil, transition, nil, time.Minute, "", 1, time.Minute},
		{"conflict: quiet, no events, no requeue", true, conflict, transition, nil, time.Minute, "", 0, 0},
		{"conflict keeps the apply error", true, conflict, transition, applyErr, 0, "apply failed", 0, 0},
		{"write error", true, errors.New("etcd down"), transition, nil, 0, "writing the status of thing: etcd down", 0, 0},
		{"apply error after the write", true, nil, transition, applyErr, time.Minute, "apply failed", 1, 0},
		{"infrastructure retry", false, nil, state.Output{Retry: true}, nil, time.Minute, "thing: infrastructure errors; retrying", 0, 0},
		{"infrastructure retry says why", false, nil, state.Output{Retry: true, Conditions: []metav1.Condition{
			state.Condition(state.ConditionDependenciesReachable, false, state.ReasonInfrastructureError, "registry.example: connection refused")}},
			nil, time.Minute, "thing: infrastructure errors; retrying: registry.example: connection refused", 0, 0},
	} {
		rec := record.NewFakeRecorder(10)
		stored := "old"
		if !tc.changed {
			stored = "new"
		}
		after, err := Finish(rec, End{Object: obj, What: "thing", Status: "new", Stored: stored, Write: func() error { return tc.writeErr },
			Out: tc.out, ApplyErr: tc.applyErr, RequeueAfter: tc.requeue})
		if got := fmt.Sprint(err); (tc.wantErr == "" && err != nil) || (tc.wantErr != "" && got != tc.wantErr) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.wantErr)
		}
		if after != tc.wantAfter {
			t.Errorf("%s: requeue after %s, want %s", tc.name, after, tc.wantAfter)
		}
		if len(rec.Events) != tc.wantEvents {
			t.Errorf("%s: %d events, want %d", tc.name, len(rec.Events), tc.wantEvents)
		}
	}
}

// TestSameStatus: the fast comparison of Finish keeps the semantic one's answers, both ways.
func TestSameStatus(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	stored := aimv1.AIMServiceStatus{Status: aimv1.AIMStatusRunning, ObservedGeneration: 2,
		Conditions:    []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "AllComponentsReady", LastTransitionTime: metav1.NewTime(at)}},
		ResolvedModel: &aimv1.AIMResolvedReference{Name: "m"}, TemplateMatching: &aimv1.AIMTemplateMatching{}}
	for _, tc := range []struct {
		name   string
		change func(*aimv1.AIMServiceStatus)
		same   bool
	}{
		{"a copy", func(*aimv1.AIMServiceStatus) {}, true},
		{"empty for nil", func(s *aimv1.AIMServiceStatus) { s.TemplateMatching.Candidates = []aimv1.AIMTemplateCandidate{} }, true},
		{"the same time elsewhere", func(s *aimv1.AIMServiceStatus) {
			s.Conditions[0].LastTransitionTime = metav1.NewTime(at.In(time.FixedZone("x", 3600)))
		}, true},
		{"a later time", func(s *aimv1.AIMServiceStatus) {
			s.Conditions[0].LastTransitionTime = metav1.NewTime(at.Add(time.Second))
		}, false},
		{"a reason", func(s *aimv1.AIMServiceStatus) { s.Conditions[0].Reason = "Progressing" }, false},
		{"a reference", func(s *aimv1.AIMServiceStatus) { s.ResolvedModel.Name = "n" }, false},
		{"a field set", func(s *aimv1.AIMServiceStatus) { s.Runtime = &aimv1.AIMServiceRuntimeStatus{} }, false},
		{"a condition more", func(s *aimv1.AIMServiceStatus) { s.Conditions = append(s.Conditions, metav1.Condition{Type: "X"}) }, false},
	} {
		derived := *stored.DeepCopy()
		tc.change(&derived)
		if got := sameStatus(derived, stored); got != tc.same {
			t.Errorf("%s: same %v, want %v", tc.name, got, tc.same)
		}
	}
}

func TestLookupFinalized(t *testing.T) {
	now := metav1.Now()
	svc := func(finalizers []string, deleted, paused bool) *aimv1.AIMService {
		s := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "s", Finalizers: finalizers}}
		if deleted {
			s.DeletionTimestamp = &now
		}
		if paused {
			s.Annotations = map[string]string{aimv1.AnnotationReconciliationPaused: "true"}
		}
		return s
	}
	const f = "aim.eai.amd.com/test"
	for _, tc := range []struct {
		name             string
		obj              *aimv1.AIMService
		getErr           error
		wantReconcile    bool
		wantCleanup      bool
		wantPatch        string // the finalizers patched, or "" for none
		wantErr, cleanup error
	}{
		{name: "gone", getErr: apierrors.NewNotFound(schema.GroupResource{}, "s")},
		{name: "live with the finalizer", obj: svc([]string{f}, false, false), wantReconcile: true},
		{name: "live without: adds it first", obj: svc(nil, false, false), wantPatch: `["aim.eai.amd.com/test"]`},
		{name: "paused, without it: the finalizer first, as aim-engine", obj: svc(nil, false, true), wantPatch: `["aim.eai.amd.com/test"]`},
		{name: "paused, with it: left alone", obj: svc([]string{f}, false, true)},
		{name: "deleted, even paused: cleanup, then off", obj: svc([]string{"other", f}, true, true), wantCleanup: true, wantPatch: `["other"]`},
		{name: "deleted without ours: nothing to do", obj: svc([]string{"other"}, true, false)},
		{name: "cleanup fails: the finalizer stays", obj: svc([]string{f}, true, false), wantCleanup: true, cleanup: errBoom, wantErr: errBoom},
	} {
		var patched string
		cleaned := false
		_, ok, err := LookupFinalized(context.Background(), func() (*aimv1.AIMService, error) { return tc.obj, tc.getErr }, f,
			func(_ context.Context, _ string, data []byte) error {
				var p struct {
					Metadata struct{ Finalizers json.RawMessage } `json:"metadata"`
				}
				_ = json.Unmarshal(data, &p)
				patched = string(p.Metadata.Finalizers)
				return nil
			}, func(*aimv1.AIMService) error { cleaned = true; return tc.cleanup })
		if ok != tc.wantReconcile || cleaned != tc.wantCleanup || patched != tc.wantPatch || !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: reconcile %v cleanup %v patch %s err %v", tc.name, ok, cleaned, patched, err)
		}
	}
}

func TestDeleteStale(t *testing.T) {
	owner := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team", UID: "svc-uid"}}
	mine := map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue}
	child := func(name string, labels map[string]string, controller bool, uid string) *aimv1.AIMServiceTemplate {
		return &aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", UID: "uid-" + types.UID(name), Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{Kind: "AIMService", Name: "chat", UID: types.UID(uid), Controller: &controller}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "aim-service-controller", Operation: metav1.ManagedFieldsOperationApply}}}}
	}
	// A user's copy of a child, made with kubectl from its YAML: labels and owner references and all.
	clone := child("users-clone", mine, true, "svc-uid")
	clone.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate}}
	deleting := child("deleting", mine, true, "svc-uid")
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	children := []*aimv1.AIMServiceTemplate{
		child("current", mine, true, "svc-uid"),
		child("earlier-name", mine, true, "svc-uid"),
		child("gone-meanwhile", mine, true, "svc-uid"),
		child("users-own", nil, true, "svc-uid"), // not made by aim-apiserver
		child("aim-engines", map[string]string{aimv1.LabelManagedBy: "aim-service-controller"}, true, "svc-uid"),
		child("not-controller", mine, false, "svc-uid"), // only an owner, not the controller
		child("other-service", mine, true, "other-uid"),
		deleting,
		clone,
	}
	rec := record.NewFakeRecorder(10)
	var deleted []string
	err := DeleteStale(context.Background(), rec, owner, []string{"aim-service-controller"}, "AIMServiceTemplate", children, []string{"current"},
		func(_ context.Context, name string, opts metav1.DeleteOptions) error {
			if opts.Preconditions == nil || *opts.Preconditions.UID != types.UID("uid-"+name) {
				t.Errorf("delete of %s without its UID as precondition: %+v", name, opts)
			}
			deleted = append(deleted, name)
			if name == "gone-meanwhile" {
				return apierrors.NewNotFound(schema.GroupResource{Resource: "aimservicetemplates"}, name)
			}
			return nil
		})
	if err != nil || fmt.Sprint(deleted) != "[earlier-name gone-meanwhile]" {
		t.Errorf("deleted %v, err %v; want earlier-name and gone-meanwhile", deleted, err)
	}
	if len(rec.Events) != 1 {
		t.Errorf("%d events, want one for the deletion that happened", len(rec.Events))
	}
	boom := errors.New("forbidden")
	if err := DeleteStale(context.Background(), rec, owner, []string{"aim-service-controller"}, "AIMServiceTemplate", children, nil,
		func(context.Context, string, metav1.DeleteOptions) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("a failed delete returned %v", err)
	}
}

// TestDeleteUnneeded: each object is deleted on its UID; one gone or re-created meanwhile is no error and is not
// reported deleted, and the first failure stops the deletes and names the object.
func TestDeleteUnneeded(t *testing.T) {
	objs := []*aimv1.AIMArtifact{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "team", UID: "uid-a"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: "team", UID: "uid-gone"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "recreated", Namespace: "team", UID: "uid-recreated"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "forbidden", Namespace: "team", UID: "uid-forbidden"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "after", Namespace: "team", UID: "uid-after"}},
	}
	boom := errors.New("forbidden")
	var tried, heard []string
	err := DeleteUnneeded(context.Background(), "artifact", objs, func(_ context.Context, name string, opts metav1.DeleteOptions) error {
		if opts.Preconditions == nil || *opts.Preconditions.UID != types.UID("uid-"+name) {
			t.Errorf("delete of %s without its UID as precondition: %+v", name, opts)
		}
		tried = append(tried, name)
		switch name {
		case "gone":
			return apierrors.NewNotFound(schema.GroupResource{Resource: "aimartifacts"}, name)
		case "recreated":
			return apierrors.NewConflict(schema.GroupResource{Resource: "aimartifacts"}, name, errors.New("the UID in the precondition does not match"))
		case "forbidden":
			return boom
		}
		return nil
	}, func(a *aimv1.AIMArtifact) { heard = append(heard, a.Name) })
	if !errors.Is(err, boom) || err.Error() != "deleting unneeded artifact team/forbidden: forbidden" {
		t.Errorf("error %v", err)
	}
	if fmt.Sprint(tried) != "[a gone recreated forbidden]" || fmt.Sprint(heard) != "[a]" {
		t.Errorf("tried %v, heard of %v", tried, heard)
	}
}

// TestCreateShared: an object absent is created with the field manager; one that exists is no error and is not
// written again; any other refusal names the object.
func TestCreateShared(t *testing.T) {
	boom := errors.New("quota exceeded")
	var sent []string
	create := func(_ context.Context, m *aimv1.AIMModel, opts metav1.CreateOptions) (*aimv1.AIMModel, error) {
		sent = append(sent, m.Name+" by "+opts.FieldManager)
		switch m.Name {
		case "exists":
			return nil, apierrors.NewAlreadyExists(schema.GroupResource{Group: aimv1.GroupName, Resource: "aimmodels"}, m.Name)
		case "refused":
			return nil, boom
		}
		return m, nil
	}
	model := func(name string) *aimv1.AIMModel {
		return &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team"}}
	}
	for _, name := range []string{"new", "exists"} {
		if err := CreateShared(context.Background(), "AIMModel", model(name), create, "aim-service-controller"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := CreateShared(context.Background(), "AIMModel", model("refused"), create, "aim-service-controller")
	if !errors.Is(err, boom) || err.Error() != "creating AIMModel team/refused: quota exceeded" {
		t.Errorf("refused: %v", err)
	}
	if want := "[new by aim-service-controller exists by aim-service-controller refused by aim-service-controller]"; fmt.Sprint(sent) != want {
		t.Errorf("sent %v, want %v", sent, want)
	}
}

func TestMadeBy(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "d", ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate},
		{Manager: "aim-model-controller", Operation: metav1.ManagedFieldsOperationApply}}}}
	if !MadeBy(job, "aim-model-controller") || MadeBy(job, "aim-service-controller") {
		t.Error("MadeBy does not read the managers")
	}
	// A controller's name and the one it had in an earlier release.
	if !MadeBy(job, "aim-cluster-model-controller", "aim-model-controller") || MadeBy(job, "aim-cluster-model-controller") {
		t.Error("MadeBy does not take either of several names")
	}
}

// TestEventMessage: an Event says what the condition's message says, else aim-engine's "<component> is ready:
// <reason>".
func TestEventMessage(t *testing.T) {
	for _, tc := range []struct {
		tr   state.Transition
		want string
	}{
		{state.Transition{Type: "ModelReady", Status: metav1.ConditionFalse, Reason: "ModelNotFound", Message: "no model qwen"}, "no model qwen"},
		{state.Transition{Type: "ModelReady", Status: metav1.ConditionTrue, Reason: "ModelResolved"}, "Model is ready: ModelResolved"},
		{state.Transition{Type: "CacheReady", Status: metav1.ConditionFalse, Reason: "CacheNotReady"}, "Cache is not ready: CacheNotReady"},
		{state.Transition{Type: "Ready", Status: metav1.ConditionUnknown, Reason: "Progressing"}, "status unknown: Progressing"},
	} {
		if got := EventMessage(tc.tr); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.tr, got, tc.want)
		}
	}
}
