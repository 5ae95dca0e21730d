// Package leader elects one replica to reconcile, through a coordination.k8s.io Lease (client-go's leader
// election), and adds two things client-go leaves out:
//
//   - Fencing. A leader that stalls (a long GC pause, SIGSTOP, a frozen VM) resumes believing it leads until
//     its next renewal fails, up to the renew deadline later, while another replica already reconciles.
//     WrapTransport makes the controller's clients refuse every write unless this replica's last successful
//     Lease write started less than the renew deadline ago. Another replica can take the Lease only after it
//     has seen the same record unchanged for the lease duration, which is longer, so the two never write in
//     the same window; the difference is the margin for a write in flight.
//   - Fast handover. A leader that stops releases the Lease; the other replicas watch it and try at once
//     instead of at their next retry, so handover takes a round trip, not up to twice the retry period.
package leader

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
)

// ErrNotLeader is the error of a write refused because this replica does not hold a valid Lease.
var ErrNotLeader = errors.New("this replica does not hold the controller Lease (or could not renew it in time); write refused")

// Config configures an Elector.
type Config struct {
	// Client reaches the Lease; it must not be fenced itself.
	Client          kubernetes.Interface
	Namespace, Name string
	Identity        string
	LeaseDuration   time.Duration
	RenewDeadline   time.Duration
	RetryPeriod     time.Duration
	// EventSource is the component the Lease's Events ("became leader", "stopped leading") name.
	EventSource string
	// OnNewLeader is told the identity of every new leader, this replica's included.
	OnNewLeader func(identity string)
}

// Elector runs leader election with fencing.
type Elector struct {
	cfg   Config
	fence *Fence
}

// New returns an Elector; nothing runs until Run.
func New(cfg Config) *Elector {
	return &Elector{cfg: cfg, fence: &Fence{}}
}

// Fence is what the controller's clients check before each write.
func (e *Elector) Fence() *Fence { return e.fence }

// Run competes for the Lease until ctx is done. Each time this replica becomes leader, lead runs with a
// context that ends when leadership ends; Run returns once lead has returned and the Lease is released.
func (e *Elector) Run(ctx context.Context, lead func(context.Context)) error {
	logger := klog.FromContext(ctx).WithName("leader-election")
	released, err := e.watchReleases(ctx)
	if err != nil {
		return err
	}
	// The Lease's Events go out through the election's own client, which the fence does not hold back:
	// "stopped leading" is recorded as the Lease is given up, when the fence already refuses the controller's
	// writes. Shutting the broadcaster down drops what it has not sent yet, so the last Event gets a second.
	events := record.NewBroadcaster()
	events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: e.cfg.Client.CoreV1().Events("")})
	defer time.AfterFunc(time.Second, events.Shutdown)
	lock := &fencedLock{
		Interface: &resourcelock.LeaseLock{
			LeaseMeta: metav1.ObjectMeta{Name: e.cfg.Name, Namespace: e.cfg.Namespace},
			Client:    e.cfg.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: e.cfg.Identity,
				EventRecorder: events.NewRecorder(scheme.Scheme, corev1.EventSource{Component: e.cfg.EventSource})},
		},
		fence: e.fence, identity: e.cfg.Identity, validity: e.cfg.RenewDeadline,
	}
	for ctx.Err() == nil {
		// Drop a release seen during the last term; only one seen from now on is news.
		select {
		case <-released:
		default:
		}
		termCtx, endTerm := context.WithCancel(ctx)
		lock.acquired.Store(false)
		go func() {
			select {
			case <-released:
				if !lock.acquired.Load() {
					logger.V(2).Info("The Lease was released; trying to take it now")
					endTerm()
				}
			case <-termCtx.Done():
			}
		}()
		leadDone := make(chan struct{})
		leaderelection.RunOrDie(termCtx, leaderelection.LeaderElectionConfig{
			Lock: lock, ReleaseOnCancel: true, Name: e.cfg.Name,
			LeaseDuration: e.cfg.LeaseDuration, RenewDeadline: e.cfg.RenewDeadline, RetryPeriod: e.cfg.RetryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					defer close(leadDone)
					if ctx.Err() == nil {
						lead(ctx)
					}
				},
				OnStoppedLeading: func() {},
				OnNewLeader:      e.cfg.OnNewLeader,
			},
		})
		endTerm()
		// The Lease write that made this replica leader is followed by OnStartedLeading; wait for it to end
		// so that no worker outlives the term.
		if lock.acquired.Load() {
			<-leadDone
		}
	}
	return nil
}

// watchReleases reports, on the returned channel, each time the Lease is released (no holder) or deleted.
func (e *Elector) watchReleases(ctx context.Context) (<-chan struct{}, error) {
	released := make(chan struct{}, 1)
	signal := func() {
		select {
		case released <- struct{}{}:
		default:
		}
	}
	factory := kubeinformers.NewSharedInformerFactoryWithOptions(e.cfg.Client, 0,
		kubeinformers.WithNamespace(e.cfg.Namespace),
		kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", e.cfg.Name).String()
		}))
	informer := factory.Coordination().V1().Leases().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) {
			if l, ok := obj.(*coordinationv1.Lease); ok && (l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "") {
				signal()
			}
		},
		DeleteFunc: func(any) { signal() },
	}); err != nil {
		return nil, fmt.Errorf("watching the Lease %s/%s: %w", e.cfg.Namespace, e.cfg.Name, err)
	}
	factory.Start(ctx.Done())
	return released, nil
}

// Fence says whether this replica may write now.
type Fence struct {
	mu sync.Mutex
	// until is when the current permission to write ends; zero when there is none. It carries the monotonic
	// clock reading of time.Now, so wall-clock steps do not move it.
	until time.Time
	// unfenced is set when leader election is off: the only replica always writes.
	unfenced bool
}

// Unfenced returns a fence that always allows writing, for a single replica without leader election.
func Unfenced() *Fence { return &Fence{unfenced: true} }

// Allowed reports whether a write may be sent now.
func (f *Fence) Allowed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.unfenced || time.Now().Before(f.until)
}

func (f *Fence) extend(until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if until.After(f.until) {
		f.until = until
	}
}

func (f *Fence) revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.until = time.Time{}
}

// WrapTransport refuses mutating requests with ErrNotLeader unless the fence allows them. Reads always pass:
// informers of every replica stay warm for a fast takeover.
func (f *Fence) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if !f.Allowed() {
				return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrNotLeader)
			}
		}
		return rt.RoundTrip(req)
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// fencedLock is the Lease lock, moving the fence with each write: a successful write as holder allows
// writing until validity after the write started; giving the Lease up revokes before the write is sent.
type fencedLock struct {
	resourcelock.Interface
	fence    *Fence
	identity string
	validity time.Duration
	// acquired is set by the first successful write as holder in a term.
	acquired atomic.Bool
}

func (l *fencedLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	return l.write(r, func() error { return l.Interface.Create(ctx, r) })
}

func (l *fencedLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	return l.write(r, func() error { return l.Interface.Update(ctx, r) })
}

func (l *fencedLock) write(r resourcelock.LeaderElectionRecord, send func() error) error {
	if r.HolderIdentity != l.identity {
		l.fence.revoke()
		return send()
	}
	start := time.Now()
	if err := send(); err != nil {
		return err
	}
	l.acquired.Store(true)
	l.fence.extend(start.Add(l.validity))
	return nil
}
