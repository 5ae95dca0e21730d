package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	autoscalinglisters "k8s.io/client-go/listers/autoscaling/v2"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// FieldManager owns what the service controller applies.
const FieldManager = "aim-service-controller"

// Controller reconciles AIMServices.
type Controller struct {
	c manager.Clients
	// steady remembers the children found as desired, so that a resync of an unchanged service is cheap.
	steady reconcile.Steady
	// registries are the registry mirrors, for image rewriting.
	registries *mirrors.Source
	q          *manager.Controller
	// owners routes events of children to their service.
	owners manager.Owners

	services         aimlisters.AIMServiceLister
	models           aimlisters.AIMModelLister
	clusterModels    aimlisters.AIMClusterModelLister
	templates        aimlisters.AIMServiceTemplateLister
	clusterTemplates aimlisters.AIMClusterServiceTemplateLister
	configs          runtimeconfig.Configs
	caches           aimlisters.AIMTemplateCacheLister
	gpus             *gpu.Tracker
	pods             corelisters.PodLister
	hpas             autoscalinglisters.HorizontalPodAutoscalerLister
	// isvcs and routes cache the services' InferenceServices and HTTPRoutes, indexed by controller; their
	// listers are nil while the cluster does not serve the API.
	isvcs, routes *manager.Optional
}

// PredictorPods are the pods of InferenceServices, as aim-engine watches them; the controller reads those of
// its own InferenceServices.
var PredictorPods = manager.Selection{Labels: LabelInferenceService}

// Autoscalers are the HorizontalPodAutoscalers of AIM services, as aim-engine watches them: KServe labels the
// ScaledObject of a predictor as its InferenceService, and KEDA copies those labels to the HPA it makes.
var Autoscalers = manager.Selection{Labels: aimv1.LabelService}

// Register adds the service controller to the manager.
func Register(m *manager.Manager, gpus *gpu.Tracker, registries *mirrors.Source) error {
	v := m.AIMInformers.Aim().V1alpha1()
	pods, hpas := m.Selected(PredictorPods), m.Selected(Autoscalers)
	ctl := &Controller{c: m.Clients, registries: registries,
		services: v.AIMServices().Lister(), models: v.AIMModels().Lister(), clusterModels: v.AIMClusterModels().Lister(),
		templates: v.AIMServiceTemplates().Lister(), clusterTemplates: v.AIMClusterServiceTemplates().Lister(),
		configs: runtimeconfig.ConfigsOf(v),
		caches:  v.AIMTemplateCaches().Lister(), gpus: gpus, pods: pods.Core().V1().Pods().Lister(),
		hpas: hpas.Autoscaling().V2().HorizontalPodAutoscalers().Lister(),
	}
	// Events name the controller as their source, as aim-engine's do.
	ctl.c.Recorder = m.RecorderFor(FieldManager)
	var err error
	if ctl.q, err = manager.NewKindController("service", manager.ReconcilerFunc(ctl.reconcile), v.AIMServices().Informer()); err != nil {
		return err
	}
	ctl.owners = manager.Owners{"AIMService": {Controller: ctl.q, Namespaced: true}}
	deps, err := ctl.dependencyHandlers(m, pods, hpas)
	if err != nil {
		return err
	}
	// Template selection ranks the GPU models present: a model appearing or going re-checks every service.
	gpus.OnChange(func(before, after gpu.Inventory) {
		if !slices.Equal(before.Models(), after.Models()) {
			ctl.q.AddAll()
		}
	})
	// The services' InferenceServices and HTTPRoutes, from when the cluster serves their API: a service waiting
	// for KServe or the Gateway API goes on then, as every service is queued.
	ctl.isvcs, ctl.routes = m.Optional(kserve.Resource, kserve.NewObject), m.Optional(gateway.Resource, gateway.NewObject)
	for _, o := range []*manager.Optional{ctl.isvcs, ctl.routes} {
		o.Watch(cache.Indexers{manager.ControllerIndex: manager.IndexByController}, ctl.owners.Handler(), ctl.q.AddAll)
	}
	return m.Add(ctl.q, deps...)
}

// dependencyHandlers indexes what services depend on and returns the handlers that queue them: for those objects
// (models, templates, runtime configs, caches), the services' children and the children's pods,
// events (Warnings, Pulling) and autoscalers.
func (ctl *Controller) dependencyHandlers(m *manager.Manager, pods, hpas informers.SharedInformerFactory) ([]manager.Dependency, error) {
	v := m.AIMInformers.Aim().V1alpha1()
	if err := v.AIMServices().Informer().AddIndexers(cache.Indexers{dependencyIndex: dependencies}); err != nil {
		return nil, fmt.Errorf("indexing services: %w", err)
	}
	dependents := ctl.dependentsHandler(v.AIMServices().Informer().GetIndexer(), ctl.q.Add)
	deps := append(runtimeconfig.Dependencies(v, dependents), []manager.Dependency{
		{Informer: v.AIMModels().Informer(), Handler: dependents},
		{Informer: v.AIMServiceTemplates().Informer(), Handler: dependents},
		{Informer: v.AIMTemplateCaches().Informer(), Handler: dependents},
		{Informer: v.AIMClusterModels().Informer(), Handler: dependents},
		{Informer: v.AIMClusterServiceTemplates().Informer(), Handler: dependents},
		{Informer: pods.Core().V1().Pods().Informer(), Handler: ctl.podHandler()},
		{Informer: hpas.Autoscaling().V2().HorizontalPodAutoscalers().Informer(), Handler: ctl.hpaHandler()},
	}...)
	return append(deps, m.PodEvents.Dependencies(ctl.eventHandler())...), nil
}

// reconcile reads a service's observation, plans, acts, derives its status and ends the reconcile.
func (ctl *Controller) reconcile(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	namespace, name := key.Namespace, key.Name
	svc, ok, err := reconcile.LookupFinalized(ctx, func() (*aimv1.AIMService, error) { return ctl.services.AIMServices(namespace).Get(name) },
		FinalizerCacheCleanup, ctl.patchService(namespace), func(svc *aimv1.AIMService) error { return ctl.cleanupCaches(ctx, svc) })
	if !ok {
		return 0, err
	}
	o := ctl.observe(svc)
	plan := PlanService(o)
	applyErr := errors.Join(ctl.act(ctx, o, &plan)...)
	return reconcile.Conclude(ctl.c.Recorder, svc, "AIMService "+key.String(), svc.Status, plan.finalStatus(),
		reconcile.Outcome{Components: plan.components(), ApplyErr: applyErr},
		reconcile.StatusWriter(ctx, svc, ctl.c.AIM.AimV1alpha1().AIMServices(namespace).UpdateStatus, FieldManager))
}

// act carries out a plan in order: the model, the derived template, the cache, the InferenceService, then the
// route. A write that fails is reported in its component and returned (with nils, which errors.Join drops); what
// depends on it is left for the retry.
func (ctl *Controller) act(ctx context.Context, o Observation, p *Plan) []error {
	svc := o.Service
	var errs []error
	if p.CreateModel != nil {
		errs = append(errs, reconcile.CreateShared(ctx, "AIMModel", p.CreateModel, ctl.c.AIM.AimV1alpha1().AIMModels(svc.Namespace).Create, FieldManager))
	}
	if p.Derived != nil && p.DerivedErr == nil { // a conflict is in TemplateReady; nothing to write
		errs = append(errs, ctl.applyDerived(ctx, p.Derived, p.DerivedLive))
	}
	if p.CreateCache != nil {
		errs = append(errs, reconcile.CreateShared(ctx, "AIMTemplateCache", p.CreateCache, ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(svc.Namespace).Create,
			FieldManager))
	}
	if p.ISVC != nil {
		if err := ctl.apply(ctx, kserve.Resource, p.ISVC, &p.ISVC.ObjectMeta, o.ISVC, p.ISVCInputs, kserve.ScaleFields()...); err != nil {
			errs = append(errs, err)
			p.Workload = []state.Component{{Name: ComponentISVC, Dependency: state.DependencyDownstream, Errors: []error{err}}}
			p.Status.Runtime, p.Status.Endpoint = svc.Status.Runtime.DeepCopy(), svc.Status.Endpoint.DeepCopy()
			p.WorkloadExists = false
		}
	}
	if p.WorkloadExists {
		// The InferenceService (and Dedicated cache) of the name the service wants exists: those it made under
		// other names, as earlier releases named them, would serve the model twice.
		errs = append(errs, ctl.deleteStaleWorkload(ctx, o, p.CacheInUse))
		errs = append(errs, ctl.deleteStaleDerived(ctx, svc, p))
	}
	return append(errs, ctl.actRoute(ctx, o, p)...)
}

// actRoute deletes the service's stale routes, then deletes or applies its route.
func (ctl *Controller) actRoute(ctx context.Context, o Observation, p *Plan) []error {
	svc := o.Service
	var errs []error
	if p.SweepRoutes {
		errs = append(errs, reconcile.DeleteStale(ctx, ctl.c.Recorder, svc, []string{FieldManager}, "HTTPRoute", o.Routes, []string{RouteName(svc)},
			ctl.dynamicDelete(gateway.Resource, svc.Namespace)))
	}
	if p.DeleteRoute {
		// Routing turned off: the route goes as every child the service no longer wants, by DeleteStale's rule, so
		// that a route a user or aim-engine made and this controller never wrote stays.
		errs = append(errs, reconcile.DeleteStale(ctx, ctl.c.Recorder, svc, []string{FieldManager}, "HTTPRoute", []metav1.Object{o.RouteObject}, nil,
			ctl.dynamicDelete(gateway.Resource, svc.Namespace)))
	}
	errs = append(errs, p.RouteErr)
	if p.HTTPRoute != nil {
		if err := ctl.apply(ctx, gateway.Resource, p.HTTPRoute, &p.HTTPRoute.ObjectMeta, o.Route, ""); err != nil {
			errs = append(errs, err)
			comp := routeFailed(p.routeBase, err)
			p.Route, p.Status.Routing = &comp, keptRouting(o)
		}
	}
	return errs
}

// cleanupCaches removes the shared caches a deleted service leaves unneeded.
func (ctl *Controller) cleanupCaches(ctx context.Context, svc *aimv1.AIMService) error {
	caches, _ := ctl.caches.AIMTemplateCaches(svc.Namespace).List(labels.Everything())
	services, _ := ctl.services.AIMServices(svc.Namespace).List(labels.Everything())
	return reconcile.DeleteUnneeded(ctx, "template cache", CachesToClean(svc, caches, services, ctl.unusableTemplate(svc)),
		ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(svc.Namespace).Delete, func(c *aimv1.AIMTemplateCache) {
			why := "which no other service needs and which was not ready"
			if c.Status.Status == aimv1.AIMStatusReady {
				why = "whose template no other service can run on"
			}
			ctl.c.Recorder.Eventf(svc, corev1.EventTypeNormal, "TemplateCacheDeleted", "Deleted AIMTemplateCache %s, %s", c.Name, why)
		})
}

// unusableTemplate reports whether no other service can run on the deleted service's resolved template: its own
// derived template, or a namespaced template that is gone (a derived one may go first, with foreground deletion).
func (ctl *Controller) unusableTemplate(svc *aimv1.AIMService) bool {
	ref := svc.Status.ResolvedTemplate
	if ref == nil || ref.Namespace == "" {
		return false
	}
	t, err := ctl.templates.AIMServiceTemplates(svc.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		return true
	}
	return err == nil && t.Labels[aimv1.LabelOrigin] == aimv1.OriginDerived && reconcile.OwnedBy(t, svc.UID)
}

func (ctl *Controller) patchService(namespace string) func(context.Context, string, []byte) error {
	return func(ctx context.Context, name string, data []byte) error {
		_, err := ctl.c.AIM.AimV1alpha1().AIMServices(namespace).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: FieldManager})
		return err
	}
}

// deleteStaleWorkload deletes the service's InferenceServices other than its own and, once the service reads a
// cache, its Dedicated caches other than that one.
func (ctl *Controller) deleteStaleWorkload(ctx context.Context, o Observation, cache string) error {
	svc := o.Service
	if err := reconcile.DeleteStale(ctx, ctl.c.Recorder, svc, []string{FieldManager}, "InferenceService", o.ISVCs, []string{WorkloadName(svc)},
		ctl.dynamicDelete(kserve.Resource, svc.Namespace)); err != nil {
		return err
	}
	if cache == "" {
		return nil
	}
	return reconcile.DeleteStale(ctx, ctl.c.Recorder, svc, []string{FieldManager}, "AIMTemplateCache", o.Caches, []string{cache},
		ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(svc.Namespace).Delete)
}

// deleteStaleDerived deletes the service's stale derived templates, then their caches (Plan.StaleDerived).
func (ctl *Controller) deleteStaleDerived(ctx context.Context, svc *aimv1.AIMService, p *Plan) error {
	if err := reconcile.DeleteUnneeded(ctx, "AIMServiceTemplate", p.StaleDerived, ctl.c.AIM.AimV1alpha1().AIMServiceTemplates(svc.Namespace).Delete,
		reconcile.StaleDeleted[*aimv1.AIMServiceTemplate](ctl.c.Recorder, svc, "AIMServiceTemplate")); err != nil {
		return err
	}
	return reconcile.DeleteUnneeded(ctx, "template cache", p.StaleCaches, ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(svc.Namespace).Delete,
		reconcile.StaleDeleted[*aimv1.AIMTemplateCache](ctl.c.Recorder, svc, "AIMTemplateCache"))
}

// dynamicDelete deletes objects of a resource the dynamic client serves.
func (ctl *Controller) dynamicDelete(gvr schema.GroupVersionResource, namespace string) func(context.Context, string, metav1.DeleteOptions) error {
	return func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
		return ctl.c.Dynamic.Resource(gvr).Namespace(namespace).Delete(ctx, name, opts)
	}
}

// apply server-side applies a child of another API group (InferenceService, HTTPRoute) over live, through the
// dynamic client; inputs identifies what obj was built from, if known, and unhashed are fields left out of the
// applied hash (Steady.ApplyChangedFrom).
func (ctl *Controller) apply(ctx context.Context, gvr schema.GroupVersionResource, obj runtime.Object, meta *metav1.ObjectMeta, live runtime.Object,
	inputs string, unhashed ...[]string) error {
	_, err := ctl.steady.ApplyChangedFrom(ctx, inputs, obj, live, func(ctx context.Context, body []byte) error {
		_, err := ctl.c.Dynamic.Resource(gvr).Namespace(meta.Namespace).Patch(ctx, meta.Name, types.ApplyPatchType, body,
			metav1.PatchOptions{FieldManager: FieldManager, Force: ptr.To(true)})
		return err
	}, unhashed...)
	return err
}

// findModels lists the models spec.model may mean.
func (ctl *Controller) findModels(svc *aimv1.AIMService) []Model {
	var out []Model
	m := svc.Spec.Model
	switch {
	case m.Name != nil:
		// Both, namespaced first: a new resolution takes the namespaced model, and the cluster model a service
		// already runs on stays its own (stillResolved) when a namespaced one of the name appears.
		if x, err := ctl.models.AIMModels(svc.Namespace).Get(*m.Name); err == nil {
			out = append(out, fromNamespacedModel(x))
		}
		if x, err := ctl.clusterModels.Get(*m.Name); err == nil {
			out = append(out, fromClusterModel(x))
		}
	case m.Image != nil, m.Custom != nil:
		ns, _ := ctl.models.AIMModels(svc.Namespace).List(labels.Everything())
		for _, x := range ns {
			out = append(out, fromNamespacedModel(x))
		}
		if m.Image != nil {
			cl, _ := ctl.clusterModels.List(labels.Everything())
			for _, x := range cl {
				out = append(out, fromClusterModel(x))
			}
		}
	}
	return out
}

func fromNamespacedModel(m *aimv1.AIMModel) Model {
	return currentModel(Model{Name: m.Name, Namespace: m.Namespace, UID: m.UID, Labels: m.Labels, Status: m.Status.Status, Spec: m.Spec,
		Version: reconcile.Version(m)},
		m.Generation, m.Status.ObservedGeneration)
}

func fromClusterModel(m *aimv1.AIMClusterModel) Model {
	return currentModel(Model{Name: m.Name, UID: m.UID, Labels: m.Labels, Status: m.Status.Status, Spec: m.Spec, Version: reconcile.Version(m)},
		m.Generation, m.Status.ObservedGeneration)
}

// currentModel reads a stale status (state.StaleStatus) as Pending.
func currentModel(m Model, generation, observed int64) Model {
	if state.StaleStatus(generation, observed) {
		m.Stale, m.Status = true, aimv1.AIMStatusPending
	}
	return m
}

// currentTemplate reads a stale status (state.StaleStatus) as Pending: its hardware and profile may be of an earlier
// spec.
func currentTemplate(t Template) Template {
	if state.StaleStatus(t.Generation, t.Status.ObservedGeneration) {
		t.Stale, t.StaleFrom = true, t.Status.Status
		t.Status = *t.Status.DeepCopy()
		t.Status.Status = aimv1.AIMStatusPending
	}
	return t
}

// findTemplates lists the template named in spec.template (namespaced first), or every template for selection.
func (ctl *Controller) findTemplates(svc *aimv1.AIMService) []Template {
	var out []Template
	if sel := svc.Spec.Template; sel != nil && sel.Name != "" {
		if t, err := ctl.templates.AIMServiceTemplates(svc.Namespace).Get(sel.Name); err == nil {
			out = append(out, fromNamespaced(t))
		}
		if t, err := ctl.clusterTemplates.Get(sel.Name); err == nil {
			out = append(out, fromCluster(t))
		}
		return out
	}
	ns, _ := ctl.templates.AIMServiceTemplates(svc.Namespace).List(labels.Everything())
	cl, _ := ctl.clusterTemplates.List(labels.Everything())
	// Sized once: a Template holds a spec and a status by value, and every resync of every service selects
	// over the whole catalog; growing the slice copied each one again, with the write barriers of its pointers.
	out = make([]Template, 0, len(ns)+len(cl))
	for _, t := range ns {
		out = append(out, fromNamespaced(t))
	}
	for _, t := range cl {
		out = append(out, fromCluster(t))
	}
	return out
}

func fromNamespaced(t *aimv1.AIMServiceTemplate) Template {
	return currentTemplate(Template{Name: t.Name, Namespace: t.Namespace, UID: t.UID, Labels: t.Labels, Spec: t.Spec.AIMServiceTemplateSpecCommon,
		Caching: t.Spec.Caching, Status: t.Status, Generation: t.Generation, Version: reconcile.Version(t)})
}

func fromCluster(t *aimv1.AIMClusterServiceTemplate) Template {
	return currentTemplate(Template{Name: t.Name, UID: t.UID, Labels: t.Labels, Spec: t.Spec.AIMServiceTemplateSpecCommon, Status: t.Status,
		Generation: t.Generation, Version: reconcile.Version(t)})
}

// applyDerived applies the service's derived template over live.
func (ctl *Controller) applyDerived(ctx context.Context, t, live *aimv1.AIMServiceTemplate) error {
	var cur runtime.Object
	if live != nil {
		cur = live
	}
	_, err := ctl.steady.ApplyChanged(ctx, t, cur, reconcile.Sender(ctl.c.AIM.AimV1alpha1().AIMServiceTemplates(t.Namespace).Apply, FieldManager))
	return err
}

// podHandler maps a predictor pod to its InferenceService's service.
func (ctl *Controller) podHandler() cache.ResourceEventHandler {
	return manager.OnEvery(func(p *corev1.Pod) { ctl.enqueueISVCOwner(p.Namespace, p.Labels[LabelInferenceService]) })
}

// hpaHandler maps KEDA's HorizontalPodAutoscaler of a predictor to the service.
func (ctl *Controller) hpaHandler() cache.ResourceEventHandler {
	return manager.OnEvery(func(h *autoscalingv2.HorizontalPodAutoscaler) {
		if isvc, ok := kserve.OfHPA(h.Name); ok {
			ctl.enqueueISVCOwner(h.Namespace, isvc)
		}
	})
}

// eventHandler maps a cached event (a Warning, a pod's Pulling) about a predictor pod or an InferenceService to the
// service.
func (ctl *Controller) eventHandler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		e, ok := obj.(*corev1.Event)
		if !ok {
			return
		}
		switch e.InvolvedObject.Kind {
		case "InferenceService":
			ctl.enqueueISVCOwner(e.InvolvedObject.Namespace, e.InvolvedObject.Name)
		case "Pod":
			if p, err := ctl.pods.Pods(e.InvolvedObject.Namespace).Get(e.InvolvedObject.Name); err == nil {
				ctl.enqueueISVCOwner(p.Namespace, p.Labels[LabelInferenceService])
			}
		case "ReplicaSet": // a predictor's pods refused (FailedCreate): PredictorPods quotes why
			if isvc, ok := kserve.OfPredictorReplicaSet(e.InvolvedObject.Name); ok {
				ctl.enqueueISVCOwner(e.InvolvedObject.Namespace, isvc)
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }}
}

func (ctl *Controller) enqueueISVCOwner(namespace, name string) {
	isvcs := ctl.isvcs.Lister()
	if isvcs == nil || name == "" {
		return
	}
	if obj, err := isvcs.ByNamespace(namespace).Get(name); err == nil {
		ctl.owners.Enqueue(obj)
	}
}
