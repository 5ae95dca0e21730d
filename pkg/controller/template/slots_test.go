package template

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Workers racing for slots while the informer cache shows none of the Jobs they create: the limit holds.
func TestJobSlotsHoldTheLimitUnderConcurrentWorkers(t *testing.T) {
	var mu sync.Mutex
	cache := map[string]bool{} // what the informer shows; it lags until synced below
	slots := newJobSlots(func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(cache)
	}, func(key string) bool {
		mu.Lock()
		defer mu.Unlock()
		return cache[key]
	})
	var created atomic.Int32
	var keys sync.Map
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("ns/job-%d", i)
			if _, err := slots.take(2, key, func() error { created.Add(1); keys.Store(key, true); return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := created.Load(); n != 2 {
		t.Fatalf("created %d Jobs with a limit of 2 and a lagging cache", n)
	}
	// The informer catches up: the two running Jobs now count from the cache, still no third.
	mu.Lock()
	keys.Range(func(k, _ any) bool { cache[k.(string)] = true; return true })
	mu.Unlock()
	if ok, _ := slots.take(2, "ns/job-late", func() error { created.Add(1); return nil }); ok {
		t.Fatal("a third Job got a slot once the cache showed the first two")
	}
	// An update of a running Job takes no new slot and is not refused.
	var key string
	for k := range cache {
		key = k
	}
	if ok, _ := slots.take(2, key, func() error { return nil }); !ok {
		t.Fatal("an update of a running Job was refused")
	}
	// One finishes: a slot frees.
	mu.Lock()
	delete(cache, key)
	mu.Unlock()
	if ok, _ := slots.take(2, "ns/job-next", func() error { return nil }); !ok {
		t.Fatal("no slot after a Job finished")
	}
}

func TestJobSlotsCreateErrorTakesNoSlot(t *testing.T) {
	slots := newJobSlots(func() int { return 0 }, func(string) bool { return false })
	if ok, err := slots.take(1, "ns/a", func() error { return fmt.Errorf("boom") }); ok || err == nil {
		t.Fatalf("failed create: ok=%v err=%v", ok, err)
	}
	if ok, err := slots.take(1, "ns/b", func() error { return nil }); !ok || err != nil {
		t.Fatalf("after a failed create the slot must be free: ok=%v err=%v", ok, err)
	}
}

// TestJobSlotsFreeAJobCreatedSeenAndDeleted: a Job the informer showed and that was then deleted (its template
// deleted, the garbage collector took it) before any other count frees its slot; it used to count as pending
// until the expectation expired, five minutes later.
func TestJobSlotsFreeAJobCreatedSeenAndDeleted(t *testing.T) {
	cached := map[string]bool{}
	slots := newJobSlots(func() int { return 0 }, func(k string) bool { return cached[k] })
	if ok, err := slots.take(1, "ns/a", func() error { return nil }); !ok || err != nil {
		t.Fatalf("first: ok=%v err=%v", ok, err)
	}
	slots.observed().OnAdd(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}, false)
	// Deleted again: the cache no longer shows it.
	if ok, err := slots.take(1, "ns/b", func() error { return nil }); !ok || err != nil {
		t.Fatalf("the slot of a Job seen and deleted is free: ok=%v err=%v", ok, err)
	}
}

// TestJobSlotsFreeAJobSeenBeforeItsCreateReturned: the informer may show a Job, and the garbage collector delete
// it, before the create call has returned to the worker. Recorded after that, the expectation would hold the
// slot for five minutes; the e2e limit test then ran one Job at a time.
func TestJobSlotsFreeAJobSeenBeforeItsCreateReturned(t *testing.T) {
	slots := newJobSlots(func() int { return 0 }, func(string) bool { return false })
	created := func() error {
		slots.observed().OnAdd(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}, false)
		return nil
	}
	if ok, err := slots.take(1, "ns/a", created); !ok || err != nil {
		t.Fatalf("first: ok=%v err=%v", ok, err)
	}
	if ok, err := slots.take(1, "ns/b", func() error { return nil }); !ok || err != nil {
		t.Fatalf("the slot of a Job seen and deleted is free: ok=%v err=%v", ok, err)
	}
}
