// Package expectations remembers the objects a controller created until its informer shows them, as
// kube-controller-manager's ControllerExpectations do. A count taken from the informer cache alone misses an
// object created a moment ago, so a limit on running objects would be overshot by concurrent workers.
package expectations

import (
	"sync"
	"time"
)

// DefaultTTL is how long a creation is expected before it is forgotten (kube-controller-manager's
// ExpectationsTimeout): an informer that never shows it, because the object was deleted at once, must not hold
// a slot forever.
const DefaultTTL = 5 * time.Minute

// Creations are the objects created and not yet seen in the cache, by namespace/name key.
type Creations struct {
	mu      sync.Mutex
	pending map[string]time.Time
	ttl     time.Duration
	now     func() time.Time
}

// NewCreations returns an empty set whose entries expire after ttl.
func NewCreations(ttl time.Duration) *Creations {
	return &Creations{pending: map[string]time.Time{}, ttl: ttl, now: time.Now}
}

// Expect records that the object key was just created.
func (c *Creations) Expect(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[key] = c.now()
}

// Observed forgets key: the informer has shown its creation (kube-controller-manager's CreationObserved).
// Without it a Job created, seen and deleted between two counts would count as pending until its TTL.
func (c *Creations) Observed(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, key)
}

// Pending counts the creations the cache does not show yet; seen reports whether it shows key. Entries the
// cache shows, and expired ones, are forgotten: from then on the cache counts them.
func (c *Creations) Pending(seen func(key string) bool) int {
	return len(c.PendingKeys(seen))
}

// PendingKeys are the keys Pending counts.
func (c *Creations) PendingKeys(seen func(key string) bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []string
	for key, at := range c.pending {
		if seen(key) || c.now().Sub(at) > c.ttl {
			delete(c.pending, key)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// Writes remembers, by object key, the resourceVersion an object had when the controller last wrote it, until
// the cache shows another version: a cache that still shows the version the write replaced has not seen the
// write, and a plan made from it would do again what the write recorded as done.
type Writes struct {
	mu       sync.Mutex
	replaced map[string]string
}

// NewWrites returns an empty set.
func NewWrites() *Writes {
	return &Writes{replaced: map[string]string{}}
}

// Wrote records that the controller wrote key over its version replaced. An object without a version cannot be
// told from its successor and is not remembered.
func (w *Writes) Wrote(key, replaced string) {
	if replaced == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.replaced[key] = replaced
}

// Unseen reports whether the cache, which shows key at version cached, has not seen the last write of key yet.
// Once it has, the write is forgotten.
func (w *Writes) Unseen(key, cached string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	replaced, ok := w.replaced[key]
	if ok && replaced == cached {
		return true
	}
	delete(w.replaced, key)
	return false
}

// Forget drops key: the object is gone.
func (w *Writes) Forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.replaced, key)
}
