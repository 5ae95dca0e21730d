package manager

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// TestWatchLeavesOutTheResync: on an informer that resyncs, a controller's own handler gets every object again
// each period, and a dependency's handler registered through Watch gets the object once.
func TestWatchLeavesOutTheResync(t *testing.T) {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"},
				Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "team", ResourceVersion: "1"}}}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, time.Second, cache.Indexers{}) // client-go's shortest
	var own, dependency atomic.Int32
	count := func(n *atomic.Int32) cache.ResourceEventHandler {
		return OnEvery(func(metav1.Object) { n.Add(1) })
	}
	if _, err := inf.AddEventHandler(count(&own)); err != nil {
		t.Fatal(err)
	}
	if err := Watch(Dependency{Informer: inf, Handler: count(&dependency)}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for own.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if own.Load() < 3 {
		t.Fatalf("the own handler saw the object %d times in 5 s; the informer does not resync", own.Load())
	}
	if n := dependency.Load(); n != 1 {
		t.Errorf("the dependency's handler saw the object %d times while the own handler saw it %d times, want once", n, own.Load())
	}
}
