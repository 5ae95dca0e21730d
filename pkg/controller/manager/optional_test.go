package manager

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// TestOptionalAPIServedLater: an API the cluster does not serve when the controller starts is cached once
// discovery finds it, without a restart; its handlers hear of its objects, and the served functions run once
// the cache, published, lists them. An API served from the start is cached at once.
func TestOptionalAPIServedLater(t *testing.T) {
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	gadgets := schema.GroupVersionResource{Group: "gadgets.example.com", Version: "v1", Resource: "gadgets"}
	var widgetsServed atomic.Bool
	var widgetDiscoveries atomic.Int32
	resources := func(gvr schema.GroupVersionResource) []byte {
		b, _ := json.Marshal(metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gvr.GroupVersion().String(),
			APIResources: []metav1.APIResource{{Name: gvr.Resource, Namespaced: true, Kind: "Widget", Verbs: metav1.Verbs{"list", "watch"}}}})
		return b
	}
	widget := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns", "resourceVersion": "1",
		"ownerReferences": []any{map[string]any{"apiVersion": "aim.eai.amd.com/v1alpha1", "kind": "AIMService", "name": "chat", "uid": "svc-uid", "controller": true}}},
		"data": map[string]any{"k": "v"}}
	m := managerOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/apis/example.com/v1":
			widgetDiscoveries.Add(1)
			if !widgetsServed.Load() {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write(resources(widgets))
		case r.URL.Path == "/apis/gadgets.example.com/v1":
			_, _ = w.Write(resources(gadgets))
		case r.URL.Query().Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case r.URL.Path == "/apis/example.com/v1/widgets":
			b, _ := json.Marshal(map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList", "metadata": map[string]any{"resourceVersion": "1"}, "items": []any{widget}})
			_, _ = w.Write(b)
		case r.URL.Path == "/apis/gadgets.example.com/v1/gadgets":
			_, _ = w.Write([]byte(`{"apiVersion":"gadgets.example.com/v1","kind":"GadgetList","metadata":{"resourceVersion":"1"},"items":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	newObj := func() runtime.Object { return &corev1.ConfigMap{} }
	o := m.Optional(widgets, newObj)
	if m.Optional(widgets, newObj) != o {
		t.Error("a second caller of one resource got another cache")
	}
	added := make(chan string, 10)
	servedSeen := make(chan bool, 1)
	o.Watch(cache.Indexers{ControllerIndex: IndexByController},
		cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { added <- obj.(*corev1.ConfigMap).Name }},
		func() { servedSeen <- o.Lister() != nil })
	always := m.Optional(gadgets, newObj)
	always.Watch(nil, cache.ResourceEventHandlerFuncs{}, func() { t.Error("served called for an API served from the start") })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	missing, err := m.informOptional(ctx)
	if err != nil || len(missing) != 1 || missing[0] != o {
		t.Fatalf("missing %v (%v), want the widgets only", missing, err)
	}
	if always.Lister() == nil || always.Indexer() == nil {
		t.Error("an API served from the start has no cache")
	}
	if o.Lister() != nil || o.Indexer() != nil {
		t.Fatal("an API the cluster does not serve has a cache")
	}
	go m.awaitOptional(ctx, o, 10*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for widgetDiscoveries.Load() < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if o.Lister() != nil || len(added) > 0 || len(servedSeen) > 0 {
		t.Fatal("cached while the cluster does not serve the API")
	}

	widgetsServed.Store(true)
	select {
	case listed := <-servedSeen:
		if !listed {
			t.Error("served ran before the cache was published")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the API the cluster serves now was not cached")
	}
	select {
	case name := <-added:
		if name != "w" {
			t.Errorf("handler heard of %q", name)
		}
	default:
		t.Error("the handler had not heard of the object when served ran")
	}
	objs, err := o.Lister().List(labels.Everything())
	if err != nil || len(objs) != 1 {
		t.Fatalf("listed %v (%v)", objs, err)
	}
	if _, typed := objs[0].(*corev1.ConfigMap); !typed {
		t.Errorf("cached as %T, want the registered Go type", objs[0])
	}
	if owned, err := o.Indexer().ByIndex(ControllerIndex, "svc-uid"); err != nil || len(owned) != 1 {
		t.Errorf("by controller: %v (%v)", owned, err)
	}
}
