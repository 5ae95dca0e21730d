package manager

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corelisters "k8s.io/client-go/listers/core/v1"

	batchv1 "k8s.io/api/batch/v1"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// RecordTransitions turns condition transitions into Events: Warning for bad news, Normal otherwise.
func RecordTransitions(rec record.EventRecorder, obj runtime.Object, transitions []state.Transition) {
	for _, tr := range transitions {
		typ := corev1.EventTypeNormal
		if tr.Warning {
			typ = corev1.EventTypeWarning
		}
		rec.Event(obj, typ, tr.Reason, fmt.Sprintf("%s is %s: %s", tr.Type, tr.Status, tr.Message))
	}
}

// OwnedBy reports whether obj has an owner reference to uid.
func OwnedBy(obj metav1.Object, uid types.UID) bool {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// ReasonStaleChildDeleted is the reason of the Event recorded for each child DeleteStale deletes.
const ReasonStaleChildDeleted = "StaleChildDeleted"

// DeleteStale deletes the children of a kind a controller made for an owner under a name it no longer
// wants, for instance the name an earlier release derived, and records an Event on the owner for each:
// children the owner controls (controller reference to its UID) that carry the managed-by label of
// aim-apiserver, that fieldManager wrote (MadeBy), and are not named in keep. A user's object, one adopted
// without the label, and a user's copy of a child (aim-engine's documented way to make a template for a new
// GPU copies a template with its labels and owner references) are never deleted. Each delete is conditional
// on the UID that was seen, so that an object re-created under the name meanwhile stays.
func DeleteStale[T metav1.Object](ctx context.Context, rec record.EventRecorder, owner interface {
	runtime.Object
	metav1.Object
}, fieldManager, kind string, children []T, keep []string, del func(ctx context.Context, name string, opts metav1.DeleteOptions) error) error {
	for _, c := range children {
		ref := metav1.GetControllerOf(c)
		if ref == nil || ref.UID != owner.GetUID() || c.GetLabels()[aimv1.LabelManagedBy] != aimv1.ManagedByValue ||
			!MadeBy(c, fieldManager) || c.GetDeletionTimestamp() != nil || slices.Contains(keep, c.GetName()) {
			continue
		}
		uid := c.GetUID()
		err := del(ctx, c.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		switch {
		case err == nil:
			rec.Eventf(owner, corev1.EventTypeNormal, ReasonStaleChildDeleted, "Deleted %s %s, which is no longer used", kind, c.GetName())
		case !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
			return fmt.Errorf("deleting %s %s/%s, which is no longer used: %w", kind, c.GetNamespace(), c.GetName(), err)
		}
	}
	return nil
}

// Owners routes events of child objects to the controllers of their AIM owners. Keys are owner kinds; a
// namespaced owner shares its child's namespace, a cluster-scoped owner has none.
type Owners map[string]OwnerController

// OwnerController is the controller of an owner kind and whether that kind is namespaced.
type OwnerController struct {
	Controller *Controller
	Namespaced bool
}

// Enqueue adds the keys of an object's AIM owners.
func (o Owners) Enqueue(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	o.EnqueueRefs(m.GetNamespace(), m.GetOwnerReferences())
}

// EnqueueRefs adds the keys of the AIM owners in refs, for a child in namespace.
func (o Owners) EnqueueRefs(namespace string, refs []metav1.OwnerReference) {
	for _, r := range refs {
		oc, ok := o[r.Kind]
		if !ok || r.APIVersion != aimv1.SchemeGroupVersion.String() {
			continue
		}
		if !oc.Namespaced {
			oc.Controller.Add(cache.NewObjectName("", r.Name))
			continue
		}
		oc.Controller.Add(cache.NewObjectName(namespace, r.Name))
	}
}

// Handler enqueues owners on every event of a child.
func (o Owners) Handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: o.Enqueue, UpdateFunc: func(_, obj any) { o.Enqueue(obj) }, DeleteFunc: o.Enqueue}
}

// Lookup fetches the object a reconcile is about and says whether to reconcile it: not when it is gone (its
// children go with it through owner references) or paused by the reconciliation-paused annotation.
func Lookup[T metav1.Object](get func() (T, error)) (obj T, reconcile bool, err error) {
	obj, err = get()
	switch {
	case apierrors.IsNotFound(err):
		return obj, false, nil
	case err != nil:
		return obj, false, err
	case aimv1.Paused(obj.GetAnnotations()):
		return obj, false, nil
	}
	return obj, true, nil
}

// JobOutcome reports whether a Job finished and, when it failed, why (redacted: it goes into conditions).
func JobOutcome(job *batchv1.Job) (finished bool, failed string) {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return true, ""
		case batchv1.JobFailed:
			if msg := strings.TrimSpace(c.Reason + ": " + c.Message); msg != ":" {
				return true, redact.Excerpt(msg, redact.DefaultLimit)
			}
			return true, "failed"
		}
	}
	return false, ""
}

// JobPodHandler routes events of a Job's pods to the AIM owners of the Job.
func JobPodHandler(jobs batchlisters.JobLister, owners Owners) cache.ResourceEventHandler {
	enqueue := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		if j, err := jobs.Jobs(pod.Namespace).Get(pod.Labels[batchv1.JobNameLabel]); err == nil {
			owners.EnqueueRefs(j.Namespace, j.OwnerReferences)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue}
}

// PodEventHandler passes the pod an event is about (a Warning: FailedScheduling, FailedMount, a refused pull)
// to the pod handler next, as if the pod had changed.
func PodEventHandler(pods corelisters.PodLister, next cache.ResourceEventHandler) cache.ResourceEventHandler {
	forward := func(obj any) {
		e, ok := obj.(*corev1.Event)
		if !ok || e.InvolvedObject.Kind != "Pod" {
			return
		}
		if pod, err := pods.Pods(e.InvolvedObject.Namespace).Get(e.InvolvedObject.Name); err == nil {
			next.OnUpdate(pod, pod)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: forward, UpdateFunc: func(_, o any) { forward(o) }}
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
	case aimv1.Paused(obj.GetAnnotations()):
		return obj, false, nil
	case !slices.Contains(obj.GetFinalizers(), finalizer) || slices.ContainsFunc(obj.GetFinalizers(), func(f string) bool { return slices.Contains(legacy, f) }):
		return obj, false, SetFinalizer(ctx, obj, finalizer, true, patch, legacy...)
	}
	return obj, true, nil
}

// End is the outcome of one reconcile of an AIM object, for Finish.
type End struct {
	// Object is what Events are recorded on; What names it in errors.
	Object runtime.Object
	What   string
	// Changed reports whether the derived status differs from the stored one; Write stores it, carrying the
	// resourceVersion read.
	Changed bool
	Write   func() error
	Out     state.Output
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
	if e.Changed {
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
		return 0, fmt.Errorf("%s: infrastructure errors; retrying", e.What)
	}
	return e.RequeueAfter, nil
}
