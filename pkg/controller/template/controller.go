package template

import (
	"context"
	"fmt"
	"io"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/discovery"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/keyed"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// FieldManager owns what the template controller applies for templates and writes their status; it is the
// source of their Events, as aim-engine's controller is named.
const FieldManager = "aim-service-template-controller"

// ClusterFieldManager is FieldManager for cluster templates: aim-engine runs a controller of its own for them.
const ClusterFieldManager = "aim-cluster-service-template-controller"

const (
	kindNamespaced = "AIMServiceTemplate"
	kindCluster    = "AIMClusterServiceTemplate"
)

// Controller reconciles both template kinds.
type Controller struct {
	c manager.Clients
	// registries are the registry mirrors, for image rewriting.
	registries *mirrors.Source
	backoff    discovery.Backoff

	templates        aimlisters.AIMServiceTemplateLister
	clusterTemplates aimlisters.AIMClusterServiceTemplateLister
	models           aimlisters.AIMModelLister
	clusterModels    aimlisters.AIMClusterModelLister
	configs          runtimeconfig.Configs
	gpus             *gpu.Tracker
	caches           aimlisters.AIMTemplateCacheLister
	jobs             batchlisters.JobLister
	pods             corelisters.PodLister

	// clusterRecorder records the Events of cluster templates under aim-engine's name of their controller.
	clusterRecorder record.EventRecorder

	// slots hands out discovery Job slots, so maxConcurrentJobs holds exactly.
	slots *jobSlots
	ns    *manager.Controller
	cl    *manager.Controller
}

// DiscoveryObjects are the discovery Jobs and their pods, all the Jobs and Pods the template controllers read.
var DiscoveryObjects = manager.Selection{Labels: discovery.LabelName + "=" + discovery.NameValue}

// Register adds the template controllers to the manager.
func Register(m *manager.Manager, backoff discovery.Backoff, gpus *gpu.Tracker, registries *mirrors.Source) error {
	v := m.AIMInformers.Aim().V1alpha1()
	d := m.Selected(DiscoveryObjects)
	ctl := &Controller{registries: registries,
		c: m.Clients, backoff: backoff,
		templates: v.AIMServiceTemplates().Lister(), clusterTemplates: v.AIMClusterServiceTemplates().Lister(),
		models: v.AIMModels().Lister(), clusterModels: v.AIMClusterModels().Lister(),
		configs: runtimeconfig.ConfigsOf(v),
		caches:  v.AIMTemplateCaches().Lister(), gpus: gpus, jobs: d.Batch().V1().Jobs().Lister(), pods: d.Core().V1().Pods().Lister(),
	}
	// Events name the controller as their source, as aim-engine's do.
	ctl.c.Recorder = m.RecorderFor(FieldManager)
	ctl.clusterRecorder = m.RecorderFor(ClusterFieldManager)
	ctl.slots = newJobSlots(ctl.activeDiscoveryJobs, ctl.jobCached)
	var err error
	if ctl.ns, err = manager.NewKindController("service-template", manager.ReconcilerFunc(ctl.reconcileNamespaced), v.AIMServiceTemplates().Informer()); err != nil {
		return err
	}
	if ctl.cl, err = manager.NewKindController("cluster-service-template", manager.ReconcilerFunc(ctl.reconcileCluster), v.AIMClusterServiceTemplates().Informer()); err != nil {
		return err
	}

	for _, inf := range []cache.SharedIndexInformer{v.AIMServiceTemplates().Informer(), v.AIMClusterServiceTemplates().Informer()} {
		if err := inf.AddIndexers(cache.Indexers{dependencyIndex: dependencies}); err != nil {
			return fmt.Errorf("indexing templates: %w", err)
		}
	}
	dependents := dependentsHandler(v.AIMServiceTemplates().Informer().GetIndexer(), v.AIMClusterServiceTemplates().Informer().GetIndexer(), ctl.ns.Add, ctl.cl.Add)
	// A GPU node coming, going or changing its GPUs re-checks the templates that need a GPU.
	gpus.OnChange(func(_, _ gpu.Inventory) {
		ctl.enqueueAll(func(hw *aimv1.AIMHardwareRequirements) bool { _, ok := requirement(hw); return ok })
	})
	// Both kinds depend on the same objects, and the handlers queue either: one registration serves both.
	// A Warning about a discovery pod (a refused pull, FailedScheduling) keeps it pending; a Pulling event says
	// that its image is being pulled.
	events := m.PodEvents.Dependencies(manager.JobEventHandler(ctl.jobs, ctl.pods, ctl.owners()))
	// A model or runtime config re-checks the templates that use it (dependencyIndex).
	if err := m.Add(ctl.ns, append(append(events, runtimeconfig.Dependencies(v, dependents)...),
		manager.Dependency{Informer: v.AIMModels().Informer(), Handler: dependents},
		manager.Dependency{Informer: v.AIMClusterModels().Informer(), Handler: dependents},
		manager.Dependency{Informer: v.AIMTemplateCaches().Informer(), Handler: ctl.owners().Handler()},
		manager.Dependency{Informer: d.Batch().V1().Jobs().Informer(), Handler: ctl.owners().Handler()},
		manager.Dependency{Informer: d.Batch().V1().Jobs().Informer(), Handler: ctl.slots.observed()},
		manager.Dependency{Informer: d.Core().V1().Pods().Informer(), Handler: manager.JobPodHandler(ctl.jobs, ctl.owners())},
	)...); err != nil {
		return err
	}
	return m.Add(ctl.cl)
}

func (ctl *Controller) reconcileNamespaced(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	namespace, name := key.Namespace, key.Name
	t, ok, err := reconcile.Lookup(func() (*aimv1.AIMServiceTemplate, error) {
		return ctl.templates.AIMServiceTemplates(namespace).Get(name)
	})
	if !ok {
		return 0, err
	}
	o := ctl.observe(kindNamespaced, &t.ObjectMeta, t.Spec.AIMServiceTemplateSpecCommon, t.Status, namespace)
	o.Caching = t.Spec.Caching
	return ctl.reconcile(ctx, t, o, reconcile.StatusWriter(ctx, t, ctl.c.AIM.AimV1alpha1().AIMServiceTemplates(namespace).UpdateStatus, FieldManager))
}

func (ctl *Controller) reconcileCluster(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	name := key.Name
	t, ok, err := reconcile.Lookup(func() (*aimv1.AIMClusterServiceTemplate, error) { return ctl.clusterTemplates.Get(name) })
	if !ok {
		return 0, err
	}
	o := ctl.observe(kindCluster, &t.ObjectMeta, t.Spec.AIMServiceTemplateSpecCommon, t.Status, ctl.c.Options.SystemNamespace)
	return ctl.reconcile(ctx, t, o, reconcile.StatusWriter(ctx, t, ctl.c.AIM.AimV1alpha1().AIMClusterServiceTemplates().UpdateStatus, ClusterFieldManager))
}

// observe gathers a template's inputs from the informer caches.
func (ctl *Controller) observe(kind string, meta *metav1.ObjectMeta, spec aimv1.AIMServiceTemplateSpecCommon,
	status aimv1.AIMServiceTemplateStatus, jobNamespace string) Observation {
	o := Observation{
		Kind: kind, Name: meta.Name, Namespace: meta.Namespace, UID: meta.UID, Generation: meta.Generation, Labels: meta.Labels,
		Spec: spec, Status: status, JobNamespace: jobNamespace, Backoff: ctl.backoff, Now: time.Now(), Mirrors: ctl.registries.Config(),
	}
	o.Model, o.ModelErr = ctl.resolveModel(meta.Namespace, spec.ModelName)

	o.RuntimeConfig, o.RuntimeConfigErr = ctl.configs.Lookup(spec.RuntimeConfigName, meta.Namespace)

	o.Inventory = ctl.gpus.Inventory()

	o.ActiveDiscoveryJobs = ctl.activeDiscoveryJobs()
	if o.Model != nil {
		js := jobSpec(o, 1)
		// The Job of the attempt the planner will look for, by the record it keeps (a migrated result adopted, an
		// earlier release's record taken under today's hash).
		hash := js.Hash()
		if d := recordedDiscovery(o, js, hash); d != nil && d.SpecHash == hash {
			js.Attempt = d.Attempts + 1
		}
		if j, err := ctl.jobs.Jobs(jobNamespace).Get(js.JobName()); err == nil && reconcile.OwnedBy(j, meta.UID) {
			o.Job = j
			o.JobPods, o.JobEvents = health.JobPods(ctl.pods, ctl.c.PodEvents, j)
			if done, failed := health.Finished(j); done && failed == "" {
				o.JobOutput, o.JobOutputErr = ctl.output(j)
			}
		}
	}
	return o
}

// resolveModel finds a namespaced template's AIMModel, else the AIMClusterModel of that name (F12); a cluster
// template's AIMClusterModel.
func (ctl *Controller) resolveModel(namespace, name string) (*Model, error) {
	if namespace != "" {
		if m, err := ctl.models.AIMModels(namespace).Get(name); err == nil {
			return &Model{Ref: *state.Reference(m.Name, m.Namespace, m.UID, "AIMModel", ""),
				Image: m.Spec.Image, ImagePullSecrets: m.Spec.ImagePullSecrets, ServiceAccountName: m.Spec.ServiceAccountName,
				Status: m.Status.Status, Conditions: m.Status.Conditions}, nil
		} else if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	m, err := ctl.clusterModels.Get(name)
	if apierrors.IsNotFound(err) {
		where := "no AIMClusterModel"
		if namespace != "" {
			where = fmt.Sprintf("no AIMModel in namespace %s and no AIMClusterModel", namespace)
		}
		return nil, state.NewError(state.MissingUpstream, ReasonModelNotFound, "%s is named %q", where, name)
	} else if err != nil {
		return nil, err
	}
	return &Model{Ref: *state.Reference(m.Name, "", m.UID, "", "AIMClusterModel"),
		Image: m.Spec.Image, ImagePullSecrets: m.Spec.ImagePullSecrets, ServiceAccountName: m.Spec.ServiceAccountName,
		Status: m.Status.Status, Conditions: m.Status.Conditions}, nil
}

// output reads a finished discovery pod's result: the termination message, else the container log.
func (ctl *Controller) output(job *batchv1.Job) (string, error) {
	pods, err := ctl.pods.Pods(job.Namespace).List(labels.SelectorFromSet(labels.Set{batchv1.JobNameLabel: job.Name}))
	if err != nil {
		return "", err
	}
	var succeeded *corev1.Pod
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded {
			succeeded = p
		}
	}
	if succeeded == nil {
		return "", state.NewError(state.MissingDownstream, ReasonDiscoveryPodNotFound, "no succeeded pod of Job %s", job.Name)
	}
	if out, ok := discovery.TerminationOutput(succeeded); ok {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := ctl.c.Kube.CoreV1().Pods(job.Namespace).GetLogs(succeeded.Name, &corev1.PodLogOptions{
		Container: discovery.ContainerName, LimitBytes: ptr.To[int64](discovery.MaxOutputBytes + 1)}).Stream(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the log of discovery pod %s: %w", succeeded.Name, err)
	}
	defer stream.Close()
	data, err := io.ReadAll(io.LimitReader(stream, discovery.MaxOutputBytes+1))
	return string(data), err
}

// reconcile plans, applies the Job, derives the status and writes it when it changed.
func (ctl *Controller) reconcile(ctx context.Context, obj reconcile.Object, o Observation, write func(aimv1.AIMServiceTemplateStatus) error) (time.Duration, error) {
	rec, manager := ctl.c.Recorder, FieldManager
	if o.Kind == kindCluster {
		manager = ClusterFieldManager
		if ctl.clusterRecorder != nil {
			rec = ctl.clusterRecorder
		}
	}
	plan := PlanTemplate(o)
	var applyErr error
	if plan.Job != nil {
		created, err := ctl.createJob(ctx, plan.Job, o.RuntimeConfig.MaxConcurrentDiscoveryJobs(), manager)
		switch {
		case err != nil:
			applyErr = err
			jobNotCreated(o, &plan, err)
		case !created:
			// Another template took the last slot since we looked: wait, as the planner does.
			waitForSlot(o, &plan)
		default:
			rec.Eventf(obj, corev1.EventTypeNormal, ReasonJobCreated, "Created discovery Job %s/%s", plan.Job.Namespace, plan.Job.Name)
		}
	}
	var owned *aimv1.AIMTemplateCache
	if plan.Cache != nil {
		c, err := ctl.applyCache(ctx, plan.Cache, o.UID, manager)
		if err != nil {
			plan.Components = append(plan.Components, state.Component{Name: ComponentTemplateCache, Dependency: state.DependencyDownstream, Errors: []error{err}})
			applyErr = err
		}
		owned = c
	} else if o.Namespace != "" {
		// Caching may be blocked for now (say, the model is gone) while the cache made earlier still exists.
		if c, err := ctl.caches.AIMTemplateCaches(o.Namespace).Get(o.Name); err == nil && reconcile.OwnedBy(c, o.UID) {
			owned = c
		}
	}
	plan.Status.ResolvedCache = cacheReference(owned)
	return reconcile.Conclude(rec, obj, "template "+o.Name, o.Status, plan.Status, reconcile.Outcome{Components: lastReports(plan.Components),
		Informational: state.Normal(plan.Informational...), Now: o.Now, ApplyErr: applyErr, RequeueAfter: plan.RequeueAfter}, write)
}

// activeDiscoveryJobs counts unfinished discovery Jobs in every namespace: the limit is cluster-wide.
func (ctl *Controller) activeDiscoveryJobs() int {
	all, _ := ctl.jobs.List(labels.SelectorFromSet(labels.Set{discovery.LabelName: discovery.NameValue}))
	active := 0
	for _, j := range all {
		if !isFinished(j) {
			active++
		}
	}
	return active
}

// jobCached reports whether the informer cache shows the Job namespace/name.
func (ctl *Controller) jobCached(key string) bool {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return false
	}
	_, err = ctl.jobs.Jobs(namespace).Get(name)
	return err == nil
}

// createJob applies a discovery Job as fieldManager if a slot is still free. It reports false, without error,
// when none is.
func (ctl *Controller) createJob(ctx context.Context, job *batchv1.Job, limit int32, fieldManager string) (bool, error) {
	return ctl.slots.take(limit, job.Namespace+"/"+job.Name, func() error {
		_, err := reconcile.Apply(ctx, job, ctl.c.Kube.BatchV1().Jobs(job.Namespace).Apply, fieldManager)
		return err
	})
}

// applyCache creates or updates the owned template cache as fieldManager by reconcile.PrepareApply's rule and
// returns it; a cache that already matches costs no request.
func (ctl *Controller) applyCache(ctx context.Context, c *aimv1.AIMTemplateCache, owner types.UID, fieldManager string) (*aimv1.AIMTemplateCache, error) {
	var live *aimv1.AIMTemplateCache
	if cur, err := ctl.caches.AIMTemplateCaches(c.Namespace).Get(c.Name); err == nil {
		if !reconcile.OwnedBy(cur, owner) {
			return nil, state.NewError(state.InvalidSpec, ReasonTemplateCacheConflict,
				"AIMTemplateCache %s/%s exists and belongs to something else", c.Namespace, c.Name)
		}
		live = cur
	}
	applied := live
	_, err := reconcile.ApplyChanged(ctx, c, live, func(ctx context.Context, body []byte) (err error) {
		applied, err = reconcile.Send(ctx, body, ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(c.Namespace).Apply, fieldManager)
		return err
	})
	if err != nil {
		return nil, err
	}
	return applied, nil
}

// cacheReference is status.resolvedCache: the template cache the template owns, if any.
func cacheReference(c *aimv1.AIMTemplateCache) *aimv1.AIMResolvedReference {
	if c == nil {
		return nil
	}
	return &aimv1.AIMResolvedReference{Kind: "AIMTemplateCache", Name: c.Name, Namespace: c.Namespace,
		Scope: aimv1.AIMResolutionScopeNamespace, UID: c.UID}
}

// enqueueAll re-queues the templates whose hardware requirements match.
func (ctl *Controller) enqueueAll(match func(*aimv1.AIMHardwareRequirements) bool) {
	if ts, err := ctl.templates.List(labels.Everything()); err == nil {
		for _, t := range ts {
			if match(t.Spec.Hardware) {
				ctl.ns.Add(cache.MetaObjectToName(t))
			}
		}
	}
	if ts, err := ctl.clusterTemplates.List(labels.Everything()); err == nil {
		for _, t := range ts {
			if match(t.Spec.Hardware) {
				ctl.cl.Add(cache.MetaObjectToName(t))
			}
		}
	}
}

// owners routes child events to the template controllers.
func (ctl *Controller) owners() manager.Owners {
	return manager.Owners{
		kindNamespaced: {Controller: ctl.ns, Namespaced: true},
		kindCluster:    {Controller: ctl.cl},
	}
}

func isFinished(j *batchv1.Job) bool {
	done, _ := health.Finished(j)
	return done
}

// lastReports keeps the last report of each component: an apply error replaces the planned state.
func lastReports(cs []state.Component) []state.Component {
	return keyed.Merge(cs, func(c state.Component) string { return c.Name }, nil)
}
