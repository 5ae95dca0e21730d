package template

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/discovery"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
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

// TestLostSlotRaceWaitsAsThePlannerDoes: when another template takes the last discovery slot between the plan
// and the create, the template reports the planner's wait word for word, so its status stays whichever way a
// look for a slot ends.
func TestLostSlotRaceWaitsAsThePlannerDoes(t *testing.T) {
	ctl := &Controller{c: manager.Clients{Recorder: record.NewFakeRecorder(100)},
		slots: newJobSlots(func() int { return 10 }, func(string) bool { return false })}
	obj := &aimv1.AIMClusterServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tpl", UID: "uid-1", Generation: 2}}
	written := func(o Observation) aimv1.AIMServiceTemplateStatus {
		var st aimv1.AIMServiceTemplateStatus
		requeue, err := ctl.reconcile(context.Background(), obj, o,
			func(s aimv1.AIMServiceTemplateStatus) error { st = s; return nil })
		if err != nil || requeue != slotRetry {
			t.Errorf("reconcile: requeue %s, error %v; want %s", requeue, err, slotRetry)
		}
		return st
	}
	full := observation()
	full.ActiveDiscoveryJobs = 10 // the planner sees every slot taken
	lost := observation()         // the planner sees a free one, which another template takes first
	if diff := cmp.Diff(written(full), written(lost)); diff != "" {
		t.Errorf("status (-planner waits +race lost):\n%s", diff)
	}
}
