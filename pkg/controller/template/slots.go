package template

import (
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/expectations"
)

// jobSlots hands out the cluster's discovery Job slots. Counting and creating hold one lock, and a Job created
// counts from its creation on (an expectation) until the informer shows it, so concurrent workers and a cache
// that lags behind cannot overshoot maxConcurrentJobs.
type jobSlots struct {
	mu      sync.Mutex
	created *expectations.Creations
	// active counts the unfinished discovery Jobs the cache shows; cached reports whether it shows a key.
	active func() int
	cached func(key string) bool
}

func newJobSlots(active func() int, cached func(key string) bool) *jobSlots {
	return &jobSlots{created: expectations.NewCreations(expectations.DefaultTTL), active: active, cached: cached}
}

// take runs create for the Job key when fewer than limit discovery Jobs run; it reports false, without error,
// when no slot is free. A Job the cache already shows (an update) takes no new slot.
func (s *jobSlots) take(limit int32, key string, create func() error) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached(key) {
		return true, create()
	}
	if s.active()+s.created.Pending(s.cached) >= int(limit) {
		return false, nil
	}
	// Expected before the create (as kube-controller-manager's ExpectCreations): the informer may show the Job,
	// and lower the expectation, before create returns.
	s.created.Expect(key)
	if err := create(); err != nil {
		s.created.Observed(key)
		return false, err
	}
	return true, nil
}

// observed is the Job informer's handler for the Jobs the slots expect: an added Job is no longer pending.
func (s *jobSlots) observed() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			s.created.Observed(key)
		}
	}}
}
