// Package manager runs aim-apiserver's embedded controllers: shared informers on AIM objects (through the
// loopback client) and on Kubernetes objects (through the kube client), one rate-limited work queue per
// controller, and leader election on a Lease so that with several replicas exactly one reconciles.
package manager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/leader"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
	aiminformers "github.com/aim-apiserver/aim-apiserver/pkg/generated/informers/externalversions"
	"github.com/aim-apiserver/aim-apiserver/pkg/migrate/freeze"
)

// LeaseName is the Lease the replicas compete for.
const LeaseName = "aim-apiserver-controller"

// eventSource is the component the manager's own Events name, the Lease's among them; each controller's name
// their controller (RecorderFor).
const eventSource = "aim-apiserver"

// Options configure the manager.
type Options struct {
	// Workers per controller.
	Workers int
	// ResyncPeriod re-delivers every object to its controller; an unchanged object causes no write.
	ResyncPeriod time.Duration
	// SystemNamespace holds the discovery Jobs of cluster templates and the pull secrets of cluster models and
	// model sources.
	SystemNamespace string
	// LeaseNamespace holds the Lease; empty, SystemNamespace.
	LeaseNamespace string
	// LeaderElect turns leader election on; off, this replica always reconciles.
	LeaderElect                               bool
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Identity of this replica in the Lease; defaults to the host name.
	Identity string
	// KubeQPS and KubeBurst limit the requests to the cluster's kube-apiserver. client-go's default of 5 per
	// second lets Events queue up behind reconciles for tens of seconds once several controllers run.
	KubeQPS   float32
	KubeBurst int
}

// serviceAccountNamespaceFile holds the namespace of a pod's service account, where Kubernetes mounts its token.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// defaultSystemNamespace is the namespace --system-namespace defaults to: aim-engine's $AIM_SYSTEM_NAMESPACE,
// then the pod's namespace, as aim-engine falls back to its service account's (internal/constants/constants.go:161),
// else aim-system.
func defaultSystemNamespace(getenv func(string) string, readFile func(string) ([]byte, error)) string {
	return cmp.Or(getenv("AIM_SYSTEM_NAMESPACE"), podNamespace(getenv, readFile), "aim-system")
}

// podNamespace is the namespace of the pod the process runs in: $POD_NAMESPACE (the chart's), else its service
// account's; empty outside a pod. The Lease is there by default, whatever $AIM_SYSTEM_NAMESPACE says, as
// aim-engine's (controller-runtime's leader election takes the pod's namespace): the chart's Role for it is in
// the release namespace.
func podNamespace(getenv func(string) string, readFile func(string) ([]byte, error)) string {
	if ns := getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := readFile(serviceAccountNamespaceFile); err == nil {
		return strings.TrimSpace(string(b))
	}
	return ""
}

// DefaultOptions are the defaults of the controller flags.
func DefaultOptions() Options {
	return Options{
		Workers: 2, ResyncPeriod: 10 * time.Minute, LeaderElect: true, KubeQPS: 50, KubeBurst: 100,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		SystemNamespace: defaultSystemNamespace(os.Getenv, os.ReadFile),
		LeaseNamespace:  podNamespace(os.Getenv, os.ReadFile),
	}
}

// Validate checks the options.
func (o Options) Validate() error {
	var errs []error
	if o.Workers < 1 {
		errs = append(errs, fmt.Errorf("--controller-workers must be at least 1, not %d", o.Workers))
	}
	if o.ResyncPeriod < time.Second {
		errs = append(errs, fmt.Errorf("--controller-resync-period must be at least 1s, not %s", o.ResyncPeriod))
	}
	if o.KubeQPS <= 0 || o.KubeBurst < 1 {
		errs = append(errs, fmt.Errorf("--controller-kube-api-qps and --controller-kube-api-burst must be positive, not %v and %d", o.KubeQPS, o.KubeBurst))
	}
	if o.SystemNamespace == "" {
		errs = append(errs, errors.New("--system-namespace must not be empty"))
	}
	if o.LeaderElect && !(o.RetryPeriod < o.RenewDeadline && o.RenewDeadline < o.LeaseDuration) {
		errs = append(errs, errors.New("leader election needs retry period < renew deadline < lease duration"))
	}
	return errors.Join(errs...)
}

// Reconciler brings one object, named by its queue key (a typed key: no string to split and no parse error to
// handle in every reconcile), to its desired state. A zero requeueAfter and nil error mean done until the next
// event.
type Reconciler interface {
	Reconcile(ctx context.Context, key cache.ObjectName) (requeueAfter time.Duration, err error)
}

// Clients and informers the controllers share.
type Clients struct {
	AIM          versioned.Interface
	Kube         kubernetes.Interface
	AIMInformers aiminformers.SharedInformerFactory
	// KubeInformers inform on every object of a kind: for the kinds the controllers read cluster-wide (Nodes).
	// The kinds they create or watch a few of (Jobs, Pods, PVCs, HPAs) go through Selected.
	KubeInformers kubeinformers.SharedInformerFactory
	// Dynamic reaches the custom resources of other projects (KServe, Gateway API) without their clientsets;
	// Manager.Optional caches those of AIM services.
	Dynamic dynamic.Interface
	// PodEvents caches Warning events and pods' Pulling events only: pods' and KServe's problems and image pulls,
	// without the flood of other Normal ones.
	PodEvents PodEvents
	Recorder  record.EventRecorder
	Options   Options
}

// Controller is a named reconciler with a queue per leadership term. Between terms it has no queue and drops
// what is added: the next term starts by queuing every key of the controller's primary objects, so nothing that
// changed meanwhile is missed, and no key of an old term is reconciled after leadership is lost.
type Controller struct {
	Name       string
	Reconciler Reconciler
	// primary list the keys every term starts with (informer stores of the reconciled kinds).
	primary []cache.KeyLister

	mu    sync.RWMutex
	queue workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// NewController returns a controller of the objects whose keys primary lists; its failures back off
// exponentially from 100 ms to 5 minutes.
func NewController(name string, r Reconciler, primary ...cache.KeyLister) *Controller {
	return &Controller{Name: name, Reconciler: r, primary: primary}
}

// NewKindController returns a controller of the objects of informer, the kind it reconciles: every event of one
// queues its key (Handler), the informer's periodic resync too, which re-delivers every object so that its
// reconcile corrects the drift of its children; every term starts with all of their keys.
func NewKindController(name string, r Reconciler, informer cache.SharedIndexInformer) (*Controller, error) {
	c := NewController(name, r, informer.GetStore())
	if _, err := informer.AddEventHandler(c.Handler()); err != nil {
		return nil, fmt.Errorf("%s: watching the objects it reconciles: %w", name, err)
	}
	return c, nil
}

// Keys is a fixed list of keys, for a controller of something other than objects.
type Keys []string

// ListKeys returns the keys.
func (k Keys) ListKeys() []string { return k }

// startTerm gives the controller a new queue holding every primary key.
func (c *Controller) startTerm() workqueue.TypedRateLimitingInterface[cache.ObjectName] {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](100*time.Millisecond, 5*time.Minute),
		workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: c.Name})
	c.addPrimary(q)
	c.mu.Lock()
	c.queue = q
	c.mu.Unlock()
	return q
}

// endTerm shuts the term's queue down: workers stop after the key they are on, the rest is dropped.
func (c *Controller) endTerm() {
	c.mu.Lock()
	q := c.queue
	c.queue = nil
	c.mu.Unlock()
	if q != nil {
		q.ShutDown()
	}
}

// Add queues a key in the current term; between terms it is dropped (the next term lists every key).
func (c *Controller) Add(key cache.ObjectName) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.queue != nil {
		c.queue.Add(key)
	}
}

// AddAll queues every key of the controller's primary objects in the current term, as a new term does: for a
// change that concerns all of them (an API they need is served now).
func (c *Controller) AddAll() {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.queue != nil {
		c.addPrimary(c.queue)
	}
}

func (c *Controller) addPrimary(q workqueue.TypedInterface[cache.ObjectName]) {
	for _, p := range c.primary {
		for _, key := range p.ListKeys() {
			if name, err := cache.ParseObjectName(key); err == nil {
				q.Add(name)
			}
		}
	}
}

// Enqueue adds an object's key.
func (c *Controller) Enqueue(obj any) {
	key, err := cache.DeletionHandlingObjectToName(obj)
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("%s: computing key: %w", c.Name, err))
		return
	}
	c.Add(key)
}

// Handler enqueues the object itself on every event.
func (c *Controller) Handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    c.Enqueue,
		UpdateFunc: func(_, obj any) { c.Enqueue(obj) },
		DeleteFunc: c.Enqueue,
	}
}

// Manager owns the informers and runs the controllers.
type Manager struct {
	Clients
	// elector is nil without leader election.
	elector     *leader.Elector
	broadcaster record.EventBroadcaster
	eventScheme *runtime.Scheme
	// dynamic caches the objects of other projects' APIs, those of optional.
	dynamic     *dynamicInformers
	optional    []*Optional
	controllers []*Controller
	synced      atomic.Bool
	// selected are the factories of Selected.
	selected map[Selection]kubeinformers.SharedInformerFactory
	// handlers are event handlers that must have seen their informer's initial list before workers start.
	handlers map[string]cache.InformerSynced
	// freezeNotice says, at most once a minute, that a migration freezes writes.
	freezeNotice rate.Sometimes
}

// preferProtobuf makes a typed client send protobuf and ask for it first, as kube-controller-manager's clients
// do: smaller bodies, and decoding without reflection. Only typed clients: the dynamic client speaks JSON.
func preferProtobuf(c *rest.Config) *rest.Config {
	c = rest.CopyConfig(c)
	c.ContentType = runtime.ContentTypeProtobuf
	c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return c
}

// New builds a manager: AIM objects through loopback (privileged, not rate limited), Kubernetes objects
// through kube.
func New(loopback, kube *rest.Config, opts Options) (*Manager, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Identity == "" {
		identity, err := defaultIdentity()
		if err != nil {
			return nil, err
		}
		opts.Identity = identity
	}
	broadcaster, eventScheme, recorder, err := newEventBroadcaster()
	if err != nil {
		return nil, err
	}
	// Every write of the controller goes through the fence: with leader election, a replica that does not
	// hold a valid Lease sends none (see package leader).
	fence := leader.Unfenced()
	var elector *leader.Elector
	if opts.LeaderElect {
		if elector, err = newElector(kube, opts); err != nil {
			return nil, err
		}
		fence = elector.Fence()
	}
	registerControllerMetrics()
	aimClient, kubeClient, dynClient, err := newClients(loopback, kube, opts, fence)
	if err != nil {
		return nil, err
	}
	dynamic := newDynamicInformers(dynClient, opts.ResyncPeriod)
	m := &Manager{
		dynamic: dynamic,
		Clients: Clients{
			AIM: aimClient, Kube: kubeClient,
			AIMInformers:  aiminformers.NewSharedInformerFactoryWithOptions(aimClient, opts.ResyncPeriod, aiminformers.WithTransform(stripManagedFields)),
			KubeInformers: kubeinformers.NewSharedInformerFactoryWithOptions(kubeClient, opts.ResyncPeriod, kubeinformers.WithTransform(stripManagedFields)),
			Dynamic:       dynClient,
			Recorder:      recorder,
			Options:       opts,
		},
		elector:      elector,
		broadcaster:  broadcaster,
		eventScheme:  eventScheme,
		freezeNotice: rate.Sometimes{Interval: time.Minute},
	}
	if m.PodEvents, err = newPodEvents(m); err != nil {
		return nil, err
	}
	return m, nil
}

// RecorderFor is a recorder whose Events name component as their source, as aim-engine names each controller's
// (aim-service-controller, ...), so that `kubectl get events` and selectors on source.component read the same.
func (m *Manager) RecorderFor(component string) record.EventRecorder {
	if m.broadcaster == nil {
		return m.Recorder
	}
	return m.broadcaster.NewRecorder(m.eventScheme, corev1.EventSource{Component: component})
}

// defaultIdentity names this replica in the Lease by its host name and the current time.
func defaultIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("leader election identity: %w", err)
	}
	return host + "_" + fmt.Sprint(time.Now().UnixNano()), nil
}

// newEventBroadcaster returns the broadcaster of the controllers' Events, the scheme their recorders need, and
// the recorder of the manager's own Events.
func newEventBroadcaster() (record.EventBroadcaster, *runtime.Scheme, record.EventRecorder, error) {
	// Events refer to AIM objects, so the recorder's scheme must know them.
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, nil, nil, fmt.Errorf("event scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, nil, nil, fmt.Errorf("event scheme: %w", err)
	}
	broadcaster := record.NewBroadcaster()
	return broadcaster, scheme, broadcaster.NewRecorder(scheme, corev1.EventSource{Component: eventSource}), nil
}

// newElector returns the leader elector of the replica named opts.Identity. Its own client is not fenced: it
// is what acquires the Lease.
func newElector(kube *rest.Config, opts Options) (*leader.Elector, error) {
	leClient, err := kubernetes.NewForConfig(preferProtobuf(rest.AddUserAgent(rest.CopyConfig(kube), userAgent(opts.Identity))))
	if err != nil {
		return nil, fmt.Errorf("leader election client: %w", err)
	}
	return leader.New(leader.Config{
		Client: leClient, Namespace: cmp.Or(opts.LeaseNamespace, opts.SystemNamespace), Name: LeaseName, Identity: opts.Identity,
		LeaseDuration: opts.LeaseDuration, RenewDeadline: opts.RenewDeadline, RetryPeriod: opts.RetryPeriod,
		EventSource: eventSource,
		OnNewLeader: func(id string) {
			if id != opts.Identity {
				klog.InfoS("Another replica leads", "leader", id)
			}
		},
	}), nil
}

// newClients returns the controllers' clients, every one writing through the fence: AIM objects through
// loopback, Kubernetes objects and those of other projects through kube, limited to opts.KubeQPS.
func newClients(loopback, kube *rest.Config, opts Options,
	fence *leader.Fence) (*versioned.Clientset, *kubernetes.Clientset, *dynamic.DynamicClient, error) {
	// The user agent names the replica, so that audit logs tell the replicas' writes apart.
	fenced := func(c *rest.Config) *rest.Config {
		c = rest.CopyConfig(c)
		c.UserAgent = userAgent(opts.Identity)
		c.Wrap(countWrites) // inside the fence: what is sent
		c.Wrap(fence.WrapTransport)
		return c
	}
	// The warnings aim-apiserver answers writes with (advice, references to missing objects) are for users; the
	// controller's objects say the same in their status, and client-go would log each one.
	aim := preferProtobuf(fenced(loopback))
	aim.WarningHandler = rest.NoWarnings{}
	aimClient, err := versioned.NewForConfig(aim)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("AIM client: %w", err)
	}
	kube = fenced(kube)
	kube.QPS, kube.Burst = opts.KubeQPS, opts.KubeBurst
	kubeClient, err := kubernetes.NewForConfig(preferProtobuf(kube))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("kube client: %w", err)
	}
	dynClient, err := dynamic.NewForConfig(kube)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("dynamic client: %w", err)
	}
	return aimClient, kubeClient, dynClient, nil
}

// newDynamicInformers caches the objects of other projects the controllers read: the InferenceServices and
// HTTPRoutes of AIM services, which carry the service's label (their own labels, which nothing overrides);
// other ones are not cached.
func newDynamicInformers(client dynamic.Interface, resync time.Duration) *dynamicInformers {
	return &dynamicInformers{factory: dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, resync,
		metav1.NamespaceAll, func(o *metav1.ListOptions) { o.LabelSelector = v1alpha1.LabelService }),
		typed: map[schema.GroupVersionResource]func() runtime.Object{}}
}

// WaitFor has Run wait, before any worker starts, until an event handler has seen its informer's initial
// list (the HasSynced of its registration): a cache synced does not mean its handlers have run, and state a
// handler builds (the GPU inventory) would otherwise be partial in the first reconciles.
// It is meant for registration, before Run.
func (m *Manager) WaitFor(name string, synced cache.InformerSynced) {
	if m.handlers == nil {
		m.handlers = map[string]cache.InformerSynced{}
	}
	m.handlers[name] = synced
}

// Add registers a controller and the handlers of its dependencies (Watch); call before Run.
func (m *Manager) Add(c *Controller, deps ...Dependency) error {
	if err := Watch(deps...); err != nil {
		return fmt.Errorf("%s: watching what it depends on: %w", c.Name, err)
	}
	m.controllers = append(m.controllers, c)
	return nil
}

// HasSynced reports whether every informer has synced; /readyz uses it.
func (m *Manager) HasSynced() bool { return m.synced.Load() }

// Run starts the informers on every replica (so that readiness and failover are fast) and the workers on
// the leader only. It returns when ctx is done.
func (m *Manager) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("controller-manager")
	m.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: m.Kube.CoreV1().Events("")})
	defer m.broadcaster.Shutdown()

	missing, err := m.informOptional(ctx)
	if err != nil {
		return err
	}
	m.AIMInformers.Start(ctx.Done())
	m.KubeInformers.Start(ctx.Done())
	m.dynamic.factory.Start(ctx.Done())
	for _, sel := range m.selections() {
		m.selected[sel].Start(ctx.Done())
	}
	logger.Info("Waiting for informer caches to sync")
	if err := cacheSynced("", m.AIMInformers.WaitForCacheSync(ctx.Done())); err != nil {
		return err
	}
	if err := cacheSynced("", m.KubeInformers.WaitForCacheSync(ctx.Done())); err != nil {
		return err
	}
	for _, sel := range m.selections() {
		if err := cacheSynced(" of "+sel.String(), m.selected[sel].WaitForCacheSync(ctx.Done())); err != nil {
			return err
		}
	}
	if err := cacheSynced("", m.dynamic.factory.WaitForCacheSync(ctx.Done())); err != nil {
		return err
	}
	for name, synced := range m.handlers {
		if !cache.WaitForNamedCacheSync(name, ctx.Done(), synced) {
			return fmt.Errorf("%s did not sync", name)
		}
	}
	m.synced.Store(true)
	logger.Info("Informer caches synced", "controllers", len(m.controllers))
	for _, o := range missing {
		go m.awaitOptional(ctx, o, optionalPoll)
	}

	if !m.Options.LeaderElect {
		m.runWorkers(ctx)
		return nil
	}
	return m.elector.Run(ctx, func(ctx context.Context) {
		logger.Info("Became leader; reconciling", "identity", m.Options.Identity)
		m.runWorkers(ctx)
		logger.Info("Stopped leading", "identity", m.Options.Identity)
	})
}

// cacheSynced is an error naming the first informer of a factory's WaitForCacheSync that did not sync.
func cacheSynced[K comparable](what string, synced map[K]bool) error {
	for typ, ok := range synced {
		if !ok {
			return fmt.Errorf("informer for %v%s did not sync", typ, what)
		}
	}
	return nil
}

// userAgent names this replica's controller in the requests it sends.
func userAgent(identity string) string {
	return "aim-apiserver-controller/" + identity
}

// runWorkers processes the controllers' queues of one leadership term until ctx is done, then shuts the queues
// down and returns when every worker has stopped.
func (m *Manager) runWorkers(ctx context.Context) {
	var wg sync.WaitGroup
	for _, c := range m.controllers {
		q := c.startTerm()
		initMetrics(c.Name, m.Options.Workers)
		for range m.Options.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for m.processNext(ctx, c, q) {
				}
			}()
		}
	}
	<-ctx.Done()
	for _, c := range m.controllers {
		c.endTerm()
	}
	wg.Wait()
}

// processNext reconciles one key; it returns false when the worker should stop: the queue is shut down, or the
// term ended while the worker waited (a reconcile never starts with a cancelled context).
func (m *Manager) processNext(ctx context.Context, c *Controller, q workqueue.TypedRateLimitingInterface[cache.ObjectName]) bool {
	key, quit := q.Get()
	if quit {
		return false
	}
	defer q.Done(key)
	if ctx.Err() != nil {
		return false
	}
	start := time.Now()
	active := activeWorkers.WithLabelValues(c.Name)
	active.Inc()
	after, err := reconcileRecovering(ctx, c, key)
	active.Dec()
	logger := klog.FromContext(ctx) // no WithValues here: it allocates, and most reconciles log nothing
	switch {
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		// The namespace is being deleted, and the object with it: what could not be made there is not wanted any
		// more, and a retry could only be refused again (kube-controller-manager's controllers end so too). A
		// namespace that stays terminating still gets the object's resyncs.
		logger.V(2).Info("Namespace terminating; not retrying", "controller", c.Name, "key", key, "err", err)
		observeReconcile(c.Name, start, resultSuccess)
		q.Forget(key)
	case apierrors.IsConflict(err):
		// Something was written since the informer's copy was read: a race, not a failure. The next attempt
		// reads the newer version.
		logger.V(2).Info("Conflict; retrying with the newer version", "controller", c.Name, "key", key, "err", err)
		observeReconcile(c.Name, start, resultRequeue)
		q.AddRateLimited(key)
	case freeze.Denied(err):
		// aim-apiserver migrate refuses writes to the group while it copies the objects (seconds), and the
		// writes go through once it lifts the freeze: a wait, not a failure. Said at most once a minute.
		m.freezeNotice.Do(func() {
			logger.Info("Writes to aim.eai.amd.com are frozen by a migration (ValidatingAdmissionPolicy "+freeze.PolicyName+"); reconciles retry with backoff until it ends",
				"controller", c.Name, "key", key)
		})
		logger.V(2).Info("Write refused by the migration freeze; retrying with backoff", "controller", c.Name, "key", key, "err", err)
		observeReconcile(c.Name, start, resultRequeue)
		q.AddRateLimited(key)
	case err != nil:
		logger.V(2).Info("Reconcile failed; retrying with backoff", "controller", c.Name, "key", key, "err", err)
		utilruntime.HandleError(fmt.Errorf("%s %q: %w", c.Name, key.String(), err))
		observeReconcile(c.Name, start, resultError)
		q.AddRateLimited(key)
	case after > 0:
		observeReconcile(c.Name, start, resultRequeueAfter)
		q.Forget(key)
		q.AddAfter(key, after)
	default:
		observeReconcile(c.Name, start, resultSuccess)
		q.Forget(key)
	}
	return true
}

// reconcileRecovering turns a panic of a reconcile into its error, with the stack: the controllers run inside
// the API server, which a bug in one reconcile must not take down. The key is retried with backoff, so a key
// that always panics costs one attempt per backoff step (up to 5 minutes), not a hot loop.
func reconcileRecovering(ctx context.Context, c *Controller, key cache.ObjectName) (after time.Duration, err error) {
	defer func() {
		if p := recover(); p != nil {
			reconcilePanics.WithLabelValues(c.Name).Inc()
			after, err = 0, fmt.Errorf("reconcile panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return c.Reconciler.Reconcile(ctx, key)
}

// ReconcilerFunc adapts a function to Reconciler.
type ReconcilerFunc func(ctx context.Context, key cache.ObjectName) (time.Duration, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	return f(ctx, key)
}
