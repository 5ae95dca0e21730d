package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/expectations"
)

// Lookup fetches the object a reconcile is about and says whether to reconcile it: not when it is gone or being
// deleted (its children go with it through owner references), nor when paused by the reconciliation-paused
// annotation. A foreground deletion (kubectl delete --cascade=foreground, Argo CD's default) deletes the
// children first and keeps the owner until they are gone, as their blockOwnerDeletion asks: applying them again
// meanwhile would hold the owner back for as long as the controller keeps up, as the Job controller, which stops
// making pods for a Job being deleted, avoids too.
func Lookup[T metav1.Object](get func() (T, error)) (obj T, reconcile bool, err error) {
	obj, err = get()
	switch {
	case apierrors.IsNotFound(err):
		return obj, false, nil
	case err != nil:
		return obj, false, err
	case obj.GetDeletionTimestamp() != nil, aimv1.Paused(obj.GetAnnotations()):
		return obj, false, nil
	}
	return obj, true, nil
}

// LookupWritten is Lookup for a controller that records its status writes (TrackedStatusWriter, under key in
// written). While the cache shows the object from before the last of them, it does not reconcile and says to
// look again after WriteSettle: the events a reconcile causes (of the children it applied) may come before its
// status, and a reconcile of the older object would redo what the status records as done. An object that is
// gone is forgotten.
func LookupWritten[T metav1.Object](get func() (T, error), written *expectations.Writes, key string) (obj T, reconcile bool, after time.Duration, err error) {
	obj, reconcile, err = Lookup(get)
	switch {
	case !reconcile:
		written.Forget(key)
	case written.Unseen(key, obj.GetResourceVersion()):
		return obj, false, WriteSettle, nil
	}
	return obj, reconcile, 0, err
}

// SetFinalizer adds (present) or removes a finalizer, and removes the legacy names of it, with a merge patch
// that carries the object's resourceVersion, so that a concurrent change of the list conflicts instead of
// being lost. It does nothing when the list already is as wanted.
func SetFinalizer(ctx context.Context, obj metav1.Object, finalizer string, present bool,
	patch func(ctx context.Context, name string, data []byte) error, legacy ...string) error {
	list := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool {
		return f == finalizer || slices.Contains(legacy, f)
	})
	if present {
		list = append(list, finalizer)
	}
	if slices.Equal(list, obj.GetFinalizers()) {
		return nil
	}
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": obj.GetResourceVersion(), "finalizers": list}})
	if err != nil {
		return err
	}
	if err := patch(ctx, obj.GetName(), data); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("setting finalizer %s on %s: %w", finalizer, obj.GetName(), err)
	}
	return nil
}

// LookupFinalized is Lookup for kinds whose controller holds a finalizer. A deleted object that still has it
// (or one of its legacy names) gets cleanup run and then loses it, even when paused, so that a pause never
// blocks a deletion. A live object is reconciled only once it has the finalizer and no legacy name of it:
// otherwise the list is fixed and the patch's watch event brings the object back.
func LookupFinalized[T metav1.Object](ctx context.Context, get func() (T, error), finalizer string,
	patch func(ctx context.Context, name string, data []byte) error, cleanup func(T) error, legacy ...string) (obj T, reconcile bool, err error) {
	obj, err = get()
	if err != nil {
		if apierrors.IsNotFound(err) {
			return obj, false, nil
		}
		return obj, false, err
	}
	held := slices.ContainsFunc(obj.GetFinalizers(), func(f string) bool { return f == finalizer || slices.Contains(legacy, f) })
	switch {
	case obj.GetDeletionTimestamp() != nil:
		if !held {
			return obj, false, nil
		}
		if err := cleanup(obj); err != nil {
			return obj, false, err
		}
		return obj, false, SetFinalizer(ctx, obj, finalizer, false, patch, legacy...)
	case !slices.Contains(obj.GetFinalizers(), finalizer) || slices.ContainsFunc(obj.GetFinalizers(), func(f string) bool { return slices.Contains(legacy, f) }):
		// Before the pause check, as aim-engine orders them: a paused object is still cleaned up when deleted.
		return obj, false, SetFinalizer(ctx, obj, finalizer, true, patch, legacy...)
	case aimv1.Paused(obj.GetAnnotations()):
		return obj, false, nil
	}
	return obj, true, nil
}
