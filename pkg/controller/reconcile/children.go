package reconcile

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// OwnedBy reports whether obj has an owner reference to uid.
func OwnedBy(obj metav1.Object, uid types.UID) bool {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// CreateShared creates an object several owners share (a model of an image, a Shared cache or artifact), with
// the controller's field manager: one that exists is used as the first owner made it, so that owners asking for
// it at once do not fight over its spec. Errors name the object as one of kind.
func CreateShared[T metav1.Object](ctx context.Context, kind string, obj T, create func(context.Context, T, metav1.CreateOptions) (T, error),
	fieldManager string) error {
	if _, err := create(ctx, obj, metav1.CreateOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %s %s/%s: %w", kind, obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// ReasonStaleChildDeleted is the reason of the Event recorded for each child DeleteStale deletes.
const ReasonStaleChildDeleted = "StaleChildDeleted"

// DeleteStale deletes the children of a kind a controller made for an owner under a name it no longer
// wants, for instance the name an earlier release derived, and records an Event on the owner for each:
// children the owner controls (controller reference to its UID) that carry the managed-by label of
// aim-apiserver, that one of fieldManagers wrote (MadeBy: the controller's, and names it had in earlier
// releases), and are not named in keep. A user's object, one adopted
// without the label, and a user's copy of a child (aim-engine's documented way to make a template for a new
// GPU copies a template with its labels and owner references) are never deleted. Each delete is conditional
// on the UID that was seen, so that an object re-created under the name meanwhile stays.
func DeleteStale[T metav1.Object](ctx context.Context, rec record.EventRecorder, owner interface {
	runtime.Object
	metav1.Object
}, fieldManagers []string, kind string, children []T, keep []string, del func(ctx context.Context, name string, opts metav1.DeleteOptions) error) error {
	for _, c := range Stale(owner.GetUID(), fieldManagers, children, keep) {
		deleted, err := DeleteSeen(ctx, c, del)
		if err != nil {
			return fmt.Errorf("deleting %s %s/%s, which is no longer used: %w", kind, c.GetNamespace(), c.GetName(), err)
		}
		if deleted {
			StaleDeleted[T](rec, owner, kind)(c)
		}
	}
	return nil
}

// StaleDeleted records the Event of a child of kind deleted as no longer used (ReasonStaleChildDeleted) on owner,
// for DeleteStale and for DeleteUnneeded's callers that delete such children.
func StaleDeleted[T metav1.Object](rec record.EventRecorder, owner runtime.Object, kind string) func(T) {
	return func(c T) {
		rec.Eventf(owner, corev1.EventTypeNormal, ReasonStaleChildDeleted, "Deleted %s %s, which is no longer used", kind, c.GetName())
	}
}

// Stale are the children DeleteStale deletes: those the owner of uid controls, that carry aim-apiserver's
// managed-by label, that one of fieldManagers wrote, that are not being deleted and are not named in keep.
func Stale[T metav1.Object](uid types.UID, fieldManagers []string, children []T, keep []string) []T {
	var out []T
	for _, c := range children {
		ref := metav1.GetControllerOf(c)
		if ref == nil || ref.UID != uid || c.GetLabels()[aimv1.LabelManagedBy] != aimv1.ManagedByValue ||
			!MadeBy(c, fieldManagers...) || c.GetDeletionTimestamp() != nil || slices.Contains(keep, c.GetName()) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// DeleteUnneeded deletes what an owner being deleted leaves unneeded, each as DeleteSeen does, and stops at the
// first error, which names the object as one of kind; deleted, when set, hears of each object this call deleted
// (not of one gone meanwhile, nor of one re-created under its name, which stays).
func DeleteUnneeded[T metav1.Object](ctx context.Context, kind string, objs []T,
	del func(ctx context.Context, name string, opts metav1.DeleteOptions) error, deleted func(T)) error {
	for _, o := range objs {
		gone, err := DeleteSeen(ctx, o, del)
		if err != nil {
			return fmt.Errorf("deleting unneeded %s %s/%s: %w", kind, o.GetNamespace(), o.GetName(), err)
		}
		if gone && deleted != nil {
			deleted(o)
		}
	}
	return nil
}

// DeleteSeen deletes obj on the condition that its UID is still the one seen, so that an object re-created under
// its name meanwhile stays; it reports whether it deleted. An object gone, or replaced, is not an error.
func DeleteSeen(ctx context.Context, obj metav1.Object, del func(ctx context.Context, name string, opts metav1.DeleteOptions) error) (bool, error) {
	uid := obj.GetUID()
	err := del(ctx, obj.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return false, nil
	}
	return false, err
}

// MadeBy reports whether one of fieldManagers wrote obj, as the server records it in managedFields: what tells
// a controller's child from a copy a user made of it, labels and owner references included.
func MadeBy(obj metav1.Object, fieldManagers ...string) bool {
	for _, f := range obj.GetManagedFields() {
		if slices.Contains(fieldManagers, f.Manager) {
			return true
		}
	}
	return false
}
