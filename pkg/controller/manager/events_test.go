package manager

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

func replicaSetEvent(name, namespace, replicaSet string) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID(name + namespace)},
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: replicaSet, Namespace: namespace},
		Type:           corev1.EventTypeWarning, Reason: "FailedCreate"}
}

// TestPodEventsCacheWarningsAndPulls: PodEvents caches Warning events and pods' Pulling events (kubelet's Normal
// event of an image pull under way), not the other Normal events, and reads its two informers as one, by the object
// each event is about: an event both select is listed once.
func TestPodEventsCacheWarningsAndPulls(t *testing.T) {
	event := func(name, namespace, kind, typ, reason string) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID(name)},
			InvolvedObject: corev1.ObjectReference{Kind: kind, Name: "p", Namespace: namespace}, Type: typ, Reason: reason}
	}
	kube := fake.NewClientset(
		event("scheduling", "ns", "Pod", corev1.EventTypeWarning, "FailedScheduling"),
		event("pulling", "ns", "Pod", corev1.EventTypeNormal, "Pulling"),
		event("pulling-warning", "ns", "Pod", corev1.EventTypeWarning, "Pulling"),
		event("isvc", "ns", "InferenceService", corev1.EventTypeWarning, "InternalError"),
		event("scheduled", "ns", "Pod", corev1.EventTypeNormal, "Scheduled"),
		event("pulled", "ns", "Pod", corev1.EventTypeNormal, "Pulled"),
		event("job-pulling", "ns", "Job", corev1.EventTypeNormal, "Pulling"),
		event("elsewhere", "other", "Pod", corev1.EventTypeNormal, "Pulling"),
		replicaSetEvent("rs-chat", "ns", "chat-predictor-6b8f9c"),
		replicaSetEvent("rs-chat-x", "ns", "chat-x-predictor-7c9d"),
		replicaSetEvent("rs-chat-other", "other", "chat-predictor-6b8f9c"),
	)
	// The fake client filters lists by label only; the API server filters events by these fields.
	kube.PrependReactor("list", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		sel := a.(clienttesting.ListAction).GetListRestrictions().Fields
		all, err := kube.Tracker().List(corev1.SchemeGroupVersion.WithResource("events"), corev1.SchemeGroupVersion.WithKind("Event"), "")
		if err != nil {
			return true, nil, err
		}
		list := all.(*corev1.EventList)
		list.Items = slices.DeleteFunc(list.Items, func(e corev1.Event) bool {
			return !sel.Matches(fields.Set{"type": e.Type, "reason": e.Reason, "involvedObject.kind": e.InvolvedObject.Kind})
		})
		return true, list, nil
	})
	m := &Manager{Clients: Clients{Kube: kube, Options: Options{ResyncPeriod: time.Hour}}}
	events, err := newPodEvents(m)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, sel := range m.selections() {
		m.selected[sel].Start(ctx.Done())
		if err := cacheSynced("", m.selected[sel].WaitForCacheSync(ctx.Done())); err != nil {
			t.Fatal(err)
		}
	}
	names := func(evs []corev1.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Name)
		}
		slices.Sort(out)
		return out
	}
	// By the object each is about: a pod's Warnings and Pulling events, the one both informers hold once; not its
	// other Normal events, nor another kind's Pulling, nor a pod of the same name elsewhere.
	for _, tc := range []struct {
		kind, namespace string
		want            []string
	}{
		{"Pod", "ns", []string{"pulling", "pulling-warning", "scheduling"}},
		{"InferenceService", "ns", []string{"isvc"}},
		{"Job", "ns", nil},
		{"Pod", "other", []string{"elsewhere"}},
	} {
		if diff := cmp.Diff(tc.want, names(events.About(tc.kind, tc.namespace, "p"))); diff != "" {
			t.Errorf("events about %s %s/p (-want +got):\n%s", tc.kind, tc.namespace, diff)
		}
	}
	// By kind, namespace and a rule on names: the ReplicaSets of one Deployment, not another's in the namespace.
	chatRS := func(name string) bool { return strings.HasPrefix(name, "chat-predictor-") }
	if diff := cmp.Diff([]string{"rs-chat"}, names(events.AboutNamed("ReplicaSet", "ns", chatRS))); diff != "" {
		t.Errorf("events about ReplicaSets of chat-predictor in ns (-want +got):\n%s", diff)
	}
	if got := len(events.Dependencies(cache.ResourceEventHandlerFuncs{})); got != 2 {
		t.Errorf("%d dependencies, want one per informer", got)
	}
}
