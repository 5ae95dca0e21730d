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
	return OnEvery(func(pod *corev1.Pod) { enqueueJobOwners(jobs, owners, pod.Namespace, pod.Labels[batchv1.JobNameLabel]) })
}

// JobEventHandler routes the cached events (PodEvents) about a Job or one of its pods to the AIM owners of the
// Job: a FailedCreate of the Job (the API refused its pods), a Warning about a pod (FailedScheduling, FailedMount,
// a refused pull) or its Pulling.
func JobEventHandler(jobs batchlisters.JobLister, pods corelisters.PodLister, owners Owners) cache.ResourceEventHandler {
	forward := func(obj any) {
		e, ok := obj.(*corev1.Event)
		if !ok {
			return
		}
		switch o := e.InvolvedObject; o.Kind {
		case "Job":
			enqueueJobOwners(jobs, owners, o.Namespace, o.Name)
		case "Pod":
			if pod, err := pods.Pods(o.Namespace).Get(o.Name); err == nil {
				enqueueJobOwners(jobs, owners, pod.Namespace, pod.Labels[batchv1.JobNameLabel])
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: forward, UpdateFunc: func(_, o any) { forward(o) }}
}

// enqueueJobOwners adds the AIM owners of the Job namespace/name, if it is cached.
func enqueueJobOwners(jobs batchlisters.JobLister, owners Owners, namespace, name string) {
	if j, err := jobs.Jobs(namespace).Get(name); err == nil {
		owners.EnqueueRefs(j.Namespace, j.OwnerReferences)
	}
}
