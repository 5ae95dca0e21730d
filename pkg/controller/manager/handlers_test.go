package manager

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// TestKindsResyncAndDependenciesDoNot: on an informer that resyncs, the handler of the kind a controller
// reconciles (NewKindController) queues every object again each period, and a dependency's handler registered
// with the controller (Manager.Add) gets the object once.
func TestKindsResyncAndDependenciesDoNot(t *testing.T) {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"},
				Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "team", ResourceVersion: "1"}}}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, time.Second, cache.Indexers{}) // client-go's shortest
	c, err := NewKindController("test", ReconcilerFunc(func(context.Context, cache.ObjectName) (time.Duration, error) { return 0, nil }), inf)
	if err != nil {
		t.Fatal(err)
	}
	var own, dependency atomic.Int32
	m := &Manager{}
	if err := m.Add(c, Dependency{Informer: inf, Handler: OnEvery(func(metav1.Object) { dependency.Add(1) })}); err != nil {
		t.Fatal(err)
	}
	// Each delivery of the own handler is a key queued again once the previous one is done.
	q := c.startTerm()
	defer c.endTerm()
	go func() {
		for {
			key, shutdown := q.Get()
			if shutdown {
				return
			}
			own.Add(1)
			q.Done(key)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for own.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if own.Load() < 3 {
		t.Fatalf("the kind's key was queued %d times in 5 s; its handler does not resync", own.Load())
	}
	if n := dependency.Load(); n != 1 {
		t.Errorf("the dependency's handler saw the object %d times while the kind's key was queued %d times, want once", n, own.Load())
	}
	if len(m.controllers) != 1 || m.controllers[0] != c {
		t.Errorf("Add registered %d controllers, want the one", len(m.controllers))
	}
}

// TestOnSpecChange: adds, deletes, a new generation and the start of a deletion reach the handler; a write of
// the status or the metadata alone does not.
func TestOnSpecChange(t *testing.T) {
	var got []string
	h := OnSpecChange(OnEvery(func(c *corev1.ConfigMap) { got = append(got, c.ResourceVersion) }))
	obj := func(rv string, gen int64, deleting bool) *corev1.ConfigMap {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: rv, Generation: gen}}
		if deleting {
			c.DeletionTimestamp = &metav1.Time{}
		}
		return c
	}
	h.OnAdd(obj("1", 1, false), false)
	h.OnUpdate(obj("1", 1, false), obj("2", 1, false)) // status or labels
	h.OnUpdate(obj("2", 1, false), obj("3", 2, false)) // spec
	h.OnUpdate(obj("3", 2, false), obj("4", 2, true))  // deletion begins
	h.OnDelete(obj("4", 2, true))
	if want := []string{"1", "3", "4", "4"}; !slices.Equal(got, want) {
		t.Errorf("handled %v, want %v", got, want)
	}
}
