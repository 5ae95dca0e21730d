package modelsource

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/expectations"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// FieldManager owns the models the source controller applies.
const FieldManager = "aim-cluster-model-source-controller"

const (
	// syncTimeout bounds one listing of every filter, so that a registry that stops answering holds no worker for
	// good; aim-engine sets no bound. A wildcard over a large catalog lists one repository after another, so the
	// bound is generous: a listing that always took longer would never complete.
	syncTimeout = 10 * time.Minute
	// infraRetry spaces the listings of an unreachable registry.
	infraRetry = 30 * time.Second
)

// Controller reconciles AIMClusterModelSources.
type Controller struct {
	c       manager.Clients
	sources aimlisters.AIMClusterModelSourceLister
	models  aimlisters.AIMClusterModelLister
	// configs resolve the cluster runtime config default, whose label propagation labels the models.
	configs runtimeconfig.Configs
	// newLister lists registries with the credentials of the source's pull secrets, through the mirrors.
	newLister func(secrets []corev1.Secret, cfg *mirrors.Config) Lister
	mirrors   *mirrors.Source
	// created are the models a sync created that the informer does not show yet: counted as owned, so that a
	// reconcile which sees the sync's status before the models takes none for deleted (ModelsMissing) and does
	// not list the registry again.
	created *expectations.Creations
	// written are the sources whose last status write the cache does not show yet: a reconcile that read the
	// source from before its sync's status would find the sync due and list the registry again.
	written *expectations.Writes
	now     func() time.Time

	// secretChecks are when each source whose last listing went without missing pull secrets last looked for
	// them: every event of a model the source owns reconciles it, and the secrets are read at most every
	// imagemeta.SecretRecheck, not on each event.
	secretChecks   map[string]time.Time
	secretChecksMu sync.Mutex
}

// Register adds the model source controller to the manager: it reconciles on events of sources and of the
// models they own.
func Register(m *manager.Manager, registries *mirrors.Source) error {
	v := m.AIMInformers.Aim().V1alpha1()
	ctl := &Controller{c: m.Clients, sources: v.AIMClusterModelSources().Lister(), models: v.AIMClusterModels().Lister(),
		configs: runtimeconfig.ConfigsOf(v), newLister: newRegistryLister, mirrors: registries,
		created: expectations.NewCreations(expectations.DefaultTTL), written: expectations.NewWrites(), now: time.Now}
	// Events name the controller as their source, as aim-engine's do.
	ctl.c.Recorder = m.RecorderFor(FieldManager)
	c := manager.NewController("cluster-model-source", manager.ReconcilerFunc(ctl.reconcile), v.AIMClusterModelSources().Informer().GetStore())
	owners := manager.Owners{"AIMClusterModelSource": {Controller: c}}
	if _, err := v.AIMClusterModelSources().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.Enqueue, DeleteFunc: c.Enqueue,
		UpdateFunc: func(old, obj any) {
			if news(old.(*aimv1.AIMClusterModelSource), obj.(*aimv1.AIMClusterModelSource)) {
				c.Enqueue(obj)
			}
		},
	}); err != nil {
		return fmt.Errorf("watching model sources: %w", err)
	}
	// A model the cache has shown is no longer expected, even if it is deleted before the next count.
	if _, err := v.AIMClusterModels().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: ctl.modelSeen}); err != nil {
		return fmt.Errorf("watching cluster models: %w", err)
	}
	return m.Add(c, manager.Dependency{Informer: v.AIMClusterModels().Informer(), Handler: owners.Handler()})
}

// news says whether an update of a source is news to its controller. Its own status writes are not: only spec,
// label and annotation changes are, and the informer's periodic resync (the same version delivered again), which
// every kind controller gets: it brings a source back whose scheduled sync was lost (a reconcile that ended on a
// conflict returns no requeue).
func news(old, obj *aimv1.AIMClusterModelSource) bool {
	return old.ResourceVersion == obj.ResourceVersion || old.Generation != obj.Generation ||
		!apiequality.Semantic.DeepEqual(old.Annotations, obj.Annotations) || !apiequality.Semantic.DeepEqual(old.Labels, obj.Labels)
}

// reconcile lists the registry when a sync is due or an owned model was deleted (ModelsMissing), and otherwise
// only refreshes the count of owned models: every event of an owned model lands here, and listing a registry
// for each would be a hot loop.
func (ctl *Controller) reconcile(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	name := key.Name
	// The events of the models a sync created may come before its status: wait for the status (LookupWritten).
	src, ok, after, err := reconcile.LookupWritten(func() (*aimv1.AIMClusterModelSource, error) { return ctl.sources.Get(name) }, ctl.written, name)
	if !ok {
		if err == nil && after == 0 { // gone or paused: no secrets to look for
			ctl.forgetSecretCheck(name)
		}
		return after, err
	}
	now := ctl.now()
	existing, err := ctl.existing(src)
	if err != nil {
		return 0, err
	}
	current := src.Status
	status := *current.DeepCopy()
	write := reconcile.TrackedStatusWriter(ctx, src, ctl.c.AIM.AimV1alpha1().AIMClusterModelSources().UpdateStatus, FieldManager, ctl.written, name)
	owned := countOwned(existing)
	status.DiscoveredModels = int32(owned)
	due, wait := SyncDue(src, owned, now)
	if !due && awaitsSecrets(current) {
		// The last listing went without pull secrets that did not exist: list again once they all do.
		if due = ctl.secretsAppeared(ctx, src, now); !due {
			wait = min(wait, imagemeta.SecretRecheck)
		}
	}
	if !due {
		// Not due: only the count of owned models may have changed.
		return reconcile.Finish(ctl.c.Recorder, reconcile.End{Object: src, What: "model source " + name, Status: status, Stored: src.Status,
			Write: func() error { return write(status) }, RequeueAfter: wait})
	}

	// The listing reads the secrets itself, and its lastSyncTime is where the next look counts from.
	ctl.forgetSecretCheck(name)
	comps, created, plan, images := ctl.sync(ctx, src, existing)
	// The listing may take minutes (syncTimeout): what follows is of its end, as aim-engine stamps lastSyncTime after
	// its fetch, and the conditions' transitions with it (SyncDue measures an outage between the two).
	now = ctl.now()
	status.ObservedGeneration = src.Generation
	status.LastSyncTime = ptr.To(metav1.NewTime(now))
	status.DiscoveredModels += int32(created)
	if images >= 0 { // the registry was listed: the counts are news
		status.AvailableModels, status.ModelsLimitReached = int32(images), plan.LimitReached
	}
	out := state.Derive(state.Input{Components: comps, Previous: current.Conditions,
		Generation: src.Generation, Now: now, Informational: state.Normal(limitCondition(status))})
	status.Conditions, status.Status = out.Conditions, out.Status
	_, wait = SyncDue(&aimv1.AIMClusterModelSource{ObjectMeta: src.ObjectMeta, Spec: src.Spec, Status: status}, int(status.DiscoveredModels), now)
	if awaitsSecrets(status) {
		wait = min(wait, imagemeta.SecretRecheck)
	}
	return reconcile.Finish(ctl.c.Recorder, reconcile.End{Object: src, What: "model source " + name, Status: status, Stored: src.Status,
		Write: func() error { return write(status) }, Out: out, RequeueAfter: wait})
}

// sync lists the registry and creates the planned models. It returns the components for the status, the
// number of models created, the plan, and the number of images the filters selected (-1 when nothing could
// be listed).
func (ctl *Controller) sync(ctx context.Context, src *aimv1.AIMClusterModelSource, existing map[string]bool) ([]state.Component, int, Plan, int) {
	filters := state.Component{Name: ComponentFilters, Dependency: state.DependencyUpstream}
	// Pull secrets of a cluster-scoped source live in the system namespace, like those of cluster models. One
	// that does not exist is skipped, as aim-engine's keychain skips it: a public registry is listed without it.
	secrets, missing, err := imagemeta.ExistingPullSecrets(ctx, ctl.c.Kube, ctl.c.Options.SystemNamespace, src.Spec.ImagePullSecrets)
	if err != nil {
		filters.Errors = []error{err}
		return []state.Component{filters}, 0, Plan{}, -1
	}
	listCtx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	lister := ctl.newLister(secrets, ctl.mirrors.Config())
	images, errs := Discover(listCtx, lister, src.Spec)
	filters.Errors = errs
	filters.Reason, filters.Message, filters.State = FiltersOutcome(len(src.Spec.Filters), len(images), errs)
	if ignored := IgnoredVersions(src.Spec); len(ignored) > 0 {
		// Not an error: aim-engine selects tags without these entries, and so do we.
		filters.Message += fmt.Sprintf("; versions ignored as aim-engine ignores them (not semver ranges): %q", ignored)
	}
	if len(missing) > 0 {
		// First: a long list of filter errors is cut at the end, and the note is also the marker awaitsSecrets reads.
		filters.Message = secretsMissingNote + " " + strings.Join(missing, ", ") + "; " + filters.Message
	}
	if l, ok := lister.(interface{ MirrorsUsed() []string }); ok {
		// The status says which mirrors answered, so that a stale mirror can be told from the registry.
		if used := l.MirrorsUsed(); len(used) > 0 {
			filters.Message += "; listed through the mirror " + strings.Join(used, ", ")
		}
	}

	plan := PlanModels(images, existing, maxModels(src.Spec))
	models := state.Component{Name: ComponentExistingModels, Dependency: state.DependencyDownstream}
	created := 0
	rc, err := ctl.configs.Lookup("", "")
	if err != nil {
		models.Errors = []error{err}
		return []state.Component{filters, models}, 0, plan, len(images)
	}
	for _, img := range plan.Create {
		m := NewModel(src, rc, img)
		// Expected before the apply: the informer may show the model before the apply returns.
		ctl.created.Expect(creationKey(src.Name, m.Name))
		if err := ctl.apply(ctx, m); err != nil {
			ctl.created.Observed(creationKey(src.Name, m.Name))
			models.Errors = []error{err}
			break
		}
		created++
	}
	if len(models.Errors) == 0 {
		models.Reason = ReasonListed
		models.Message = fmt.Sprintf("Found %d existing models", countOwned(existing)+created)
	}
	return []state.Component{filters, models}, created, plan, len(images)
}

// secretsMissingNote starts FiltersReady's message when pull secrets the source names do not exist; it is also
// how a later reconcile knows to look for them.
const secretsMissingNote = "listed without the pull secrets that do not exist:"

// awaitsSecrets reports whether the last listing went without pull secrets that did not exist.
func awaitsSecrets(st aimv1.AIMClusterModelSourceStatus) bool {
	c := meta.FindStatusCondition(st.Conditions, ComponentFilters+state.ComponentSuffix)
	return c != nil && strings.Contains(c.Message, secretsMissingNote)
}

// secretsAppeared reports whether every pull secret the source names exists now. It reads them at most every
// imagemeta.SecretRecheck per source (secretChecks), counting from the listing that missed them.
func (ctl *Controller) secretsAppeared(ctx context.Context, src *aimv1.AIMClusterModelSource, now time.Time) bool {
	last := src.Status.LastSyncTime.Time
	ctl.secretChecksMu.Lock()
	if checked, ok := ctl.secretChecks[src.Name]; ok && checked.After(last) {
		last = checked
	}
	due := !now.Before(last.Add(imagemeta.SecretRecheck))
	if due {
		if ctl.secretChecks == nil {
			ctl.secretChecks = map[string]time.Time{}
		}
		ctl.secretChecks[src.Name] = now
	}
	ctl.secretChecksMu.Unlock()
	if !due {
		return false
	}
	_, missing, err := imagemeta.ExistingPullSecrets(ctx, ctl.c.Kube, ctl.c.Options.SystemNamespace, src.Spec.ImagePullSecrets)
	return err == nil && len(missing) == 0
}

// forgetSecretCheck drops a source's last look for its pull secrets, so that secretChecks holds only sources that
// exist and wait for secrets.
func (ctl *Controller) forgetSecretCheck(name string) {
	ctl.secretChecksMu.Lock()
	delete(ctl.secretChecks, name)
	ctl.secretChecksMu.Unlock()
}

// FiltersOutcome is the FiltersReady reason and message of a listing, as aim-engine words them, with every
// failed filter's error in the message; the state is set only where it is not the errors' own (some filters
// failing makes the source Degraded whatever the errors are).
func FiltersOutcome(filters, images int, errs []error) (reason, message string, st aimv1.AIMStatus) {
	failed := make([]string, len(errs))
	for i, err := range errs {
		failed[i] = err.Error()
	}
	switch {
	case filters == 0:
		return ReasonNoFilters, "No filters configured", aimv1.AIMStatusProgressing
	case len(errs) == 0:
		return ReasonAllFiltersSucceeded, fmt.Sprintf("All %d filters succeeded; %d images match", filters, images), ""
	case len(errs) < filters:
		return ReasonSomeFiltersFailed, fmt.Sprintf("%d of %d filters had errors: %s", len(errs), filters, strings.Join(failed, "; ")),
			aimv1.AIMStatusDegraded
	}
	return ReasonAllFiltersFailed, fmt.Sprintf("All %d filters failed: %s", filters, strings.Join(failed, "; ")), ""
}

// limitCondition is MaxModelsLimitReached, as aim-engine sets it.
func limitCondition(st aimv1.AIMClusterModelSourceStatus) metav1.Condition {
	if st.ModelsLimitReached {
		return metav1.Condition{Type: ConditionMaxModelsLimitReached, Status: metav1.ConditionTrue, Reason: ReasonLimitReached,
			Message: fmt.Sprintf("Limit reached: %d created, %d available", st.DiscoveredModels, st.AvailableModels)}
	}
	return metav1.Condition{Type: ConditionMaxModelsLimitReached, Status: metav1.ConditionFalse, Reason: ReasonWithinLimit,
		Message: fmt.Sprintf("Created %d models, within limit", st.DiscoveredModels)}
}

// modelSeen is the model informer's handler for the creations the controller expects.
func (ctl *Controller) modelSeen(obj any) {
	m, ok := obj.(*aimv1.AIMClusterModel)
	if !ok {
		return
	}
	if ref := metav1.GetControllerOf(m); ref != nil && ref.Kind == "AIMClusterModelSource" {
		ctl.created.Observed(creationKey(ref.Name, m.Name))
	}
}

// creationKey is the expectation of a model a source creates: source and model name, as two sources listing
// the same image derive the same model name (ModelName).
func creationKey(source, model string) string { return source + "/" + model }

// modelOf is the model name of a creationKey.
func modelOf(key string) string {
	_, model, _ := strings.Cut(key, "/")
	return model
}

// existing maps the names of every AIMClusterModel, and of the models being created, to whether src owns them.
func (ctl *Controller) existing(src *aimv1.AIMClusterModelSource) (map[string]bool, error) {
	all, err := ctl.models.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing cluster models: %w", err)
	}
	out := make(map[string]bool, len(all))
	for _, m := range all {
		out[m.Name] = reconcile.OwnedBy(m, src.UID)
	}
	// Models a sync of src created that the cache does not show yet are src's.
	for _, key := range ctl.created.PendingKeys(func(key string) bool { _, ok := out[modelOf(key)]; return ok }) {
		if source, name, _ := strings.Cut(key, "/"); source == src.Name {
			out[name] = true
		}
	}
	return out, nil
}

func (ctl *Controller) apply(ctx context.Context, m *aimv1.AIMClusterModel) error {
	if _, err := reconcile.Apply(ctx, m, ctl.c.AIM.AimV1alpha1().AIMClusterModels().Apply, FieldManager); err != nil {
		return fmt.Errorf("model for %s: %w", m.Spec.Image, err)
	}
	return nil
}

func countOwned(existing map[string]bool) int {
	n := 0
	for _, mine := range existing {
		if mine {
			n++
		}
	}
	return n
}

// ModelsMissing reports whether src owns fewer models than its last sync left it with, that is whether one was
// deleted since: the reconcile the deletion's event queues then lists the registry (SyncDue) and re-creates the
// model, as aim-engine, which watches the models it owns (internal/controller/aimclustermodelsource_controller.go:127)
// and creates every selected image that has no model on each reconcile
// (internal/aimclustermodelsource/reconcile.go:206), does at once. Comparing counts keeps the steady state free of
// registry listings. (A source being deleted is not reconciled at all, reconcile.Lookup: the garbage collector
// removing its models is no reason to make them again.)
func ModelsMissing(src *aimv1.AIMClusterModelSource, owned int) bool {
	return src.Status.LastSyncTime != nil && owned < int(src.Status.DiscoveredModels)
}

// SyncDue reports whether the registry must be listed now, else how long until it must. A sync is due for a
// new or changed spec, when a model the source owns is gone (ModelsMissing; owned is how many it owns), after
// syncInterval, and sooner while the registry is unreachable (infraRetry at first, then as long again as it has
// been unreachable: the work queue's backoff does not space them, as a reconcile that waits resets it).
func SyncDue(src *aimv1.AIMClusterModelSource, owned int, now time.Time) (bool, time.Duration) {
	st := src.Status
	if st.LastSyncTime == nil || st.ObservedGeneration != src.Generation || ModelsMissing(src, owned) {
		return true, 0
	}
	wait := aimv1.DefaultSyncInterval
	if src.Spec.SyncInterval != nil && src.Spec.SyncInterval.Duration > 0 {
		wait = src.Spec.SyncInterval.Duration
	}
	// An unreachable registry is tried again soon, but each try lists the registry: one down for an hour is tried
	// about hourly, not every 30 s.
	if c := meta.FindStatusCondition(st.Conditions, state.ConditionDependenciesReachable); c != nil && c.Status == metav1.ConditionFalse {
		var down time.Duration // how long the registry had been unreachable at the last listing
		if !c.LastTransitionTime.IsZero() {
			down = st.LastSyncTime.Sub(c.LastTransitionTime.Time)
		}
		wait = min(wait, max(infraRetry, down))
	}
	next := st.LastSyncTime.Add(wait)
	if !now.Before(next) {
		return true, 0
	}
	return false, next.Sub(now)
}
