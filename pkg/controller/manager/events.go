package manager

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// PodEvents caches the events the controllers judge pods and InferenceServices by, without the flood of the other
// Normal ones: Warning events (FailedScheduling, FailedMount, a refused pull, KServe's failures) and kubelet's
// Pulling events of pods (an image pull under way, which aim-engine reports as Progressing, reason Pulling, where a
// pending pod with neither is PodsPending). A field selector cannot say "or", so it is two informers, read as one.
type PodEvents struct {
	informers []cache.SharedIndexInformer
}

func newPodEvents(m *Manager) PodEvents {
	var e PodEvents
	for _, sel := range []Selection{{Fields: "type=" + corev1.EventTypeWarning}, {Fields: "involvedObject.kind=Pod,reason=Pulling"}} {
		e.informers = append(e.informers, m.Selected(sel).Core().V1().Events().Informer())
	}
	return e
}

// AddIndexers adds indexers to every informer; it is meant for registration, before Run.
func (e PodEvents) AddIndexers(ix cache.Indexers) error {
	for _, inf := range e.informers {
		if err := inf.AddIndexers(ix); err != nil {
			return err
		}
	}
	return nil
}

// ByIndex lists the cached events whose key in the named index is key, each once (an event both informers hold,
// a Warning with reason Pulling, is one object: one namespace and name).
func (e PodEvents) ByIndex(index, key string) []*corev1.Event {
	var out []*corev1.Event
	seen := map[cache.ObjectName]bool{}
	for _, inf := range e.informers {
		objs, _ := inf.GetIndexer().ByIndex(index, key)
		for _, o := range objs {
			ev, ok := o.(*corev1.Event)
			if !ok || seen[cache.MetaObjectToName(ev)] {
				continue
			}
			seen[cache.MetaObjectToName(ev)] = true
			out = append(out, ev)
		}
	}
	return out
}

// InNamespace lists the cached events of a namespace.
func (e PodEvents) InNamespace(namespace string) []*corev1.Event {
	return e.ByIndex(cache.NamespaceIndex, namespace)
}

// Dependencies watch every informer with one handler.
func (e PodEvents) Dependencies(h cache.ResourceEventHandler) []Dependency {
	out := make([]Dependency, 0, len(e.informers))
	for _, inf := range e.informers {
		out = append(out, Dependency{Informer: inf, Handler: h})
	}
	return out
}
