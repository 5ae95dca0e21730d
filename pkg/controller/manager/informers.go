package manager

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// stripManagedFields is the transform of every informer the controllers use. Of metadata.managedFields they
// read only who wrote an object (MadeBy), never the fields each manager owns, which on an object several
// managers write (an InferenceService: the controller, KServe, a user's kubectl) are a large part of what the
// cache would hold per object. Each entry keeps its manager and operation.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		fields := m.GetManagedFields()
		if len(fields) == 0 {
			return obj, nil
		}
		writers := make([]metav1.ManagedFieldsEntry, len(fields))
		for i, f := range fields {
			writers[i] = metav1.ManagedFieldsEntry{Manager: f.Manager, Operation: f.Operation}
		}
		m.SetManagedFields(writers)
	}
	return obj, nil
}

var _ cache.TransformFunc = stripManagedFields

// typedTransform caches an object of another API group as its Go type rather than as the map the dynamic
// client decodes: an InferenceService with its node affinity takes about 38 KiB as a map and a fraction of
// that as a struct. An object the type cannot hold (a field of the wrong type, written by hand) stays a map.
func typedTransform(gvr schema.GroupVersionResource, newObj func() runtime.Object) cache.TransformFunc {
	return func(obj any) (any, error) {
		obj, _ = stripManagedFields(obj)
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil
		}
		typed := newObj()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			klog.V(2).InfoS("Caching an object as a map: its Go type cannot hold it", "resource", gvr, "namespace", u.GetNamespace(), "name", u.GetName(), "err", err)
			return u, nil
		}
		return typed, nil
	}
}

// AsUnstructured is an object as a map (itself when it is one), for comparisons with an apply body.
func AsUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting a cached %T: %w", obj, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// AsTyped is an object of a dynamic informer as its Go type T: as cached (Optional), or read from the map
// the type could not hold when it was cached, which fails the same way now.
func AsTyped[T any](obj runtime.Object) (*T, error) {
	if t, ok := any(obj).(*T); ok {
		return t, nil
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("a cached %T is not a %T", obj, new(T))
	}
	t := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, t); err != nil {
		return nil, fmt.Errorf("reading the %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return t, nil
}

// dynamicInformers is a dynamic informer factory whose informers strip managed fields, and cache the
// resources of Optional as their Go types: client-go's has no option for a transform.
type dynamicInformers struct {
	factory dynamicinformer.DynamicSharedInformerFactory
	typed   map[schema.GroupVersionResource]func() runtime.Object
}

// informer is the shared informer of gvr, with the transform of its resource. Each resource's is made once
// (Optional), before the factory starts it: SetTransform fails on a started informer.
func (f *dynamicInformers) informer(gvr schema.GroupVersionResource) (genericInformer, error) {
	inf := f.factory.ForResource(gvr).Informer()
	transform := stripManagedFields
	if newObj, ok := f.typed[gvr]; ok {
		transform = typedTransform(gvr, newObj)
	}
	if err := inf.SetTransform(transform); err != nil {
		return genericInformer{}, fmt.Errorf("caching %s: %w", gvr.GroupResource(), err)
	}
	return genericInformer{informer: inf, lister: cache.NewGenericLister(inf.GetIndexer(), gvr.GroupResource())}, nil
}

// genericInformer lists with cache's generic lister: the dynamic lister insists on maps.
type genericInformer struct {
	informer cache.SharedIndexInformer
	lister   cache.GenericLister
}
