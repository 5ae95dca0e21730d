package manager

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// EventObject is the object of an informer event as a T. A deleted object whose final state the informer
// missed (its watch was broken while it went) comes wrapped in a DeletedFinalStateUnknown, which is unwrapped.
func EventObject[T any](obj any) (T, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	t, ok := obj.(T)
	return t, ok
}

// OnEvery is an event handler that calls f with the object of every add, update (the new object) and delete
// that is a T.
func OnEvery[T any](f func(T)) cache.ResourceEventHandler {
	call := func(obj any) {
		if t, ok := EventObject[T](obj); ok {
			f(t)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: call, UpdateFunc: func(_, obj any) { call(obj) }, DeleteFunc: call}
}

// OnSpecChange passes h the adds and deletes, and the updates that change an object's spec (a new generation) or
// begin its deletion: for a dependency whose dependents read its spec alone, so that writes of its status or
// metadata do not re-queue them.
func OnSpecChange(h cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { h.OnAdd(obj, false) },
		UpdateFunc: func(old, obj any) {
			o, ok1 := old.(metav1.Object)
			n, ok2 := obj.(metav1.Object)
			if !ok1 || !ok2 || o.GetGeneration() != n.GetGeneration() || (o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) {
				h.OnUpdate(old, obj)
			}
		},
		DeleteFunc: h.OnDelete,
	}
}

// ControllerIndex indexes objects by the UID of their controller (the owner reference with controller: true).
const ControllerIndex = "controller-uid"

// IndexByController is the index function of ControllerIndex.
func IndexByController(obj any) ([]string, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, nil
	}
	if ref := metav1.GetControllerOfNoCopy(m); ref != nil {
		return []string{string(ref.UID)}, nil
	}
	return nil, nil
}

// Controlled are the objects of an indexer with ControllerIndex whose controller is uid: a parent's children
// without a scan of its namespace, which would make every resync quadratic in the namespace's size.
func Controlled(indexer cache.Indexer, uid types.UID) []metav1.Object {
	items, _ := indexer.ByIndex(ControllerIndex, string(uid))
	out := make([]metav1.Object, 0, len(items))
	for _, item := range items {
		if m, ok := item.(metav1.Object); ok {
			out = append(out, m)
		}
	}
	return out
}

// Dependency is an informer of objects a controller reads but does not reconcile (the children of its objects,
// what they name, what else its reconcile reads) and the handler that maps their events to the controller's keys.
type Dependency struct {
	Informer cache.SharedIndexInformer
	Handler  cache.ResourceEventHandler
}

// Watch registers the handlers of a controller's dependencies without the periodic resync. The resync
// re-delivers every object to its own controller (Controller.Handler), whose reconcile reads its dependencies
// from the caches and corrects their drift; a dependency's resync would only queue the same keys again, once
// per dependency and each at its own moment, so that every object was reconciled several times per period for
// nothing. Changes still arrive: only the re-deliveries are left out.
func Watch(deps ...Dependency) error {
	for _, d := range deps {
		if _, err := d.Informer.AddEventHandlerWithResyncPeriod(d.Handler, 0); err != nil {
			return err
		}
	}
	return nil
}
