// Package sweep removes the children of AIM objects that no longer exist. Kubernetes' garbage collector
// normally does this through owner references, but it must discover the owners' API through the aggregation
// layer; while aim-apiserver is unreachable (or its APIService is broken) it cannot, and leaves children
// behind. The sweep closes that gap from our side.
package sweep

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/tools/cache"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
)

// key is the only item of the sweep's queue: one sweep covers everything.
const key = "sweep"

// Child is an object the controller created, with its AIM owners.
type Child struct {
	Resource        schema.GroupVersionResource
	Namespace, Name string
	UID             types.UID
	Owners          []metav1.OwnerReference
}

// Owner names an AIM owner of a child.
type Owner struct {
	Kind, Namespace, Name string
	UID                   types.UID
}

// Owned lists a child's AIM owners; a namespaced owner shares the child's namespace.
func (c Child) Owned() []Owner {
	var out []Owner
	for _, r := range c.Owners {
		if r.APIVersion != aimv1.SchemeGroupVersion.String() {
			continue
		}
		o := Owner{Kind: r.Kind, Name: r.Name, UID: r.UID}
		if !ClusterScoped(r.Kind) {
			o.Namespace = c.Namespace
		}
		out = append(out, o)
	}
	return out
}

// ClusterScoped reports whether an AIM kind is cluster-scoped.
func ClusterScoped(kind string) bool { return strings.HasPrefix(kind, "AIMCluster") }

// Orphans are the children whose owners are all AIM objects and all gone. exists answers whether an owner with
// that UID exists; when it cannot tell (err), the child is kept, so that an outage never deletes anything. A
// child with an owner of another group is left to the garbage collector, which can see that owner and deletes
// the child only once every owner is gone.
func Orphans(children []Child, exists func(Owner) (bool, error)) []Child {
	var out []Child
	for _, c := range children {
		owners := c.Owned()
		if len(owners) == 0 || len(owners) < len(c.Owners) {
			continue
		}
		orphan := true
		for _, o := range owners {
			if ok, err := exists(o); ok || err != nil {
				orphan = false
				break
			}
		}
		if orphan {
			out = append(out, c)
		}
	}
	return out
}

// Source lists the children of one resource the controller manages and deletes them.
type Source struct {
	List   func() []Child
	Delete func(context.Context, Child) error
}

// managed selects what the controller created.
var managed = labels.SelectorFromSet(labels.Set{aimv1.LabelManagedBy: aimv1.ManagedByValue})

// Objects is a source over an informer's lister; deletes go through the dynamic client, guarded by UID.
func Objects[T metav1.Object](dyn dynamic.Interface, gvr schema.GroupVersionResource, list func(labels.Selector) ([]T, error)) Source {
	return Source{
		List: func() []Child {
			objs, err := list(managed)
			if err != nil {
				return nil
			}
			out := make([]Child, 0, len(objs))
			for _, o := range objs {
				out = append(out, Child{Resource: gvr, Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID(), Owners: o.GetOwnerReferences()})
			}
			return out
		},
		Delete: func(ctx context.Context, c Child) error {
			return dyn.Resource(c.Resource).Namespace(c.Namespace).Delete(ctx, c.Name, deleteOptions(c))
		},
	}
}

// Optional is a source over the cache of another project's resource (manager.Optional): empty while the
// cluster does not serve it.
func Optional(dyn dynamic.Interface, o *manager.Optional) Source {
	return Objects(dyn, o.Resource(), func(sel labels.Selector) ([]metav1.Object, error) {
		lister := o.Lister()
		if lister == nil {
			return nil, nil
		}
		objs, err := lister.List(sel)
		out := make([]metav1.Object, 0, len(objs))
		for _, o := range objs {
			if mo, ok := o.(metav1.Object); ok {
				out = append(out, mo)
			}
		}
		return out, err
	})
}

// AIM is a source over AIM objects of a kind, deleted through the loopback client: when the aggregation layer
// is what fails, the kube-apiserver cannot reach them either.
func AIM(m *manager.Manager, kind string) (Source, error) {
	gvr := aimv1.SchemeGroupVersion.WithResource(Plural(kind))
	inf, err := m.AIMInformers.ForResource(gvr)
	if err != nil {
		return Source{}, fmt.Errorf("informer for %s: %w", kind, err)
	}
	rest := m.AIM.AimV1alpha1().RESTClient()
	src := Objects(nil, gvr, func(sel labels.Selector) ([]metav1.Object, error) {
		objs, err := inf.Lister().List(sel)
		out := make([]metav1.Object, 0, len(objs))
		for _, o := range objs {
			if mo, ok := o.(metav1.Object); ok {
				out = append(out, mo)
			}
		}
		return out, err
	})
	src.Delete = func(ctx context.Context, c Child) error {
		req := rest.Delete().Resource(gvr.Resource).Name(c.Name).Body(ptr.To(deleteOptions(c)))
		if c.Namespace != "" {
			req = req.Namespace(c.Namespace)
		}
		return req.Do(ctx).Error()
	}
	return src, nil
}

func deleteOptions(c Child) metav1.DeleteOptions {
	return metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(c.UID)}, PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
}

// Sweeper finds and deletes orphans.
type Sweeper struct {
	Sources []Source
	// InCache answers from the informer caches whether an owner exists; Get asks the API.
	InCache func(Owner) (bool, error)
	Get     func(context.Context, Owner) (bool, error)
}

// Register adds the sweep, run every interval on the leader, over the sources.
func Register(m *manager.Manager, interval time.Duration, sources ...Source) error {
	s := &Sweeper{Sources: sources}
	aim := m.AIMInformers
	s.InCache = func(o Owner) (bool, error) {
		inf, err := aim.ForResource(aimv1.SchemeGroupVersion.WithResource(Plural(o.Kind)))
		if err != nil {
			return false, err
		}
		var obj any
		if o.Namespace == "" {
			obj, err = inf.Lister().Get(o.Name)
		} else {
			obj, err = inf.Lister().ByNamespace(o.Namespace).Get(o.Name)
		}
		if apierrors.IsNotFound(err) {
			return false, nil
		} else if err != nil {
			return false, err
		}
		return obj.(metav1.Object).GetUID() == o.UID, nil
	}
	rest := m.AIM.AimV1alpha1().RESTClient()
	s.Get = func(ctx context.Context, o Owner) (bool, error) {
		var got metav1.PartialObjectMetadata
		req := rest.Get().Resource(Plural(o.Kind)).Name(o.Name)
		if o.Namespace != "" {
			req = req.Namespace(o.Namespace)
		}
		err := req.Do(ctx).Into(&got)
		if apierrors.IsNotFound(err) {
			return false, nil
		} else if err != nil {
			return false, err
		}
		return got.UID == o.UID, nil
	}
	// One key, queued at the start of every leadership term; each sweep queues the next.
	c := manager.NewController("orphan-sweep", manager.ReconcilerFunc(func(ctx context.Context, _ cache.ObjectName) (time.Duration, error) {
		s.Sweep(ctx)
		return interval, nil
	}), manager.Keys{key})
	return m.Add(c)
}

// Plural is the resource of an AIM kind.
func Plural(kind string) string { return strings.ToLower(kind) + "s" }

// Sweep deletes the orphans it finds. An owner missing from the informer cache is confirmed with the API
// before its children go, and a child is deleted only if its UID is still the one seen.
func (s *Sweeper) Sweep(ctx context.Context) {
	for _, src := range s.Sources {
		// Cheap pass over the caches, then the API for the few candidates.
		candidates := Orphans(src.List(), s.InCache)
		if len(candidates) == 0 {
			continue
		}
		for _, c := range Orphans(candidates, func(o Owner) (bool, error) { return s.Get(ctx, o) }) {
			err := src.Delete(ctx, c)
			switch {
			case err == nil:
				klog.FromContext(ctx).Info("Deleted an orphan whose AIM owner is gone", "resource", c.Resource.Resource, "namespace", c.Namespace, "name", c.Name)
			case !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
				klog.FromContext(ctx).Error(fmt.Errorf("deleting orphan %s %s/%s: %w", c.Resource.Resource, c.Namespace, c.Name, err), "Sweep failed")
			}
		}
	}
}
