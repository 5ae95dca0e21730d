package template

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/discovery"
)

// TestActiveDiscoveryJobsCountsEveryNamespace: the concurrency limit is cluster-wide, so Jobs of namespaced
// templates in other namespaces and of cluster templates in the system namespace all count.
func TestActiveDiscoveryJobsCountsEveryNamespace(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	job := func(ns, name string, done bool, discoveryLabel bool) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{}}}
		if discoveryLabel {
			j.Labels[discovery.LabelName] = discovery.NameValue
		}
		if done {
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
		}
		return j
	}
	for _, j := range []*batchv1.Job{
		job("aim-system", "cluster-tpl", false, true),
		job("team-a", "ns-tpl", false, true),
		job("team-b", "ns-tpl", false, true),
		job("team-b", "finished", true, true),
		job("team-b", "not-discovery", false, false),
	} {
		if err := idx.Add(j); err != nil {
			t.Fatal(err)
		}
	}
	ctl := &Controller{jobs: batchlisters.NewJobLister(idx)}
	if got := ctl.activeDiscoveryJobs(); got != 3 {
		t.Errorf("active discovery Jobs = %d, want 3 (all namespaces, unfinished, discovery only)", got)
	}
}
