package reconcile

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Every status the controller derives offers what Conclude sets.
var (
	_ Summary = (*aimv1.AIMModelStatus)(nil)
	_ Summary = (*aimv1.AIMServiceTemplateStatus)(nil)
	_ Summary = (*aimv1.AIMServiceStatus)(nil)
	_ Summary = (*aimv1.AIMTemplateCacheStatus)(nil)
	_ Summary = (*aimv1.AIMArtifactStatus)(nil)
	_ Summary = (*aimv1.AIMClusterModelSourceStatus)(nil)
)

// TestConclude: the derived conditions and summary go into the planned status, in the kind's words, against the
// stored conditions and the object's generation; the status is written once, and not again when it is stored.
func TestConclude(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	svc := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n", Generation: 3}}
	planned := aimv1.AIMServiceStatus{ObservedGeneration: 3, ResolvedModel: &aimv1.AIMResolvedReference{Name: "qwen"}}
	isvc := state.Component{Name: "InferenceService", Dependency: state.DependencyDownstream, State: aimv1.AIMStatusReady, Reason: "Ready"}
	var written []aimv1.AIMServiceStatus
	write := func(s aimv1.AIMServiceStatus) error { written = append(written, s); return nil }

	rec := record.NewFakeRecorder(10)
	if _, err := Conclude(rec, svc, "AIMService n/s", svc.Status, planned, Outcome{Components: []state.Component{isvc}, Now: at}, write); err != nil {
		t.Fatal(err)
	}
	if len(written) != 1 {
		t.Fatalf("%d writes, want 1", len(written))
	}
	got := written[0]
	if got.Status != aimv1.AIMStatusRunning {
		t.Errorf("status %s, want %s (an AIMService's word for Ready)", got.Status, aimv1.AIMStatusRunning)
	}
	if got.ResolvedModel == nil || got.ResolvedModel.Name != "qwen" {
		t.Errorf("the plan's fields are lost: resolvedModel %+v", got.ResolvedModel)
	}
	c := meta.FindStatusCondition(got.Conditions, "InferenceServiceReady")
	if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != 3 || !c.LastTransitionTime.Time.Equal(at) {
		t.Errorf("InferenceServiceReady = %+v, want True at generation 3, since %s", c, at)
	}
	if len(rec.Events) == 0 {
		t.Error("no Events for the transitions written")
	}

	// Stored as written: a later reconcile derives the same status and writes nothing.
	svc.Status = got
	if _, err := Conclude(record.NewFakeRecorder(10), svc, "AIMService n/s", svc.Status, planned, Outcome{Components: []state.Component{isvc}, Now: at.Add(time.Minute)}, write); err != nil {
		t.Fatal(err)
	}
	if len(written) != 1 {
		t.Errorf("%d writes of an unchanged status, want none: %s", len(written)-1, cmp.Diff(written[0], written[len(written)-1]))
	}

	// Other kinds keep the framework's words.
	tmpl := &aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "n", Generation: 1}}
	var tw aimv1.AIMServiceTemplateStatus
	if _, err := Conclude(record.NewFakeRecorder(10), tmpl, "template t", tmpl.Status, aimv1.AIMServiceTemplateStatus{},
		Outcome{Components: []state.Component{isvc}, Now: at}, func(s aimv1.AIMServiceTemplateStatus) error { tw = s; return nil }); err != nil {
		t.Fatal(err)
	}
	if tw.Status != aimv1.AIMStatusReady {
		t.Errorf("template status %s, want %s", tw.Status, aimv1.AIMStatusReady)
	}
}

// TestStatusWriter: the status goes into a copy that carries the resourceVersion read; the object read is left
// as it is (it is the informer's).
func TestStatusWriter(t *testing.T) {
	read := &aimv1.AIMArtifact{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "n", ResourceVersion: "42"}}
	var sent *aimv1.AIMArtifact
	var opts metav1.UpdateOptions
	update := func(_ context.Context, a *aimv1.AIMArtifact, o metav1.UpdateOptions) (*aimv1.AIMArtifact, error) {
		sent, opts = a, o
		return a, nil
	}
	if err := StatusWriter(context.Background(), read, update, "aim-controller")(aimv1.AIMArtifactStatus{Status: aimv1.AIMStatusReady}); err != nil {
		t.Fatal(err)
	}
	if sent == read || sent.ResourceVersion != "42" || sent.Status.Status != aimv1.AIMStatusReady || opts.FieldManager != "aim-controller" {
		t.Errorf("sent %+v with %+v, want a copy at resourceVersion 42 with status Ready, field manager aim-controller", sent, opts)
	}
	if read.Status.Status != "" {
		t.Errorf("the object read was changed: status %s", read.Status.Status)
	}
}
