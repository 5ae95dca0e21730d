package manager

import (
	corelisters "k8s.io/client-go/listers/core/v1"

	batchv1 "k8s.io/api/batch/v1"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

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
	if m, ok := EventObject[metav1.Object](obj); ok {
		o.EnqueueRefs(m.GetNamespace(), m.GetOwnerReferences())
	}
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
	return OnEvery(func(m metav1.Object) { o.EnqueueRefs(m.GetNamespace(), m.GetOwnerReferences()) })
}

// JobPodHandler routes events of a Job's pods to the AIM owners of the Job.
func JobPodHandler(jobs batchlisters.JobLister, owners Owners) cache.ResourceEventHandler {
	return OnEvery(func(pod *corev1.Pod) {
		if j, err := jobs.Jobs(pod.Namespace).Get(pod.Labels[batchv1.JobNameLabel]); err == nil {
			owners.EnqueueRefs(j.Namespace, j.OwnerReferences)
		}
	})
}

// JobEventHandler passes an event about a Job (FailedCreate: the API refused its pods) to the AIM owners of the
// Job, and an event about anything else to next.
func JobEventHandler(jobs batchlisters.JobLister, owners Owners, next cache.ResourceEventHandler) cache.ResourceEventHandler {
	forward := func(obj any) {
		e, ok := obj.(*corev1.Event)
		if !ok || e.InvolvedObject.Kind != "Job" {
			next.OnUpdate(obj, obj)
			return
		}
		if j, err := jobs.Jobs(e.InvolvedObject.Namespace).Get(e.InvolvedObject.Name); err == nil {
			owners.EnqueueRefs(j.Namespace, j.OwnerReferences)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: forward, UpdateFunc: func(_, o any) { forward(o) }}
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
