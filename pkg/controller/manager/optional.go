package manager

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// optionalPoll is how often discovery is asked again for an optional API the cluster does not serve.
const optionalPoll = 10 * time.Second

// Optional is the cache of a resource another project serves (KServe's InferenceServices, the Gateway API's
// HTTPRoutes), holding the objects of AIM services only (newDynamicInformers). The cluster may come to serve it
// after aim-apiserver has started: a GitOps tool applies KServe and aim-apiserver together, or KServe is installed
// later. aim-engine's controller does not start without the CRDs, and its pod restarts until they exist; here the
// other controllers run meanwhile, Lister and Indexer are nil, and discovery is asked again every optionalPoll.
// Once the cluster serves the resource, its informer starts, and once that has synced the cache is published and
// the functions given to Watch run (the controller queues the objects that waited for it). A resource the
// cluster stops serving is not followed: its informer retries its list, as client-go's do.
type Optional struct {
	gvr schema.GroupVersionResource
	// Registered before Run.
	indexers cache.Indexers
	handlers []cache.ResourceEventHandler
	onServed []func()
	// cache is nil until the resource is served and cached.
	cache atomic.Pointer[optionalCache]
}

type optionalCache struct {
	lister  cache.GenericLister
	indexer cache.Indexer
}

// Optional returns the cache of gvr, whose objects are cached as newObj's Go type; every caller of one resource
// gets the same cache. It is meant for registration, before Run.
func (m *Manager) Optional(gvr schema.GroupVersionResource, newObj func() runtime.Object) *Optional {
	for _, o := range m.optional {
		if o.gvr == gvr {
			return o
		}
	}
	m.dynamic.typed[gvr] = newObj
	o := &Optional{gvr: gvr, indexers: cache.Indexers{}}
	m.optional = append(m.optional, o)
	return o
}

// Watch has the cache index its objects with indexers and pass their events to h (without the periodic resync,
// as Watch does), and calls served when the resource comes to be served after Run started. It is meant for
// registration, before Run.
func (o *Optional) Watch(indexers cache.Indexers, h cache.ResourceEventHandler, served func()) {
	for name, f := range indexers {
		o.indexers[name] = f
	}
	o.handlers = append(o.handlers, h)
	if served != nil {
		o.onServed = append(o.onServed, served)
	}
}

// Resource is the resource cached.
func (o *Optional) Resource() schema.GroupVersionResource { return o.gvr }

// Lister lists the cached objects; nil while the cluster does not serve the resource.
func (o *Optional) Lister() cache.GenericLister {
	if c := o.cache.Load(); c != nil {
		return c.lister
	}
	return nil
}

// Indexer is the cache's indexer; nil while the cluster does not serve the resource.
func (o *Optional) Indexer() cache.Indexer {
	if c := o.cache.Load(); c != nil {
		return c.indexer
	}
	return nil
}

func (o *Optional) publish(inf genericInformer) {
	o.cache.Store(&optionalCache{lister: inf.lister, indexer: inf.informer.GetIndexer()})
}

// ServedOptional is the Optional of a resource the cluster serves whose objects are those of indexer, for the
// tests of what reads one.
func ServedOptional(gvr schema.GroupVersionResource, indexer cache.Indexer) *Optional {
	o := &Optional{gvr: gvr, indexers: cache.Indexers{}}
	o.cache.Store(&optionalCache{lister: cache.NewGenericLister(indexer, gvr.GroupResource()), indexer: indexer})
	return o
}

// served reports whether the cluster serves a resource: an informer on a missing API never syncs.
func (m *Manager) served(gvr schema.GroupVersionResource) (bool, error) {
	list, err := m.Kube.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if apierrors.IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("discovering %s: %w", gvr.GroupVersion(), err)
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == gvr.Resource }), nil
}

// informOptional sets up the informers of the optional APIs the cluster serves, before Run starts the
// informers, and returns the others. One whose discovery fails is asked again with them: the workers need not
// wait for it.
func (m *Manager) informOptional(ctx context.Context) ([]*Optional, error) {
	logger := klog.FromContext(ctx)
	var missing []*Optional
	for _, o := range m.optional {
		served, err := m.served(o.gvr)
		if err != nil {
			logger.Info("Discovery failed; what needs this API waits, and discovery is asked again every "+optionalPoll.String(), "resource", o.gvr, "err", err)
		} else if !served {
			logger.Info("The cluster does not serve this API; what needs it waits, and discovery is asked again every "+optionalPoll.String(), "resource", o.gvr)
		}
		if err != nil || !served {
			missing = append(missing, o)
			continue
		}
		if err := m.inform(o); err != nil {
			return nil, err
		}
	}
	return missing, nil
}

// inform creates the informer of o, with its indexers and handlers, for an API served from the beginning: it is
// published at once, and Run starts it and waits for its cache before any worker starts.
func (m *Manager) inform(o *Optional) error {
	inf, _, err := m.wire(o)
	if err != nil {
		return err
	}
	o.publish(inf)
	return nil
}

// wire creates the informer of o with its indexers and its handlers (without the periodic resync, as Watch),
// and returns what says when the informer and each handler have seen the initial list.
func (m *Manager) wire(o *Optional) (genericInformer, []cache.InformerSynced, error) {
	inf, err := m.dynamic.informer(o.gvr)
	if err != nil {
		return inf, nil, err
	}
	if err := inf.informer.AddIndexers(o.indexers); err != nil {
		return inf, nil, fmt.Errorf("indexing %s: %w", o.gvr.GroupResource(), err)
	}
	synced := []cache.InformerSynced{inf.informer.HasSynced}
	for _, h := range o.handlers {
		reg, err := inf.informer.AddEventHandlerWithResyncPeriod(h, 0)
		if err != nil {
			return inf, nil, fmt.Errorf("watching %s: %w", o.gvr.GroupResource(), err)
		}
		synced = append(synced, reg.HasSynced)
	}
	return inf, synced, nil
}

// awaitOptional asks discovery every poll until the cluster serves o, then caches its objects and, once the
// cache has synced, publishes it and calls its served functions. It returns when ctx is done.
func (m *Manager) awaitOptional(ctx context.Context, o *Optional, poll time.Duration) {
	logger := klog.FromContext(ctx)
	err := wait.PollUntilContextCancel(ctx, poll, false, func(context.Context) (bool, error) {
		served, err := m.served(o.gvr)
		if err != nil {
			logger.V(2).Info("Discovery failed; asking again", "resource", o.gvr, "err", err)
		}
		return served, nil
	})
	if err != nil {
		return
	}
	inf, synced, err := m.wire(o)
	if err != nil {
		logger.Error(err, "Caching an API the cluster serves now", "resource", o.gvr)
		return
	}
	m.dynamic.factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return
	}
	o.publish(inf)
	logger.Info("The cluster serves this API now; what waited for it goes on", "resource", o.gvr)
	for _, f := range o.onServed {
		f()
	}
}
