// Package ledger keeps the record of a churn of creates, updates and deletes against a server that is being
// faulted (killed, restarted, cut off from etcd), and checks the server's final state against it: an
// acknowledged write must not be lost, an acknowledged delete must not come back. The crash-consistency e2e test
// and the soak (hack/bench-controller -soak) share it.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Store is one kind of object the churn writes, each holding one value the ledger can read back.
type Store interface {
	Create(ctx context.Context, name, value string) error
	// Get returns the stored value; a NotFound error when the object does not exist.
	Get(ctx context.Context, name string) (string, error)
	Update(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error
	// List returns every object's value by name.
	List(ctx context.Context) (map[string]string, error)
}

// entry is what the ledger knows of one object: the outcome of the last acknowledged write, unless a write
// since then had no answer (uncertain: it may or may not have been applied).
type entry struct {
	exists    bool
	value     string
	uncertain bool
}

// Ledger records the churn's acknowledged writes and what contradicts them.
type Ledger struct {
	mu         sync.Mutex
	entries    map[string]*entry
	violations []string
	acked      int
	unanswered int
	// failures counts the churn's failed requests by what the client saw (Failure).
	failures map[string]int
	// retriedCreates found their own first attempt (ownCreate); ambiguousDeletes were answered NotFound: the
	// client's retry of a delete that went through, or a lost object.
	retriedCreates, ambiguousDeletes int
}

// New is an empty ledger.
func New() *Ledger { return &Ledger{entries: map[string]*entry{}, failures: map[string]int{}} }

// Violation records a contradiction of the ledger.
func (l *Ledger) Violation(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.violations = append(l.violations, fmt.Sprintf(format, args...))
}

// Churn runs one worker's creates, updates and deletes over its own objects (prefix-worker-0..objects-1) until
// ctx ends, pausing pause between requests.
func (l *Ledger) Churn(ctx context.Context, s Store, prefix string, worker, objects int, pause time.Duration) {
	seq := 0
	for ctx.Err() == nil {
		name := fmt.Sprintf("%s-%d-%d", prefix, worker, rand.IntN(objects))
		seq++
		l.step(s, name, fmt.Sprintf("%d-%d", worker, seq))
		if pause > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
	}
}

// step sends one request for name and records its outcome.
func (l *Ledger) step(s Store, name, value string) {
	l.mu.Lock()
	e, ok := l.entries[name]
	if !ok {
		e = &entry{}
		l.entries[name] = e
	}
	cur := *e
	l.mu.Unlock()
	// Each call gets its own deadline and ignores the churn's end: an answer is an answer.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	var next entry
	write := true
	switch {
	case cur.uncertain:
		write = false
		var got string
		got, err = s.Get(ctx, name)
		switch {
		case err == nil:
			next = entry{exists: true, value: got}
		case apierrors.IsNotFound(err):
			next, err = entry{}, nil
		}
	case !cur.exists:
		err = s.Create(ctx, name, value)
		if apierrors.IsAlreadyExists(err) {
			err = l.ownCreate(ctx, s, name, value)
		}
		next = entry{exists: true, value: value}
	case rand.IntN(10) < 7:
		err = s.Update(ctx, name, value)
		if apierrors.IsNotFound(err) {
			l.Violation("%s: update of an acknowledged object found it gone (lost write)", name)
		}
		next = entry{exists: true, value: value}
	default:
		err = s.Delete(ctx, name)
		if apierrors.IsNotFound(err) {
			// Gone, as asked; but whether by this delete sent again (below) or by a loss is not told apart.
			err = nil
			l.mu.Lock()
			l.ambiguousDeletes++
			l.mu.Unlock()
		}
		next = entry{}
	}
	l.record(e, next, write, err)
}

func (l *Ledger) record(e *entry, next entry, write bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil:
		*e = next
		if write {
			l.acked++
		}
		return
	case apierrors.IsNotFound(err), apierrors.IsAlreadyExists(err):
		// A contradiction, recorded by the caller; what the server holds is now unknown to the ledger.
	default:
		// No answer, or an error (the server died under the request): it may or may not have happened.
		l.unanswered++
	}
	*e = entry{uncertain: true}
	l.failures[Failure(err)]++
}

// ownCreate tells a create answered AlreadyExists after an acknowledged delete: client-go sends a write again
// after a 5xx with Retry-After, which a server answers when its store timed out on a write that may still
// commit (an etcd cut off), so the object found may be this create's own first attempt. Every create carries
// a value of its own: the object holding it is this create's; any other value came back from the past.
func (l *Ledger) ownCreate(ctx context.Context, s Store, name, value string) error {
	got, err := s.Get(ctx, name)
	switch {
	case err != nil:
		return err
	case got != value:
		l.Violation("%s: create after an acknowledged delete found it present with value %s (resurrected)", name, got)
		return apierrors.NewAlreadyExists(schema.GroupResource{}, name)
	}
	l.mu.Lock()
	l.retriedCreates++
	l.mu.Unlock()
	return nil
}

// Failed counts a failed request that the ledger does not track (a noisy client's read).
func (l *Ledger) Failed(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures[Failure(err)]++
}

// Failure names what a client saw of a failed request: the HTTP status of an API error, or the kind of
// transport failure.
func Failure(err error) string {
	var status apierrors.APIStatus
	var netErr net.Error
	switch {
	case errors.As(err, &status) && status.Status().Code != 0:
		return strconv.Itoa(int(status.Status().Code))
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &netErr):
		return "network"
	}
	return "other"
}

// Check compares what the server holds now (List) with the ledger, records every contradiction and returns
// how many objects it could check (those whose last write was answered).
func (l *Ledger) Check(ctx context.Context, s Store) (checked int, err error) {
	stored, err := s.List(ctx)
	if err != nil {
		return 0, fmt.Errorf("listing the churn's objects: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for name, e := range l.entries {
		if e.uncertain {
			continue
		}
		checked++
		got, exists := stored[name]
		switch {
		case e.exists && !exists:
			l.violations = append(l.violations, fmt.Sprintf("%s: acknowledged with value %s, now missing (lost write)", name, e.value))
		case e.exists && got != e.value:
			l.violations = append(l.violations, fmt.Sprintf("%s: acknowledged value %s, stored %s (lost update)", name, e.value, got))
		case !e.exists && exists:
			l.violations = append(l.violations, fmt.Sprintf("%s: acknowledged delete, now exists with %s (resurrected)", name, got))
		}
	}
	return checked, nil
}

// Counts are the ledger's figures so far.
type Counts struct {
	Acked, Unanswered, Objects       int
	RetriedCreates, AmbiguousDeletes int
	Violations                       []string
	// Failures counts failed requests by what the client saw (Failure), sorted by key in String.
	Failures map[string]int
}

// Counts returns a copy of the ledger's figures.
func (l *Ledger) Counts() Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := make(map[string]int, len(l.failures))
	for k, v := range l.failures {
		f[k] = v
	}
	return Counts{Acked: l.acked, Unanswered: l.unanswered, Objects: len(l.entries),
		RetriedCreates: l.retriedCreates, AmbiguousDeletes: l.ambiguousDeletes,
		Violations: append([]string(nil), l.violations...), Failures: f}
}

// FailuresSince are the failures counted after before, as "status: count" pairs sorted by status; "none" if
// there were none.
func (c Counts) FailuresSince(before Counts) string {
	var keys []string
	for k, v := range c.Failures {
		if v > before.Failures[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "none"
	}
	sort.Strings(keys)
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s: %d", k, c.Failures[k]-before.Failures[k])
	}
	return out
}
