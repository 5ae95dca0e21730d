package manager

import "k8s.io/client-go/tools/cache"

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
