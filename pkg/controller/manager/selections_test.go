package manager

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
)

// TestSelectedInformersListOnlyTheSelection: a selection's informers ask the API server for the selected
// objects only (label and field selector on the list and the watch), and one selection is one factory.
func TestSelectedInformersListOnlyTheSelection(t *testing.T) {
	mine := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "ns", Labels: map[string]string{"app.kubernetes.io/name": "aim-discovery"}}}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "ns", Labels: map[string]string{"app": "web"}}}
	kube := fake.NewClientset(mine, other)
	var mu sync.Mutex
	asked := map[string][2]string{}
	record := func(a clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		switch a := a.(type) {
		case clienttesting.ListAction:
			r := a.GetListRestrictions()
			asked["list"] = [2]string{r.Labels.String(), r.Fields.String()}
		case clienttesting.WatchAction:
			r := a.GetWatchRestrictions()
			asked["watch"] = [2]string{r.Labels.String(), r.Fields.String()}
		}
		return false, nil, nil
	}
	kube.PrependReactor("list", "pods", record)
	kube.PrependWatchReactor("pods", func(a clienttesting.Action) (bool, watch.Interface, error) {
		record(a)
		return false, nil, nil
	})
	m := &Manager{Clients: Clients{Kube: kube, Options: Options{ResyncPeriod: time.Hour}}}
	sel := Selection{Labels: "app.kubernetes.io/name=aim-discovery", Fields: "metadata.namespace=ns"}
	f := m.Selected(sel)
	if m.Selected(sel) != f {
		t.Error("the same selection made a second factory")
	}
	if m.Selected(Selection{Labels: "app=web"}) == f {
		t.Error("another selection shares the factory")
	}
	pods := f.Core().V1().Pods()
	lister := pods.Lister()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx.Done())
	if err := cacheSynced("", f.WaitForCacheSync(ctx.Done())); err != nil {
		t.Fatal(err)
	}
	cached, err := lister.List(labels.Everything())
	if err != nil || len(cached) != 1 || cached[0].Name != "mine" {
		t.Errorf("cached %v (%v), want only the selected pod", cached, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, verb := range []string{"list", "watch"} {
		r, ok := asked[verb]
		if !ok {
			t.Errorf("no %s", verb)
			continue
		}
		if r != [2]string{sel.Labels, sel.Fields} {
			t.Errorf("%s asked for labels and fields %q, want %q, %q", verb, r, sel.Labels, sel.Fields)
		}
	}
}

// TestDynamicInformersCacheOnlyTheChildrenOfServices: the informers on other projects' resources list and
// watch with the AIM service label, so InferenceServices and HTTPRoutes of others are not cached.
func TestDynamicInformersCacheOnlyTheChildrenOfServices(t *testing.T) {
	queries := make(chan string, 10)
	m := managerOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case queries <- r.URL.Path + "?" + r.URL.RawQuery:
		default:
		}
		http.NotFound(w, r)
	}))
	if _, err := m.dynamic.informer(schema.GroupVersionResource{Group: "serving.kserve.io", Version: "v1beta1", Resource: "inferenceservices"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.dynamic.factory.Start(ctx.Done())
	select {
	case q := <-queries:
		if !strings.HasPrefix(q, "/apis/serving.kserve.io/v1beta1/inferenceservices?") || !strings.Contains(q, "labelSelector=aim.eai.amd.com%2Fservice") {
			t.Errorf("first request %s, want a list of inferenceservices with labelSelector=aim.eai.amd.com/service", q)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the informer sent no request")
	}
}

// managerOf is a manager without leader election whose clients all reach the API server h serves.
func managerOf(t *testing.T, h http.Handler) *Manager {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL}
	opts := DefaultOptions()
	opts.LeaderElect = false
	m, err := New(cfg, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
