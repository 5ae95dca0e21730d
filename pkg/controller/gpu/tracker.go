package gpu

import (
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
)

// Tracker is the GPU inventory of a cluster, kept up to date from the Node informer's events. A reconcile
// reads it without listing and copying every Node, and controllers hear of a change of the inventory rather
// than of any node: kubelets rewrite their Node's status every few seconds to minutes, and a cluster's CPU
// nodes change their labels too, none of which moves a GPU.
type Tracker struct {
	mu        sync.RWMutex
	nodes     map[string]Node
	inventory Inventory
	listeners []func(before, after Inventory)
}

// NewTracker returns an empty tracker; register Handler on a Node informer.
func NewTracker() *Tracker {
	return &Tracker{nodes: map[string]Node{}}
}

// Inventory is the current inventory. It is never modified afterwards: a change makes a new one.
func (t *Tracker) Inventory() Inventory {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.inventory
}

// OnChange calls f after every change of the inventory, from the informer's goroutine. Register before the
// informer starts.
func (t *Tracker) OnChange(f func(before, after Inventory)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listeners = append(t.listeners, f)
}

// Handler is the Node informer's event handler.
func (t *Tracker) Handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { t.observe(obj, false) },
		UpdateFunc: func(_, obj any) { t.observe(obj, false) },
		DeleteFunc: func(obj any) { t.observe(obj, true) },
	}
}

func (t *Tracker) observe(obj any, deleted bool) {
	n, ok := manager.EventObject[*corev1.Node](obj)
	if !ok {
		return
	}
	entry, hasGPU := nodeEntry(n)
	hasGPU = hasGPU && !deleted
	t.mu.Lock()
	old, had := t.nodes[n.Name]
	if had == hasGPU && (!hasGPU || apiequality.Semantic.DeepEqual(old, entry)) {
		t.mu.Unlock()
		return
	}
	if hasGPU {
		t.nodes[n.Name] = entry
	} else {
		delete(t.nodes, n.Name)
	}
	before := t.inventory
	t.inventory = inventoryOf(slices.Collect(maps.Values(t.nodes)))
	after, listeners := t.inventory, slices.Clone(t.listeners)
	t.mu.Unlock()
	for _, f := range listeners {
		f(before, after)
	}
}
