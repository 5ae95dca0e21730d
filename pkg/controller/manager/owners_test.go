package manager

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// TestJobEventHandler: an event about a Job (its FailedCreate) or about one of its pods queues the AIM owner of
// the Job; an event about anything else, or about a pod of no cached Job, queues nothing.
func TestJobEventHandler(t *testing.T) {
	index := func(objs ...any) cache.Indexer {
		i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		for _, o := range objs {
			if err := i.Add(o); err != nil {
				t.Fatal(err)
			}
		}
		return i
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "download-x", Namespace: "team", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMArtifact", Name: "x"}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "download-x-abcde", Namespace: "team", Labels: map[string]string{batchv1.JobNameLabel: "download-x"}}}
	stray := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "team"}}
	about := func(kind, name string) *corev1.Event {
		return &corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: "team", Name: name}}
	}
	for _, tc := range []struct {
		name  string
		event *corev1.Event
		want  int
	}{
		{"the Job's FailedCreate", about("Job", "download-x"), 1},
		{"a Warning about its pod", about("Pod", "download-x-abcde"), 1},
		{"a pod of no Job", about("Pod", "web-1"), 0},
		{"another kind", about("ReplicaSet", "download-x"), 0},
		{"a Job not cached", about("Job", "other"), 0},
	} {
		c := NewController("artifact", nil)
		q := c.startTerm()
		h := JobEventHandler(batchlisters.NewJobLister(index(job)), corelisters.NewPodLister(index(pod, stray)),
			Owners{"AIMArtifact": {Controller: c, Namespaced: true}})
		h.OnAdd(tc.event, false)
		if q.Len() != tc.want {
			t.Errorf("%s: %d keys queued, want %d", tc.name, q.Len(), tc.want)
		}
		if tc.want == 1 {
			if key, _ := q.Get(); key != cache.NewObjectName("team", "x") {
				t.Errorf("%s: queued %v, want team/x", tc.name, key)
			}
		}
		c.endTerm()
	}
}
