package manager

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// PodEvents caches the events the controllers judge pods and InferenceServices by, without the flood of the other
// Normal ones: Warning events (FailedScheduling, FailedMount, a refused pull, KServe's failures) and kubelet's
// Pulling events of pods (an image pull under way, which aim-engine reports as Progressing, reason Pulling, where a
// pending pod with neither is PodsPending). A field selector cannot say "or", so it is two informers, read as one
// and indexed by the object each event is about.
type PodEvents struct {
	informers []cache.SharedIndexInformer
}

// involvedObjectIndex indexes events by the kind, namespace and name of the object they are about.
const involvedObjectIndex = "involvedObject"

// involvedKindIndex indexes events by the kind and namespace of the object they are about.
const involvedKindIndex = "involvedKind"

func involvedObjectKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// indexByInvolved indexes events by a key of the object each is about.
func indexByInvolved(key func(corev1.ObjectReference) string) cache.IndexFunc {
	return func(obj any) ([]string, error) {
		if ev, ok := obj.(*corev1.Event); ok {
			return []string{key(ev.InvolvedObject)}, nil
		}
		return nil, nil
	}
}

func newPodEvents(m *Manager) (PodEvents, error) {
	var e PodEvents
	for _, sel := range []Selection{{Fields: "type=" + corev1.EventTypeWarning}, {Fields: "involvedObject.kind=Pod,reason=Pulling"}} {
		inf := m.Selected(sel).Core().V1().Events().Informer()
		if err := inf.AddIndexers(cache.Indexers{
			involvedObjectIndex: indexByInvolved(func(o corev1.ObjectReference) string { return involvedObjectKey(o.Kind, o.Namespace, o.Name) }),
			involvedKindIndex:   indexByInvolved(func(o corev1.ObjectReference) string { return involvedObjectKey(o.Kind, o.Namespace, "") }),
		}); err != nil {
			return PodEvents{}, fmt.Errorf("indexing events (%s): %w", sel, err)
		}
		e.informers = append(e.informers, inf)
	}
	return e, nil
}

// About lists the cached events about one object, each once (an event both informers hold, a Warning with reason
// Pulling, is one object: one namespace and name).
func (e PodEvents) About(kind, namespace, name string) []corev1.Event {
	return e.byIndex(involvedObjectIndex, involvedObjectKey(kind, namespace, name), nil)
}

// AboutNamed lists the cached events about the objects of kind in namespace whose names keep accepts, each once:
// the ReplicaSets of a Deployment another controller made, named <deployment>-<pod-template-hash>.
func (e PodEvents) AboutNamed(kind, namespace string, keep func(name string) bool) []corev1.Event {
	return e.byIndex(involvedKindIndex, involvedObjectKey(kind, namespace, ""), func(ev *corev1.Event) bool {
		return keep(ev.InvolvedObject.Name)
	})
}

// byIndex lists the events under key of index that keep accepts (nil: all), each once (an event both informers
// hold, a Warning with reason Pulling, is one object: one namespace and name).
func (e PodEvents) byIndex(index, key string, keep func(*corev1.Event) bool) []corev1.Event {
	var out []corev1.Event
	seen := map[cache.ObjectName]bool{}
	for _, inf := range e.informers {
		objs, _ := inf.GetIndexer().ByIndex(index, key)
		for _, o := range objs {
			ev, ok := o.(*corev1.Event)
			if !ok || seen[cache.MetaObjectToName(ev)] || keep != nil && !keep(ev) {
				continue
			}
			seen[cache.MetaObjectToName(ev)] = true
			out = append(out, *ev)
		}
	}
	return out
}

// Dependencies watch every informer with one handler.
func (e PodEvents) Dependencies(h cache.ResourceEventHandler) []Dependency {
	out := make([]Dependency, 0, len(e.informers))
	for _, inf := range e.informers {
		out = append(out, Dependency{Informer: inf, Handler: h})
	}
	return out
}
