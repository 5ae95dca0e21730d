package manager

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"
)

// keyStore is a primary store whose keys the test sets.
type keyStore struct {
	mu   sync.Mutex
	keys []string
}

func (s *keyStore) set(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = keys
}

func (s *keyStore) ListKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

var _ cache.KeyLister = &keyStore{}

// TestEveryTermStartsFromThePrimaryKeys: a replica that loses the Lease and wins it back reconciles every object
// again, including what changed while another replica led (adds between terms are dropped, not kept).
func TestEveryTermStartsFromThePrimaryKeys(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	store := &keyStore{}
	c := NewController("test", ReconcilerFunc(func(_ context.Context, name cache.ObjectName) (time.Duration, error) {
		key := name.String()
		mu.Lock()
		defer mu.Unlock()
		seen[key]++
		return 0, nil
	}), store)
	m := &Manager{Clients: Clients{Options: Options{Workers: 2}}, controllers: []*Controller{c}}
	count := func(key string) int {
		mu.Lock()
		defer mu.Unlock()
		return seen[key]
	}
	waitFor := func(key string, n int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for count(key) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%s was reconciled %d times, want %d", key, count(key), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	term := func() (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { m.runWorkers(ctx); close(done) }()
		return func() {
			cancel()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("workers did not stop at the end of the term")
			}
		}
	}

	store.set("ns/a")
	stop := term()
	waitFor("ns/a", 1)
	c.Add(cache.NewObjectName("ns", "event"))
	waitFor("ns/event", 1)
	stop()

	c.Add(cache.NewObjectName("ns", "between")) // an event while another replica leads: dropped
	store.set("ns/a", "ns/between")
	stop = term()
	waitFor("ns/a", 2)
	waitFor("ns/between", 1)
	stop()
	if n := count("ns/between"); n != 1 {
		t.Errorf("ns/between reconciled %d times, want once (from the new term's list)", n)
	}
}

// TestNoReconcileAfterTheTermEnds: keys still queued when leadership is lost are dropped, and no reconcile
// starts with a cancelled context.
func TestNoReconcileAfterTheTermEnds(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var reconciled []string
	cancelledAtStart := false
	c := NewController("test", ReconcilerFunc(func(ctx context.Context, name cache.ObjectName) (time.Duration, error) {
		key := name.String()
		mu.Lock()
		reconciled = append(reconciled, key)
		cancelledAtStart = cancelledAtStart || ctx.Err() != nil
		first := len(reconciled) == 1
		mu.Unlock()
		if first {
			close(started)
			<-release
		}
		return 0, nil
	}), Keys{"ns/busy"})
	m := &Manager{Clients: Clients{Options: Options{Workers: 1}}, controllers: []*Controller{c}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.runWorkers(ctx); close(done) }()
	<-started
	for _, k := range []string{"1", "2", "3"} {
		c.Add(cache.NewObjectName("ns", k))
	}
	cancel()
	time.Sleep(50 * time.Millisecond) // the term ends while the worker is busy
	close(release)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("workers did not stop")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reconciled) != 1 || cancelledAtStart {
		t.Errorf("reconciled %v after the term ended (cancelled at start: %v)", reconciled, cancelledAtStart)
	}
}

// TestAPanickingReconcileIsAnError: a reconcile that panics neither stops its worker nor the process; the key
// is retried with backoff, and the others are reconciled.
func TestAPanickingReconcileIsAnError(t *testing.T) {
	registerControllerMetrics()
	var mu sync.Mutex
	seen := map[string]int{}
	c := NewController("panics", ReconcilerFunc(func(_ context.Context, name cache.ObjectName) (time.Duration, error) {
		key := name.String()
		mu.Lock()
		seen[key]++
		mu.Unlock()
		if key == "bad" {
			var m map[string]int
			m["boom"]++ // assignment to a nil map
		}
		return 0, nil
	}), Keys{"bad", "good"})
	m := &Manager{Clients: Clients{Options: Options{Workers: 1}}, controllers: []*Controller{c}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.runWorkers(ctx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		bad, good := seen["bad"], seen["good"]
		mu.Unlock()
		if bad >= 2 && good >= 1 {
			break // retried after the panic, and the other key went through
		}
		if time.Now().After(deadline) {
			t.Fatalf("bad reconciled %d times, good %d", bad, good)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if _, err := reconcileRecovering(context.Background(), c, cache.NewObjectName("", "bad")); err == nil || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Errorf("error of a panic: %v", err)
	}
	// As controller-runtime counts them: a panic, and an error reconcile.
	panics, _ := testutil.GetCounterMetricValue(reconcilePanics.WithLabelValues(c.Name))
	errs, _ := testutil.GetCounterMetricValue(reconcileErrors.WithLabelValues(c.Name))
	if panics < 3 || errs < 2 { // two reconciles of bad by the workers, then the call above
		t.Errorf("panics counted %v, errors %v", panics, errs)
	}
}

// TestMetricsOfAControllerThatNeverReconciled: its series exist from its start, as controller-runtime's do, so
// that an alert on a rate of errors reads 0 rather than nothing.
func TestMetricsOfAControllerThatNeverReconciled(t *testing.T) {
	registerControllerMetrics()
	c := NewController("idle", ReconcilerFunc(func(context.Context, cache.ObjectName) (time.Duration, error) { return 0, nil }))
	m := &Manager{Clients: Clients{Options: Options{Workers: 3}}, controllers: []*Controller{c}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m.runWorkers(ctx)
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"controller_runtime_reconcile_errors_total": 0, "controller_runtime_reconcile_panics_total": 0,
		"controller_runtime_reconcile_total/requeue_after": 0, "controller_runtime_reconcile_total/error": 0,
		"controller_runtime_max_concurrent_reconciles": 3, "controller_runtime_active_workers": 0}
	got := map[string]float64{}
	for _, f := range families {
		for _, metric := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range metric.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["controller"] != "idle" {
				continue
			}
			key := f.GetName()
			if r := labels["result"]; r != "" {
				key += "/" + r
			}
			got[key] = metric.GetCounter().GetValue() + metric.GetGauge().GetValue()
		}
	}
	for k, v := range want {
		if n, ok := got[k]; !ok || n != v {
			t.Errorf("%s of a controller that never reconciled: %v (present: %v), want %v", k, n, ok, v)
		}
	}
}

// TestQuietEndsOfAReconcile: a write refused because the namespace is terminating ends the reconcile without
// a retry (the namespace's deletion takes the object); a conflict, and a write the migration freeze refused, are
// retried as a requeue, not an error; any other error is retried as an error.
func TestQuietEndsOfAReconcile(t *testing.T) {
	registerControllerMetrics()
	refused := func(terminating bool) error {
		err := apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "j",
			errors.New("unable to create new content in namespace team because it is being terminated"))
		if terminating { // as the NamespaceLifecycle admission plugin says it
			err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause, Field: "metadata.namespace"}}
		}
		return fmt.Errorf("applying Job team/j: %w", err)
	}
	conflict := fmt.Errorf("setting finalizer: %w", apierrors.NewConflict(schema.GroupResource{Resource: "aimservices"}, "x", errors.New("modified")))
	frozen := fmt.Errorf("writing the status of model m: %w", apierrors.NewForbidden(schema.GroupResource{Group: "aim.eai.amd.com", Resource: "aimmodels"}, "m",
		errors.New("ValidatingAdmissionPolicy 'aim-migration-freeze' with binding 'aim-migration-freeze' denied request: aim.eai.amd.com is being migrated")))
	for _, tc := range []struct {
		name     string
		err      error
		requeues int
		result   string
	}{
		{"namespace-terminating", refused(true), 0, resultSuccess},
		{"conflict", conflict, 1, resultRequeue},
		{"migration-freeze", frozen, 1, resultRequeue},
		{"forbidden", refused(false), 1, resultError},
		{"later", nil, 0, resultRequeueAfter},
	} {
		after := time.Duration(0)
		if tc.err == nil {
			after = time.Hour
		}
		c := NewController("quiet-"+tc.name, ReconcilerFunc(func(context.Context, cache.ObjectName) (time.Duration, error) { return after, tc.err }))
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
		key := cache.NewObjectName("team", "x")
		q.Add(key)
		(&Manager{}).processNext(context.Background(), c, q)
		if got := q.NumRequeues(key); got != tc.requeues {
			t.Errorf("%s: %d retries, want %d", tc.name, got, tc.requeues)
		}
		if n, err := testutil.GetCounterMetricValue(reconcileTotal.WithLabelValues(c.Name, tc.result)); err != nil || n != 1 {
			t.Errorf("%s: reconciles with result %q: %v (%v), want 1", tc.name, tc.result, n, err)
		}
		wantErrors := 0.0
		if tc.result == resultError {
			wantErrors = 1
		}
		if n, _ := testutil.GetCounterMetricValue(reconcileErrors.WithLabelValues(c.Name)); n != wantErrors {
			t.Errorf("%s: reconcile errors %v, want %v", tc.name, n, wantErrors)
		}
		q.ShutDown()
	}
}

// TestRecorderForNamesTheController: Events recorded through RecorderFor carry the controller as their source,
// as aim-engine's do.
func TestRecorderForNamesTheController(t *testing.T) {
	broadcaster, scheme, _, err := newEventBroadcaster()
	if err != nil {
		t.Fatal(err)
	}
	defer broadcaster.Shutdown()
	got := make(chan string, 1)
	watch := broadcaster.StartEventWatcher(func(e *corev1.Event) { got <- e.Source.Component })
	defer watch.Stop()
	m := &Manager{broadcaster: broadcaster, eventScheme: scheme}
	m.RecorderFor("aim-service-controller").Event(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}, corev1.EventTypeNormal, "Test", "x")
	select {
	case c := <-got:
		if c != "aim-service-controller" {
			t.Errorf("source %q", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no Event")
	}
}

// TestOnEveryUnwrapsMissedDeletes: a delete the informer missed arrives wrapped; the handler still sees the
// object, and objects of other types pass by.
func TestOnEveryUnwrapsMissedDeletes(t *testing.T) {
	var seen []string
	h := OnEvery(func(p *corev1.Pod) { seen = append(seen, p.Name) })
	h.OnAdd(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "added"}}, false)
	h.OnUpdate(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "old"}}, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "new"}})
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}})
	h.OnAdd(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node"}}, false)
	if diff := cmp.Diff([]string{"added", "new", "gone"}, seen); diff != "" {
		t.Errorf("objects seen (-want +got):\n%s", diff)
	}
}

// TestControlled: the controller index finds a parent's children, and only those it controls.
func TestControlled(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{ControllerIndex: IndexByController})
	child := func(name string, controller bool, uid types.UID) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns",
			OwnerReferences: []metav1.OwnerReference{{UID: uid, Controller: ptr.To(controller)}}}}
	}
	for _, p := range []*corev1.Pod{child("mine", true, "p1"), child("referenced", false, "p1"), child("other", true, "p2"), {ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "ns"}}} {
		if err := indexer.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	got := Controlled(indexer, "p1")
	if len(got) != 1 || got[0].GetName() != "mine" {
		t.Errorf("children of p1: %v", got)
	}
}

// TestDefaultSystemNamespace: aim-engine's variable first, then the chart's, then the pod's service account, as
// aim-engine falls back to it; aim-system when none says. The Lease's namespace is the pod's.
func TestDefaultSystemNamespace(t *testing.T) {
	saFile := func(ns string) func(string) ([]byte, error) {
		return func(path string) ([]byte, error) {
			if ns == "" || path != serviceAccountNamespaceFile {
				return nil, os.ErrNotExist
			}
			return []byte(ns + "\n"), nil
		}
	}
	for _, tc := range []struct {
		env      map[string]string
		sa, want string
	}{
		{map[string]string{"AIM_SYSTEM_NAMESPACE": "aim-engine-ns", "POD_NAMESPACE": "pod-ns"}, "sa-ns", "aim-engine-ns"},
		{map[string]string{"POD_NAMESPACE": "pod-ns"}, "sa-ns", "pod-ns"},
		{nil, "sa-ns", "sa-ns"},
		{nil, "", "aim-system"},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := defaultSystemNamespace(getenv, saFile(tc.sa)); got != tc.want {
			t.Errorf("env %v, service account namespace %q: %q, want %q", tc.env, tc.sa, got, tc.want)
		}
	}
	// The Lease stays in the pod's namespace, where the chart's Role for it is, whatever $AIM_SYSTEM_NAMESPACE
	// says; outside a pod it follows --system-namespace (empty here).
	for _, tc := range []struct {
		env      map[string]string
		sa, want string
	}{
		{map[string]string{"AIM_SYSTEM_NAMESPACE": "aim-engine-ns", "POD_NAMESPACE": "pod-ns"}, "sa-ns", "pod-ns"},
		{map[string]string{"AIM_SYSTEM_NAMESPACE": "aim-engine-ns"}, "sa-ns", "sa-ns"},
		{map[string]string{"AIM_SYSTEM_NAMESPACE": "aim-engine-ns"}, "", ""},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := podNamespace(getenv, saFile(tc.sa)); got != tc.want {
			t.Errorf("Lease: env %v, service account namespace %q: %q, want %q", tc.env, tc.sa, got, tc.want)
		}
	}
}
