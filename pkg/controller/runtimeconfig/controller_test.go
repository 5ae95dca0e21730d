package runtimeconfig

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/install"
	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/fake"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// TestStatusConflictEndsQuietly: a status write answered 409 (another writer was first) ends the reconcile
// without an error and without the validity Event, as reconcile.Finish ends every kind's; a write that succeeds
// records the Event once, with the condition's reason.
func TestStatusConflictEndsQuietly(t *testing.T) {
	cfg := &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: "gold", Namespace: "team", Generation: 1}}
	for _, tc := range []struct {
		name     string
		conflict bool
		events   int
	}{{"conflict", true, 0}, {"written", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(cfg.DeepCopy())
			// The status write: 409, or accepted as sent.
			client.PrependReactor("update", "aimruntimeconfigs", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if tc.conflict {
					return true, nil, apierrors.NewConflict(aimv1.Resource("aimruntimeconfigs"), "gold", nil)
				}
				return true, a.(clienttesting.UpdateAction).GetObject(), nil
			})
			index := func(objs ...runtime.Object) cache.Indexer {
				i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
				for _, o := range objs {
					if err := i.Add(o); err != nil {
						t.Fatal(err)
					}
				}
				return i
			}
			empty := index()
			rec := record.NewFakeRecorder(10)
			scheme := runtime.NewScheme()
			install.Install(scheme)
			ctl := &Controller{c: manager.Clients{AIM: client, Recorder: rec}, scheme: scheme, namespace: aimlisters.NewAIMRuntimeConfigLister(index(cfg)),
				consumers: consumerListers{services: aimlisters.NewAIMServiceLister(empty), templates: aimlisters.NewAIMServiceTemplateLister(empty),
					clusterTemplates: aimlisters.NewAIMClusterServiceTemplateLister(empty), models: aimlisters.NewAIMModelLister(empty),
					clusterModels: aimlisters.NewAIMClusterModelLister(empty), caches: aimlisters.NewAIMTemplateCacheLister(empty),
					artifacts: aimlisters.NewAIMArtifactLister(empty)}}
			if _, err := ctl.reconcileNamespaced(context.Background(), cache.NewObjectName("team", "gold")); err != nil {
				t.Errorf("reconcile: %v", err)
			}
			if got := len(rec.Events); got != tc.events {
				t.Errorf("%d Events, want %d", got, tc.events)
			}
			// The condition's reason, as every Event of the controllers carries.
			if tc.events == 1 {
				if e := <-rec.Events; e != "Normal ConfigurationValid runtime config is valid" {
					t.Errorf("Event %q", e)
				}
			}
		})
	}
}

// TestConsumerStatusWritesDoNotRecount: only a consumer's add, delete, a new generation (it may name another config)
// or the start of its deletion re-queue the configs it names; its status writes do not.
func TestConsumerStatusWritesDoNotRecount(t *testing.T) {
	svc := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team", Generation: 1}}
	statusWritten := svc.DeepCopy()
	statusWritten.ResourceVersion, statusWritten.Status.Status = "2", aimv1.AIMStatusRunning
	renamed := svc.DeepCopy()
	renamed.Generation, renamed.Spec.RuntimeConfigName = 2, "gold"
	deleting := svc.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{}

	var got []string
	h := consumerHandler(func(namespace, name string) { got = append(got, namespace+"/"+name) })
	for _, tc := range []struct {
		name string
		send func()
		want []string
	}{
		{"add", func() { h.OnAdd(svc, false) }, []string{"team/default"}},
		{"status write", func() { h.OnUpdate(svc, statusWritten) }, nil},
		{"another config", func() { h.OnUpdate(svc, renamed) }, []string{"team/default", "team/gold"}},
		{"deletion begins", func() { h.OnUpdate(svc, deleting) }, []string{"team/default", "team/default"}},
		{"delete", func() { h.OnDelete(cache.DeletedFinalStateUnknown{Key: "team/chat", Obj: svc}) }, []string{"team/default"}},
	} {
		got = nil
		tc.send()
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: configs re-queued (-want +got):\n%s", tc.name, diff)
		}
	}
}
