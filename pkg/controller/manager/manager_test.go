package manager

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestWorkersSurviveALeadershipTerm: a replica that loses the Lease and wins it back reconciles again, and what
// was queued between the terms is not lost.
func TestWorkersSurviveALeadershipTerm(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	c := NewController("test", ReconcilerFunc(func(_ context.Context, key string) (time.Duration, error) {
		mu.Lock()
		defer mu.Unlock()
		seen[key]++
		return 0, nil
	}))
	m := &Manager{Clients: Clients{Options: Options{Workers: 2}}, controllers: []*Controller{c}}
	processed := func(key string) bool {
		mu.Lock()
		defer mu.Unlock()
		return seen[key] > 0
	}
	waitFor := func(key string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !processed(key) {
			if time.Now().After(deadline) {
				t.Fatalf("%s was not reconciled", key)
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

	stop := term()
	c.Queue.Add("ns/first")
	waitFor("ns/first")
	stop()

	c.Queue.Add("ns/between") // an event while another replica leads
	stop = term()
	waitFor("ns/between")
	c.Queue.Add("ns/second")
	waitFor("ns/second")
	stop()

	mu.Lock()
	defer mu.Unlock()
	for k := range seen {
		if len(k) > 0 && k[0] == 0 {
			t.Errorf("a stop key reached the reconciler: %q", k)
		}
	}
}
