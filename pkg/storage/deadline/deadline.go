// Package deadline bounds how long a write or a single-object read may wait for etcd, and reports an
// unreachable etcd as such (reason ServerTimeout with Retry-After, which clients retry) rather than as an
// internal error. Without it a request
// against an etcd that accepted the connection but does not answer (a stalled or partitioned member) waits
// until the etcd client's keepalive gives up, about half a minute, before the client sees an error; with it
// the request ends after the timeout with reason ServerTimeout and Retry-After, as Kubernetes answers for any
// unreachable storage.
//
// Lists and watches are left alone: lists are served from the watch cache, and a large list from etcd may
// legitimately take longer than a write ever should.
package deadline

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// RESTOptionsGetter decorates the storage of every resource it returns options for.
type RESTOptionsGetter struct {
	generic.RESTOptionsGetter
	// Timeout bounds each write and single-object read; zero leaves the storage unbounded.
	Timeout time.Duration
}

var _ generic.RESTOptionsGetter = RESTOptionsGetter{}

// GetRESTOptions returns the inner options with the storage decorator wrapped.
func (g RESTOptionsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := g.RESTOptionsGetter.GetRESTOptions(resource, example)
	if err != nil || g.Timeout <= 0 {
		return opts, err
	}
	inner := opts.Decorator
	opts.Decorator = func(config *storagebackend.ConfigForResource, resourcePrefix string,
		keyFunc func(obj runtime.Object) (string, error), newFunc, newListFunc func() runtime.Object,
		getAttrsFunc storage.AttrFunc, triggerFuncs storage.IndexerFuncs, indexers *cache.Indexers,
	) (storage.Interface, factory.DestroyFunc, error) {
		s, destroy, err := inner(config, resourcePrefix, keyFunc, newFunc, newListFunc, getAttrsFunc, triggerFuncs, indexers)
		if err != nil {
			return s, destroy, err
		}
		return New(s, g.Timeout), destroy, nil
	}
	return opts, nil
}

// Storage is a storage.Interface whose writes and single-object reads end after a timeout.
type Storage struct {
	storage.Interface
	timeout time.Duration
}

var _ storage.Interface = &Storage{}

// New bounds s's writes and single-object reads by timeout.
func New(s storage.Interface, timeout time.Duration) *Storage {
	return &Storage{Interface: s, timeout: timeout}
}

// Create stores a new object.
func (s *Storage) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	return s.bounded(ctx, key, func(ctx context.Context) error { return s.Interface.Create(ctx, key, obj, out, ttl) })
}

// Delete removes an object.
func (s *Storage) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	return s.bounded(ctx, key, func(ctx context.Context) error {
		return s.Interface.Delete(ctx, key, out, preconditions, validateDeletion, cachedExistingObject, opts)
	})
}

// Get reads one object.
func (s *Storage) Get(ctx context.Context, key string, opts storage.GetOptions, objPtr runtime.Object) error {
	return s.bounded(ctx, key, func(ctx context.Context) error { return s.Interface.Get(ctx, key, opts, objPtr) })
}

// GuaranteedUpdate updates an object, retrying on conflicts, all within one timeout.
func (s *Storage) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	return s.bounded(ctx, key, func(ctx context.Context) error {
		return s.Interface.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, tryUpdate, cachedExistingObject)
	})
}

// bounded runs op with the timeout. When the timeout (not the caller) ended it, or the etcd client gave up on
// the connection, the error is storage's "unreachable", which the registry answers with reason ServerTimeout
// and Retry-After
// rather than a 500 quoting a gRPC error.
func (s *Storage) bounded(ctx context.Context, key string, op func(context.Context) error) error {
	bctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := op(bctx)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if errors.Is(bctx.Err(), context.DeadlineExceeded) || status.Code(err) == codes.Unavailable {
		klog.FromContext(ctx).Info("etcd did not answer", "key", key, "timeout", s.timeout, "err", err)
		return storage.NewUnreachableError(key, 0)
	}
	return err
}
