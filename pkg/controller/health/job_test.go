package health

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// eventsByObject is an EventCache of events keyed by the object they are about.
type eventsByObject map[string][]corev1.Event

func (e eventsByObject) About(kind, namespace, name string) []corev1.Event {
	return e[kind+"/"+namespace+"/"+name]
}

// TestJobPodsCollectsTheirEvents: a Job's pods come with the cached events about each of them, and with no
// other object's.
func TestJobPodsCollectsTheirEvents(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "dl-a", Namespace: "ns", Labels: map[string]string{batchv1.JobNameLabel: "dl"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "dl-b", Namespace: "ns", Labels: map[string]string{batchv1.JobNameLabel: "dl"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "ns", Labels: map[string]string{batchv1.JobNameLabel: "other"}}},
	} {
		if err := indexer.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	ev := func(name string) corev1.Event { return corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	events := eventsByObject{
		"Pod/ns/dl-a": {ev("a-pulling")}, "Pod/ns/dl-b": {ev("b-scheduling"), ev("b-pulling")},
		"Pod/ns/other": {ev("other-pulling")}, "Job/ns/dl": {ev("job-warning")},
	}
	pods, got := JobPods(corelisters.NewPodLister(indexer), events, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "dl", Namespace: "ns"}})
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	if len(pods) != 2 {
		t.Errorf("%d pods, want the Job's 2", len(pods))
	}
	if diff := cmp.Diff([]string{"a-pulling", "b-scheduling", "b-pulling"}, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
