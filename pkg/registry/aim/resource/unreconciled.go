package resource

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
)

// ReasonControllerNotRunning is the Ready reason of objects created where no controller runs (local mode
// without --workload-kubeconfig).
const ReasonControllerNotRunning = "ControllerNotRunning"

// MarkUnreconciled makes every object created through r start with Ready=Unknown, reason ControllerNotRunning
// and message, instead of a bare Pending: where no controller runs, the status says so and how to start one. A
// controller that later runs replaces the condition with its own.
func (r *REST) MarkUnreconciled(message string) {
	r.CreateStrategy = unreconciled{RESTCreateStrategy: r.CreateStrategy, message: message}
}

type unreconciled struct {
	rest.RESTCreateStrategy
	message string
}

func (u unreconciled) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	u.RESTCreateStrategy.PrepareForCreate(ctx, obj)
	conditions := reflect.ValueOf(obj).Elem().FieldByName("Status").FieldByName("Conditions")
	conditions.Set(reflect.ValueOf([]metav1.Condition{{
		Type: "Ready", Status: metav1.ConditionUnknown, Reason: ReasonControllerNotRunning, Message: u.message,
		LastTransitionTime: metav1.Now(),
	}}))
}
