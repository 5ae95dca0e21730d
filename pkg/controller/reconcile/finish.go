// Package reconcile is the toolkit every AIM controller ends and acts with: the lookup of the object a
// reconcile is about, finalizers, server-side apply of children only when they changed or drifted, the sweep
// of stale children, and the one way a reconcile ends (Finish).
package reconcile

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/expectations"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// RecordTransitions turns condition transitions into Events: Warning for bad news, Normal otherwise; the reason is
// the condition's and the message as aim-engine words it (EventMessage).
func RecordTransitions(rec record.EventRecorder, obj runtime.Object, transitions []state.Transition) {
	for _, tr := range transitions {
		typ := corev1.EventTypeNormal
		if tr.Warning {
			typ = corev1.EventTypeWarning
		}
		rec.Event(obj, typ, tr.Reason, EventMessage(tr))
	}
}

// EventMessage is an Event's message for a condition transition, as aim-engine's buildEventMessage words it: the
// condition's message, or without one "<component> is ready: <reason>" ("is not ready", "status unknown").
func EventMessage(tr state.Transition) string {
	if tr.Message != "" {
		return tr.Message
	}
	status := "status unknown"
	switch tr.Status {
	case metav1.ConditionTrue:
		status = "is ready"
	case metav1.ConditionFalse:
		status = "is not ready"
	}
	// The Ready condition names no component: no leading space then.
	return strings.TrimSpace(fmt.Sprintf("%s %s: %s", strings.TrimSuffix(tr.Type, state.ComponentSuffix), status, tr.Reason))
}

// End is the outcome of one reconcile of an AIM object, for Finish.
type End struct {
	// Object is what Events are recorded on; What names it in errors.
	Object runtime.Object
	What   string
	// Status is the derived status and Stored the object's: when they differ (semantically), Write stores
	// Status, carrying the resourceVersion read (UpdateStatus).
	Status, Stored any
	Write          func() error
	Out            state.Output
	// ApplyErr is the first error applying children: returned, so the key is retried with backoff.
	ApplyErr error
	// RequeueAfter asks for another reconcile after this long when nothing failed: for what is not watched
	// (pull secrets), a discovery slot, a sync interval.
	RequeueAfter time.Duration
}

// Finish ends a reconcile the same way for every kind. It writes the status when it changed (the write carries
// the resourceVersion read, so nothing newer is overwritten: a conflict, or an object gone meanwhile, ends the
// reconcile quietly, and the newer version's watch event brings the object back), records Events for the
// transitions that were written, then reports an apply error, asks for a retry after infrastructure errors, or
// for the requeue the reconcile wants.
func Finish(rec record.EventRecorder, e End) (time.Duration, error) {
	if !sameStatus(e.Status, e.Stored) {
		err := e.Write()
		switch {
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
			return 0, e.ApplyErr
		case err != nil:
			return 0, fmt.Errorf("writing the status of %s: %w", e.What, err)
		}
	}
	RecordTransitions(rec, e.Object, e.Out.Transitions)
	if e.ApplyErr != nil {
		return 0, e.ApplyErr
	}
	if e.Out.Retry {
		// DependenciesReachable says which, as the status shows it: redacted and bounded.
		cause := ""
		if c := meta.FindStatusCondition(e.Out.Conditions, state.ConditionDependenciesReachable); c != nil && c.Message != "" {
			cause = ": " + c.Message
		}
		return 0, fmt.Errorf("%s: infrastructure errors; retrying%s", e.What, cause)
	}
	return e.RequeueAfter, nil
}

// sameStatus reports whether a derived status is semantically the stored one (apiequality.Semantic: nil and
// empty alike, times by value; the controller writes quantities in their canonical text). Values that are
// identical are semantically equal, and reflect.DeepEqual finds that out ten times faster, without allocating:
// in a steady state, where the derived status carries the stored one's times and the same nil fields, the
// semantic comparison, which calls a function through reflection for every time and defers at every value, is
// left for the statuses that differ.
func sameStatus(status, stored any) bool {
	return reflect.DeepEqual(status, stored) || apiequality.Semantic.DeepEqual(status, stored)
}

// StatusWriter returns the write of a status of obj through update (a typed client's UpdateStatus): the status
// goes into a copy of obj, which carries the resourceVersion read, so that nothing newer is overwritten.
func StatusWriter[T interface {
	DeepCopy() T
	GetStatus() *S
	metav1.Object
}, S any](ctx context.Context, obj T, update func(context.Context, T, metav1.UpdateOptions) (T, error), fieldManager string) func(S) error {
	return TrackedStatusWriter(ctx, obj, update, fieldManager, nil, "")
}

// WriteSettle is how long a reconcile that finds its own last status write unseen (expectations.Writes) waits for
// the cache to show it: the informer delivers it within milliseconds.
const WriteSettle = time.Second

// TrackedStatusWriter is StatusWriter that also records, under key in written, a write that gave obj a new
// resourceVersion: until the cache shows the write, written.Unseen(key, ...) says so. A controller whose
// reconcile does outside work that its status records as done (a registry read, a listing) checks it first.
func TrackedStatusWriter[T interface {
	DeepCopy() T
	GetStatus() *S
	metav1.Object
}, S any](ctx context.Context, obj T, update func(context.Context, T, metav1.UpdateOptions) (T, error), fieldManager string,
	written *expectations.Writes, key string) func(S) error {
	return func(status S) error {
		u := obj.DeepCopy()
		*u.GetStatus() = status
		out, err := update(ctx, u, metav1.UpdateOptions{FieldManager: fieldManager})
		if err == nil && written != nil && out.GetResourceVersion() != obj.GetResourceVersion() {
			written.Wrote(key, obj.GetResourceVersion())
		}
		return err
	}
}
