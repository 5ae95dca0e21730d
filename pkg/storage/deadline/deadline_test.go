package deadline

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
)

// stalled is an etcd that accepted the connection and never answers: every call waits for its context.
type stalled struct {
	storage.Interface
	calls int
}

func (s *stalled) wait(ctx context.Context) error {
	s.calls++
	<-ctx.Done()
	return ctx.Err()
}

func (s *stalled) Create(ctx context.Context, _ string, _, _ runtime.Object, _ uint64) error {
	return s.wait(ctx)
}

func (s *stalled) Delete(ctx context.Context, _ string, _ runtime.Object, _ *storage.Preconditions, _ storage.ValidateObjectFunc, _ runtime.Object, _ storage.DeleteOptions) error {
	return s.wait(ctx)
}

func (s *stalled) Get(ctx context.Context, _ string, _ storage.GetOptions, _ runtime.Object) error {
	return s.wait(ctx)
}

func (s *stalled) GuaranteedUpdate(ctx context.Context, _ string, _ runtime.Object, _ bool, _ *storage.Preconditions, _ storage.UpdateFunc, _ runtime.Object) error {
	return s.wait(ctx)
}

func TestStalledEtcdIsUnreachableAfterTheTimeout(t *testing.T) {
	inner := &stalled{}
	s := New(inner, 50*time.Millisecond)
	obj := &metav1.Status{}
	ops := map[string]func(context.Context) error{
		"create": func(ctx context.Context) error { return s.Create(ctx, "/k", obj, obj, 0) },
		"delete": func(ctx context.Context) error {
			return s.Delete(ctx, "/k", obj, nil, nil, nil, storage.DeleteOptions{})
		},
		"get":    func(ctx context.Context) error { return s.Get(ctx, "/k", storage.GetOptions{}, obj) },
		"update": func(ctx context.Context) error { return s.GuaranteedUpdate(ctx, "/k", obj, false, nil, nil, nil) },
	}
	for name, op := range ops {
		start := time.Now()
		err := op(context.Background())
		if !storage.IsUnreachable(err) {
			t.Errorf("%s: got %v, want an unreachable storage error", name, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s took %s", name, took)
		}
	}
	if inner.calls != len(ops) {
		t.Errorf("%d calls reached etcd, want %d", inner.calls, len(ops))
	}
}

// TestCallerCancellationIsNotAnOutage: a client that goes away is not reported as unreachable storage.
func TestCallerCancellationIsNotAnOutage(t *testing.T) {
	s := New(&stalled{}, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := s.Create(ctx, "/k", &metav1.Status{}, &metav1.Status{}, 0)
	if storage.IsUnreachable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the caller's deadline", err)
	}
}

type answering struct{ storage.Interface }

func (answering) Create(context.Context, string, runtime.Object, runtime.Object, uint64) error {
	return storage.NewKeyExistsError("/k", 3)
}

func TestAnswersPassThrough(t *testing.T) {
	err := New(answering{}, time.Second).Create(context.Background(), "/k", &metav1.Status{}, &metav1.Status{}, 0)
	if !storage.IsExist(err) {
		t.Errorf("got %v, want etcd's own answer", err)
	}
}

type disconnected struct{ storage.Interface }

func (disconnected) Get(context.Context, string, storage.GetOptions, runtime.Object) error {
	return status.Error(codes.Unavailable, "keepalive ping failed to receive ACK within timeout")
}

// TestLostConnectionIsUnreachable: the etcd client giving up on a connection is an outage, not a 500.
func TestLostConnectionIsUnreachable(t *testing.T) {
	err := New(disconnected{}, time.Minute).Get(context.Background(), "/k", storage.GetOptions{}, &metav1.Status{})
	if !storage.IsUnreachable(err) {
		t.Errorf("got %v, want an unreachable storage error", err)
	}
}
