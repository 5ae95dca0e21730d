package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Steady remembers the children a reconcile found as desired, so that the resync of an unchanged parent and
// child does not build and compare the apply body again: PrepareApply's answer depends on the desired object
// and the live one only, and the live one cannot have changed while its resourceVersion has not. Building and
// comparing the body was 37 % of aim-apiserver's CPU in a steady state of 1,000 services (bench-controller
// --cpu-profile); the desired object's JSON, which decides whether it changed, is a fraction of that.
type Steady struct {
	mu      sync.Mutex
	entries map[types.UID]steadyEntry
	swept   time.Time
}

type steadyEntry struct {
	resourceVersion string
	desired         fingerprint
	used            time.Time
}

// fingerprint identifies a desired object: by the inputs it was built from alone (ApplyChangedFrom), or else
// by its JSON.
type fingerprint struct {
	inputs string
	json   [sha256.Size]byte
}

// steadyTTL is how long an entry that no reconcile used is kept: longer than any resync period, so that an
// entry of a deleted child goes, and the entry of a live one stays.
const steadyTTL = time.Hour

// ApplyChanged is the package's ApplyChanged, skipped when live is the resourceVersion that a reconcile with the
// same desired object found steady before.
func (s *Steady) ApplyChanged(ctx context.Context, obj, live runtime.Object, send func(ctx context.Context, body []byte) error) (sent bool, err error) {
	return s.ApplyChangedFrom(ctx, "", obj, live, send)
}

// ApplyChangedFrom is ApplyChanged for a desired object built from inputs alone, which inputs identifies (the
// objects by Version, other values as they are): the same inputs build the same object, so they stand for its
// JSON, the fingerprint ApplyChanged makes, which was a fifth of the CPU of a steady service's reconcile
// (BenchmarkReconcileSteady). Empty inputs (an input without a version) fall back to the JSON.
func (s *Steady) ApplyChangedFrom(ctx context.Context, inputs string, obj, live runtime.Object, send func(ctx context.Context, body []byte) error,
	unhashed ...[]string) (sent bool, err error) {
	m, desired, ok := s.key(inputs, obj, live)
	if ok && s.known(m.GetUID(), m.GetResourceVersion(), desired) {
		return false, nil
	}
	sent, err = ApplyChanged(ctx, obj, live, send, unhashed...)
	if ok && !sent && err == nil {
		s.remember(m.GetUID(), m.GetResourceVersion(), desired)
	}
	return sent, err
}

// key is live's metadata and the fingerprint of the desired object; ok is false when there is no live object
// (or its metadata or the fingerprint cannot be had).
func (s *Steady) key(inputs string, obj, live runtime.Object) (metav1.Object, fingerprint, bool) {
	if live == nil || reflect.ValueOf(live).IsNil() {
		return nil, fingerprint{}, false
	}
	m, err := meta.Accessor(live)
	if err != nil || m.GetUID() == "" || m.GetResourceVersion() == "" {
		return nil, fingerprint{}, false
	}
	if inputs != "" {
		return m, fingerprint{inputs: inputs}, true
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fingerprint{}, false
	}
	return m, fingerprint{json: sha256.Sum256(data)}, true
}

// Version identifies one state of an object, for ApplyChangedFrom's inputs: its UID and resourceVersion (a
// change of anything in it is a new resourceVersion). It is "" for an object without a resourceVersion, which
// was not read from the API and so says nothing of its state.
func Version(obj metav1.Object) string {
	if obj.GetResourceVersion() == "" {
		return ""
	}
	return string(obj.GetUID()) + "@" + obj.GetResourceVersion()
}

// SpecVersion is Version for an input whose dependents read its spec alone: its UID and generation, which a write
// of its status or metadata does not move. Without a generation it is Version.
func SpecVersion(obj metav1.Object) string {
	if obj.GetGeneration() == 0 {
		return Version(obj)
	}
	return string(obj.GetUID()) + "#" + strconv.FormatInt(obj.GetGeneration(), 10)
}

// KnownInputs is the inputs (ApplyChangedFrom's) that a reconcile found live steady with, "" if none: a planner
// that would build the desired object from the same inputs need not build it, nothing is to be sent.
func (s *Steady) KnownInputs(live metav1.Object) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[live.GetUID()]
	if !ok || e.resourceVersion != live.GetResourceVersion() || live.GetResourceVersion() == "" {
		return ""
	}
	e.used = time.Now()
	s.entries[live.GetUID()] = e
	return e.desired.inputs
}

func (s *Steady) known(uid types.UID, rv string, desired fingerprint) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[uid]
	if !ok || e.resourceVersion != rv || e.desired != desired {
		return false
	}
	e.used = time.Now()
	s.entries[uid] = e
	return true
}

func (s *Steady) remember(uid types.UID, rv string, desired fingerprint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.entries == nil {
		s.entries = map[types.UID]steadyEntry{}
	}
	s.entries[uid] = steadyEntry{resourceVersion: rv, desired: desired, used: now}
	if now.Sub(s.swept) > steadyTTL/4 {
		for k, e := range s.entries {
			if now.Sub(e.used) > steadyTTL {
				delete(s.entries, k)
			}
		}
		s.swept = now
	}
}
