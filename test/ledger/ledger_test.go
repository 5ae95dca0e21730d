package ledger

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// memStore is a Store in memory; lose drops every acknowledged write of one name, as a server that lost it.
type memStore struct {
	mu      sync.Mutex
	objects map[string]string
	lose    string
}

var gr = schema.GroupResource{Group: "test", Resource: "things"}

func (s *memStore) Create(_ context.Context, name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[name]; ok {
		return apierrors.NewAlreadyExists(gr, name)
	}
	if name != s.lose {
		s.objects[name] = value
	}
	return nil
}

func (s *memStore) Get(_ context.Context, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.objects[name]
	if !ok {
		return "", apierrors.NewNotFound(gr, name)
	}
	return v, nil
}

func (s *memStore) Update(_ context.Context, name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[name]; !ok {
		return apierrors.NewNotFound(gr, name)
	}
	s.objects[name] = value
	return nil
}

func (s *memStore) Delete(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[name]; !ok {
		return apierrors.NewNotFound(gr, name)
	}
	delete(s.objects, name)
	return nil
}

func (s *memStore) List(context.Context) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.objects {
		out[k] = v
	}
	return out, nil
}

func churn(t *testing.T, s Store) Counts {
	t.Helper()
	l := New()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	l.Churn(ctx, s, "x", 0, 3, 0)
	if _, err := l.Check(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return l.Counts()
}

func TestHonestStoreKeepsTheLedger(t *testing.T) {
	c := churn(t, &memStore{objects: map[string]string{}})
	if len(c.Violations) != 0 || c.Acked < 100 {
		t.Errorf("honest store: %d acknowledged, violations %v", c.Acked, c.Violations)
	}
}

func TestLostWritesAreFound(t *testing.T) {
	c := churn(t, &memStore{objects: map[string]string{}, lose: "x-0-1"})
	if len(c.Violations) == 0 || !strings.Contains(strings.Join(c.Violations, "\n"), "x-0-1") {
		t.Errorf("a store that loses x-0-1's creates: violations %v", c.Violations)
	}
}

func TestResurrectedDeletesAreFound(t *testing.T) {
	l := New()
	s := &memStore{objects: map[string]string{}}
	l.step(s, "y", "1") // create
	if err := s.Delete(context.Background(), "y"); err != nil {
		t.Fatal(err)
	}
	l.record(l.entries["y"], entry{}, true, nil) // the ledger saw a delete acknowledged
	_ = s.Create(context.Background(), "y", "1") // and the server brings it back
	if _, err := l.Check(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if v := l.Counts().Violations; len(v) != 1 || !strings.Contains(v[0], "resurrected") {
		t.Errorf("violations %v", v)
	}
}

func TestFailureNamesWhatTheClientSaw(t *testing.T) {
	for err, want := range map[error]string{
		apierrors.NewServiceUnavailable("down"):      "503",
		apierrors.NewTooManyRequests("slow", 1):      "429",
		context.DeadlineExceeded:                     "timeout",
		apierrors.NewInternalError(context.Canceled): "500",
	} {
		if got := Failure(err); got != want {
			t.Errorf("Failure(%v) = %q, want %q", err, got, want)
		}
	}
}

// retryingStore answers a create AlreadyExists after storing it, as a client that sent the create again after
// a 5xx with Retry-After sees its own first attempt.
type retryingStore struct{ *memStore }

func (s retryingStore) Create(ctx context.Context, name, value string) error {
	if err := s.memStore.Create(ctx, name, value); err != nil {
		return err
	}
	return apierrors.NewAlreadyExists(gr, name)
}

func TestOwnRetriedCreateIsNoResurrection(t *testing.T) {
	c := churn(t, retryingStore{&memStore{objects: map[string]string{}}})
	if len(c.Violations) != 0 || c.RetriedCreates == 0 {
		t.Errorf("a create that found its own first attempt: %d retried creates, violations %v", c.RetriedCreates, c.Violations)
	}
	// An object of another value is one that came back.
	l := New()
	s := &memStore{objects: map[string]string{"z": "old"}}
	l.step(s, "z", "new")
	if v := l.Counts().Violations; len(v) != 1 || !strings.Contains(v[0], "value old (resurrected)") {
		t.Errorf("violations %v", v)
	}
}
