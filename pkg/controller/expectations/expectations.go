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
