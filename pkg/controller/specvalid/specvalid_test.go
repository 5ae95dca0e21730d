package specvalid

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

func TestService(t *testing.T) {
	svc := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team"},
		Spec: aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: ptr.To("qwen")}}}
	if err := Service(svc); err != nil {
		t.Fatalf("valid service: %v", err)
	}
	svc.Spec.Replicas = ptr.To[int32](-1)
	err := Service(svc)
	var se *state.Error
	if !errors.As(err, &se) || se.Category != state.InvalidSpec || se.Reason != Reason || !strings.Contains(err.Error(), "spec.replicas") {
		t.Fatalf("replicas -1: %v", err)
	}
}

func TestErrorBoundsTheMessage(t *testing.T) {
	if Error(nil) != nil {
		t.Fatal("no field errors must be no error")
	}
	var errs field.ErrorList
	for _, f := range []string{"a", "b", "c", "d", "e"} {
		errs = append(errs, field.Required(field.NewPath("spec", f), ""))
	}
	msg := Error(errs).Error()
	if !strings.Contains(msg, "spec.c") || strings.Contains(msg, "spec.d") || !strings.Contains(msg, "and 2 more") {
		t.Errorf("message: %s", msg)
	}
}

// TestErrorIsTheSameEveryTime: validation walks maps, whose order changes from call to call; the message does not,
// or the status quoting it would be written on every reconcile.
func TestErrorIsTheSameEveryTime(t *testing.T) {
	errs := field.ErrorList{field.Invalid(field.NewPath("spec", "routing", "annotations").Key("b"), "x", "bad"),
		field.Invalid(field.NewPath("spec", "routing", "annotations").Key("a"), "x", "bad"),
		field.Required(field.NewPath("spec", "model"), "")}
	want := Error(errs).Error()
	if got := Error(field.ErrorList{errs[2], errs[0], errs[1]}).Error(); got != want {
		t.Errorf("another order gives another message:\n%s\n%s", got, want)
	}
	if i, j := strings.Index(want, "annotations[a]"), strings.Index(want, "annotations[b]"); i < 0 || j < i {
		t.Errorf("not sorted by field: %s", want)
	}
}
