package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	autoscalinglisters "k8s.io/client-go/listers/autoscaling/v2"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/specvalid"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// FieldManager owns what the service controller applies.
const FieldManager = "aim-service-controller"

// eventIndex indexes Warning events by the namespace/name of the object they are about.
const eventIndex = "involvedObject"

// Controller reconciles AIMServices.
type Controller struct {
	c manager.Clients
	q *manager.Controller
	// owners routes events of children to their service.
	owners manager.Owners

	services         aimlisters.AIMServiceLister
	models           aimlisters.AIMModelLister
	clusterModels    aimlisters.AIMClusterModelLister
	templates        aimlisters.AIMServiceTemplateLister
	clusterTemplates aimlisters.AIMClusterServiceTemplateLister
	configs          aimlisters.AIMRuntimeConfigLister
	clusterConfigs   aimlisters.AIMClusterRuntimeConfigLister
	caches           aimlisters.AIMTemplateCacheLister
	artifacts        aimlisters.AIMArtifactLister
	gpus             *gpu.Tracker
	pods             corelisters.PodLister
	hpas             autoscalinglisters.HorizontalPodAutoscalerLister
	events           cache.Indexer
	// isvcs and routes are nil when the cluster does not serve the API.
	isvcs, routes cache.GenericLister
}

// PredictorPods are the pods of InferenceServices, as aim-engine watches them; the controller reads those of
// its own InferenceServices.
var PredictorPods = manager.Selection{Labels: LabelInferenceService}

// Autoscalers are the HorizontalPodAutoscalers of AIM services, as aim-engine watches them: KServe labels the
// ScaledObject of a predictor as its InferenceService, and KEDA copies those labels to the HPA it makes.
var Autoscalers = manager.Selection{Labels: aimv1.LabelService}

// Register adds the service controller to the manager.
func Register(m *manager.Manager, gpus *gpu.Tracker) error {
	v := m.AIMInformers.Aim().V1alpha1()
	pods, hpas := m.Selected(PredictorPods), m.Selected(Autoscalers)
	ctl := &Controller{c: m.Clients,
		services: v.AIMServices().Lister(), models: v.AIMModels().Lister(), clusterModels: v.AIMClusterModels().Lister(),
		templates: v.AIMServiceTemplates().Lister(), clusterTemplates: v.AIMClusterServiceTemplates().Lister(),
		configs: v.AIMRuntimeConfigs().Lister(), clusterConfigs: v.AIMClusterRuntimeConfigs().Lister(),
		caches: v.AIMTemplateCaches().Lister(), artifacts: v.AIMArtifacts().Lister(), gpus: gpus, pods: pods.Core().V1().Pods().Lister(),
		hpas: hpas.Autoscaling().V2().HorizontalPodAutoscalers().Lister(),
	}
	ctl.q = manager.NewController("service", manager.ReconcilerFunc(ctl.reconcile), v.AIMServices().Informer().GetStore())
	ctl.owners = manager.Owners{"AIMService": {Controller: ctl.q, Namespaced: true}}

	events := m.WarningEvents.Core().V1().Events().Informer()
	if err := events.AddIndexers(cache.Indexers{eventIndex: func(obj any) ([]string, error) {
		e, ok := obj.(*corev1.Event)
		if !ok {
			return nil, nil
		}
		return []string{e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name}, nil
	}}); err != nil {
		return fmt.Errorf("indexing events: %w", err)
	}
	ctl.events = events.GetIndexer()

	if err := v.AIMServices().Informer().AddIndexers(cache.Indexers{dependencyIndex: dependencies}); err != nil {
		return fmt.Errorf("indexing services: %w", err)
	}
	dependents := ctl.dependentsHandler(v.AIMServices().Informer().GetIndexer(), ctl.q.Add)

	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{v.AIMServices().Informer(), ctl.q.Handler()},
		{v.AIMModels().Informer(), dependents},
		{v.AIMServiceTemplates().Informer(), dependents},
		{v.AIMRuntimeConfigs().Informer(), dependents},
		{v.AIMTemplateCaches().Informer(), dependents},
		{v.AIMClusterModels().Informer(), dependents},
		{v.AIMClusterServiceTemplates().Informer(), dependents},
		{v.AIMClusterRuntimeConfigs().Informer(), dependents},
		// Download progress shows in CacheReady's message.
		{v.AIMArtifacts().Informer(), ctl.namespaceHandler()},
		{pods.Core().V1().Pods().Informer(), ctl.podHandler()},
		{events, ctl.eventHandler()},
		{hpas.Autoscaling().V2().HorizontalPodAutoscalers().Informer(), ctl.hpaHandler()},
	}
	for _, api := range []struct {
		gvr    schema.GroupVersionResource
		lister *cache.GenericLister
		newObj func() runtime.Object
	}{
		{kserve.Resource, &ctl.isvcs, func() runtime.Object { return &kservev1beta1.InferenceService{} }},
		{gateway.Resource, &ctl.routes, func() runtime.Object { return &gatewayv1.HTTPRoute{} }},
	} {
		served, err := m.Served(api.gvr)
		if err != nil {
			return err
		}
		if !served {
			klog.InfoS("The cluster does not serve this API; services report it until it is installed and aim-apiserver restarts", "resource", api.gvr)
			continue
		}
		m.CacheTyped(api.gvr, api.newObj)
		inf := m.DynamicInformers.ForResource(api.gvr)
		*api.lister = inf.Lister()
		handlers = append(handlers, struct {
			inf cache.SharedIndexInformer
			h   cache.ResourceEventHandler
		}{inf.Informer(), ctl.owners.Handler()})
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(h.h); err != nil {
			return err
		}
	}
	// Template selection ranks the GPU models present: a model appearing or going re-checks every service.
	gpus.OnChange(func(before, after gpu.Inventory) {
		if !slices.Equal(before.Models(), after.Models()) {
			ctl.enqueue("")
		}
	})
	m.Add(ctl.q)
	return nil
}

func (ctl *Controller) reconcile(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	namespace, name := key.Namespace, key.Name
	svc, ok, err := manager.LookupFinalized(ctx, func() (*aimv1.AIMService, error) { return ctl.services.AIMServices(namespace).Get(name) },
		FinalizerCacheCleanup, ctl.patchService(namespace), func(svc *aimv1.AIMService) error { return ctl.cleanupCaches(ctx, svc) })
	if !ok {
		return 0, err
	}
	status := *svc.Status.DeepCopy()
	status.ObservedGeneration = svc.Generation
	var comps []state.Component
	var applyErrs []error
	if specErr := specvalid.Service(svc); specErr != nil {
		// A spec the API would reject, stored by other means (migrate --allow-invalid): the children stay as
		// they are until it is fixed.
		comps = []state.Component{{Name: ComponentISVC, Dependency: state.DependencyDownstream, Errors: []error{specErr}}}
	} else {
		comps, applyErrs = ctl.observe(ctx, svc, &status)
	}

	out := state.Derive(state.Input{Components: comps, Previous: svc.Status.Conditions, Status: svc.Status.Status,
		Generation: svc.Generation, Now: time.Now(), ServiceStatuses: true})
	status.Conditions, status.Status = out.Conditions, out.Status
	var applyErr error
	if len(applyErrs) > 0 {
		applyErr = applyErrs[0]
	}
	return manager.Finish(ctl.c.Recorder, manager.End{Object: svc, What: "AIMService " + key.String(), Changed: !apiequality.Semantic.DeepEqual(status, svc.Status), Write: func() error {
		updated := svc.DeepCopy()
		updated.Status = status
		_, err := ctl.c.AIM.AimV1alpha1().AIMServices(namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: FieldManager})
		return err
	}, Out: out, ApplyErr: applyErr})
}

// observe resolves the service's dependencies, applies its children and reports its components.
func (ctl *Controller) observe(ctx context.Context, svc *aimv1.AIMService, status *aimv1.AIMServiceStatus) ([]state.Component, []error) {
	namespace := svc.Namespace
	var comps []state.Component
	var applyErrs []error
	rc, rcErr := runtimeconfig.Lookup(svc.Spec.RuntimeConfigName, namespace, ctl.configs, ctl.clusterConfigs)
	rcComp := state.Component{Name: ComponentRuntimeConfig, Dependency: state.DependencyUpstream}
	if rcErr != nil {
		rcComp.Errors, rcComp.Reason = []error{state.UpstreamError(rcErr)}, "ConfigNotFound"
	} else {
		rcComp.Reason = "RuntimeConfigResolved"
	}
	comps = append(comps, rcComp)
	status.ResolvedRuntimeConfig = rc.Ref

	// The model.
	mres := ResolveModel(svc, ctl.findModels(svc))
	if mres.Create != nil {
		if err := ctl.createModel(ctx, mres.Create); err != nil {
			applyErrs = append(applyErrs, err)
		}
	}
	comps = append(comps, mres.Component)
	status.ResolvedModel = nil
	if mres.Model != nil {
		status.ResolvedModel = mres.Model.Ref()
	}

	// The template: chosen by name or selection, then derived for overrides (F10).
	tres := ResolveTemplate(svc, mres.Model, ctl.findTemplates(svc), ctl.gpus.Inventory().Models())
	status.TemplateMatching = nil
	if len(tres.Candidates) > 0 {
		status.TemplateMatching = &aimv1.AIMTemplateMatching{Candidates: tres.Candidates}
	}
	run, tcomp := tres.Base, tres.Component
	if run != nil && svc.Spec.Overrides != nil && !run.Derived() {
		run = nil
		if tres.Base.Status.Status != aimv1.AIMStatusReady {
			tcomp = TemplateComponent(tres.Base, tcomp)
		} else if mres.Model != nil {
			derived := DerivedTemplate(svc, *tres.Base, mres.Model.Name, rc)
			if err := ctl.applyDerived(ctx, svc, derived); err != nil {
				applyErrs = append(applyErrs, err)
			} else if err := ctl.deleteStaleDerived(ctx, svc, derived.Name); err != nil {
				applyErrs = append(applyErrs, err)
			}
			if t, err := ctl.templates.AIMServiceTemplates(namespace).Get(derived.Name); err == nil {
				d := fromNamespaced(t)
				run = &d
			} else {
				tcomp.State, tcomp.Reason, tcomp.Message = aimv1.AIMStatusPending, "CreatingDerivedTemplate", "creating AIMServiceTemplate "+derived.Name+" for spec.overrides"
			}
		}
	}
	if run != nil {
		tcomp = TemplateComponent(run, tcomp)
	}
	comps = append(comps, tcomp)
	status.ResolvedTemplate = nil
	if run != nil && run.Status.Status == aimv1.AIMStatusReady {
		status.ResolvedTemplate = run.Ref()
	}

	// The InferenceService and what it needs.
	wname := WorkloadName(svc)
	live, isvcErr := ctl.getISVC(namespace, wname)
	// Without its runtime config the desired children are unknown (its env, scheduling and routing are part of
	// them): the live ones are kept as they are, not rewritten without it.
	mayApply := rcErr == nil
	if isvcErr != nil {
		comps = append(comps, state.Component{Name: ComponentISVC, Dependency: state.DependencyDownstream, Errors: []error{isvcErr}})
	} else {
		comps = append(comps, ctl.workload(ctx, svc, mres.Model, run, rc, live, mayApply, status, &applyErrs)...)
	}

	// The route, independent of the InferenceService: a routing mistake fails the route only.
	if mayApply {
		comps = append(comps, ctl.route(ctx, svc, rc, status, &applyErrs)...)
	}

	if status.Endpoint != nil && status.Routing != nil {
		status.Endpoint.Path = status.Routing.Path
	}
	return comps, applyErrs
}

// cleanupCaches removes the shared caches a deleted service leaves unneeded.
func (ctl *Controller) cleanupCaches(ctx context.Context, svc *aimv1.AIMService) error {
	caches, _ := ctl.caches.AIMTemplateCaches(svc.Namespace).List(labels.Everything())
	services, _ := ctl.services.AIMServices(svc.Namespace).List(labels.Everything())
	for _, c := range CachesToClean(svc, caches, services) {
		err := ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(c.Namespace).Delete(ctx, c.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &c.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("deleting unneeded template cache %s/%s: %w", c.Namespace, c.Name, err)
		}
		ctl.c.Recorder.Eventf(svc, corev1.EventTypeNormal, "TemplateCacheDeleted", "Deleted AIMTemplateCache %s, which no other service needs and which was not ready", c.Name)
	}
	return nil
}

func (ctl *Controller) patchService(namespace string) func(context.Context, string, []byte) error {
	return func(ctx context.Context, name string, data []byte) error {
		_, err := ctl.c.AIM.AimV1alpha1().AIMServices(namespace).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: FieldManager})
		return err
	}
}

// workload plans and applies the cache and the InferenceService, and reports them and the pods.
func (ctl *Controller) workload(ctx context.Context, svc *aimv1.AIMService, model *Model, run *Template, rc runtimeconfig.Resolved,
	live *kservev1beta1.InferenceService, mayApply bool, status *aimv1.AIMServiceStatus, applyErrs *[]error) []state.Component {
	var comps []state.Component
	var observed kserve.Live
	if live != nil {
		observed = kserve.Observe(live)
	}
	ready := mayApply && run != nil && model != nil && run.Status.Status == aimv1.AIMStatusReady
	var mounts []kserve.CacheMount
	cacheReady := true
	status.Cache = nil
	if ready {
		caches, _ := ctl.caches.AIMTemplateCaches(svc.Namespace).List(labels.Everything())
		artifacts, _ := ctl.artifacts.AIMArtifacts(svc.Namespace).List(labels.Everything())
		cp := PlanCache(svc, *run, caches, artifacts, rc)
		if cp.Create != nil {
			if err := ctl.createCache(ctx, cp.Create); err != nil {
				*applyErrs = append(*applyErrs, err)
			}
		}
		if cp.Component != nil {
			comps = append(comps, *cp.Component)
			cacheReady = cp.Component.State == ""
		}
		if cp.Use != nil && cacheReady {
			status.Cache = &aimv1.AIMServiceCacheStatus{TemplateCacheRef: &aimv1.AIMResolvedReference{
				Name: cp.Use.Name, Namespace: cp.Use.Namespace, UID: cp.Use.UID, Kind: "AIMTemplateCache", Scope: aimv1.AIMResolutionScopeNamespace}}
		}
		mounts = cp.Mounts
		if !cacheReady && live != nil {
			// A cache that is briefly not Ready must not unmount the volumes the pods run from (and restart
			// them twice): the live InferenceService keeps its mounts until the cache is Ready again.
			mounts = observed.CacheMounts
		}
	}

	// Create the InferenceService once everything it mounts is ready; once it exists, keep it up to date so
	// that changes of mutable fields (replicas, env, resources, ...) reach it.
	name := WorkloadName(svc)
	exists := live != nil
	if ready && (cacheReady || exists) {
		isvc := kserve.Build(InferenceService(svc, *model, *run, rc, mounts))
		if err := ctl.apply(ctx, kserve.Resource, isvc, &isvc.ObjectMeta, live); err != nil {
			*applyErrs = append(*applyErrs, err)
			comps = append(comps, state.Component{Name: ComponentISVC, Dependency: state.DependencyDownstream, Errors: []error{err}})
			return comps
		}
		exists = true // created now, if not before; its status is not known yet
	}
	if !exists {
		if ready {
			comps = append(comps, ISVCComponent(ISVCState{}, nil))
		}
		status.Runtime, status.Endpoint = Runtime(svc, nil, nil), nil
		return comps
	}
	// The InferenceService (and Dedicated cache) of the name the service wants exists: those it made under
	// other names, as earlier releases named them, would serve the model twice.
	if err := ctl.deleteStaleWorkload(ctx, svc, name, status.Cache); err != nil {
		*applyErrs = append(*applyErrs, err)
	}
	st := ISVCState{Exists: true, Ready: observed.Ready, Reason: observed.Reason, Message: observed.Message}
	pods, _ := ctl.pods.Pods(svc.Namespace).List(labels.SelectorFromSet(labels.Set{LabelInferenceService: name}))
	var podEvents []corev1.Event
	for _, p := range pods {
		podEvents = append(podEvents, ctl.warnings(p.Namespace, p.Name, "Pod")...)
	}
	comps = append(comps, ISVCComponent(st, ctl.warnings(svc.Namespace, name, "InferenceService")), PodsComponent(pods, podEvents, st.Ready))
	hpa, _ := ctl.hpas.HorizontalPodAutoscalers(svc.Namespace).Get(HPAName(name))
	status.Runtime = Runtime(svc, pods, hpa)
	status.Endpoint = Endpoint(svc, "")
	return comps
}

// route plans, applies or removes the service's HTTPRoute and reports it.
func (ctl *Controller) route(ctx context.Context, svc *aimv1.AIMService, rc runtimeconfig.Resolved, status *aimv1.AIMServiceStatus, applyErrs *[]error) []state.Component {
	rp := PlanRoute(svc, rc)
	name := RouteName(svc)
	status.Routing = nil
	if ctl.routes != nil {
		routes, _ := ctl.routes.ByNamespace(svc.Namespace).List(labels.Everything())
		if err := manager.DeleteStale(ctx, ctl.c.Recorder, svc, FieldManager, "HTTPRoute", metaObjects(routes), []string{name}, ctl.dynamicDelete(gateway.Resource, svc.Namespace)); err != nil {
			*applyErrs = append(*applyErrs, err)
		}
	}
	if rp.Component == nil {
		// Routing is off: remove a route the service made earlier.
		if ctl.routes != nil {
			if obj, err := ctl.routes.ByNamespace(svc.Namespace).Get(name); err == nil && manager.OwnedBy(obj.(metav1.Object), svc.UID) {
				err := ctl.c.Dynamic.Resource(gateway.Resource).Namespace(svc.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
				if err != nil && !apierrors.IsNotFound(err) {
					*applyErrs = append(*applyErrs, fmt.Errorf("deleting HTTPRoute %s/%s: %w", svc.Namespace, name, err))
				}
			}
		}
		return nil
	}
	comp := *rp.Component
	if rp.Route == nil {
		return []state.Component{comp}
	}
	if ctl.routes == nil {
		comp.Errors = []error{state.NewError(state.Infrastructure, "GatewayAPINotInstalled",
			"the cluster does not serve %s; install the Gateway API CRDs and restart aim-apiserver", gateway.Resource.GroupResource())}
		comp.State = ""
		return []state.Component{comp}
	}
	var live *gatewayv1.HTTPRoute
	if obj, err := ctl.routes.ByNamespace(svc.Namespace).Get(name); err == nil {
		if live, err = manager.AsTyped[gatewayv1.HTTPRoute](obj); err != nil {
			*applyErrs = append(*applyErrs, err)
			comp.Errors, comp.State = []error{err}, ""
			return []state.Component{comp}
		}
	}
	route := gateway.Build(*rp.Route)
	if err := ctl.apply(ctx, gateway.Resource, route, &route.ObjectMeta, live); err != nil {
		*applyErrs = append(*applyErrs, err)
		comp.Errors, comp.State = []error{err}, ""
		return []state.Component{comp}
	}
	status.Routing = &aimv1.AIMServiceRoutingStatus{Path: rp.Path}
	if live != nil {
		comp = RouteComponent(comp, gateway.Accepted(live.Status))
	}
	return []state.Component{comp}
}

// deleteStaleWorkload deletes the service's InferenceServices other than name and, once the service reads a
// cache, its Dedicated caches other than that one.
func (ctl *Controller) deleteStaleWorkload(ctx context.Context, svc *aimv1.AIMService, name string, cache *aimv1.AIMServiceCacheStatus) error {
	isvcs, _ := ctl.isvcs.ByNamespace(svc.Namespace).List(labels.Everything())
	if err := manager.DeleteStale(ctx, ctl.c.Recorder, svc, FieldManager, "InferenceService", metaObjects(isvcs), []string{name}, ctl.dynamicDelete(kserve.Resource, svc.Namespace)); err != nil {
		return err
	}
	if cache == nil || cache.TemplateCacheRef == nil {
		return nil
	}
	caches, _ := ctl.caches.AIMTemplateCaches(svc.Namespace).List(labels.Everything())
	return manager.DeleteStale(ctx, ctl.c.Recorder, svc, FieldManager, "AIMTemplateCache", caches, []string{cache.TemplateCacheRef.Name},
		ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(svc.Namespace).Delete)
}

// deleteStaleDerived deletes the service's derived templates other than name.
func (ctl *Controller) deleteStaleDerived(ctx context.Context, svc *aimv1.AIMService, name string) error {
	templates, _ := ctl.templates.AIMServiceTemplates(svc.Namespace).List(labels.SelectorFromSet(labels.Set{aimv1.LabelOrigin: aimv1.OriginDerived}))
	return manager.DeleteStale(ctx, ctl.c.Recorder, svc, FieldManager, "AIMServiceTemplate", templates, []string{name},
		ctl.c.AIM.AimV1alpha1().AIMServiceTemplates(svc.Namespace).Delete)
}

// dynamicDelete deletes objects of a resource the dynamic client serves.
func (ctl *Controller) dynamicDelete(gvr schema.GroupVersionResource, namespace string) func(context.Context, string, metav1.DeleteOptions) error {
	return func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
		return ctl.c.Dynamic.Resource(gvr).Namespace(namespace).Delete(ctx, name, opts)
	}
}

// metaObjects are the objects a dynamic lister lists, as their metadata.
func metaObjects(list []runtime.Object) []metav1.Object {
	out := make([]metav1.Object, 0, len(list))
	for _, o := range list {
		if m, ok := o.(metav1.Object); ok {
			out = append(out, m)
		}
	}
	return out
}

// apply server-side applies a child by manager.PrepareApply's rule: when the desired object changed, or the
// live one lost a field of it to a hand edit, which the apply reverts.
func (ctl *Controller) apply(ctx context.Context, gvr schema.GroupVersionResource, obj runtime.Object, meta *metav1.ObjectMeta, live runtime.Object) error {
	data, drift, err := manager.PrepareApply(obj, live)
	if err != nil || data == nil {
		return err
	}
	if drift != "" {
		klog.FromContext(ctx).Info("Reverting a change made outside the controller", "resource", gvr.Resource, "namespace", meta.Namespace, "name", meta.Name, "field", drift)
	}
	_, err = ctl.c.Dynamic.Resource(gvr).Namespace(meta.Namespace).Patch(ctx, meta.Name, types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: FieldManager, Force: ptr.To(true)})
	if err != nil {
		return fmt.Errorf("applying %s %s/%s: %w", gvr.Resource, meta.Namespace, meta.Name, err)
	}
	return nil
}

func (ctl *Controller) getISVC(namespace, name string) (*kservev1beta1.InferenceService, error) {
	if ctl.isvcs == nil {
		return nil, state.NewError(state.Infrastructure, "KServeNotInstalled",
			"the cluster does not serve %s; install KServe and restart aim-apiserver", kserve.Resource.GroupResource())
	}
	obj, err := ctl.isvcs.ByNamespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return manager.AsTyped[kservev1beta1.InferenceService](obj)
}

// findModels lists the models spec.model may mean.
func (ctl *Controller) findModels(svc *aimv1.AIMService) []Model {
	var out []Model
	m := svc.Spec.Model
	switch {
	case m.Name != nil:
		if x, err := ctl.models.AIMModels(svc.Namespace).Get(*m.Name); err == nil {
			out = append(out, fromNamespacedModel(x))
		} else if x, err := ctl.clusterModels.Get(*m.Name); err == nil {
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
	return currentModel(Model{Name: m.Name, Namespace: m.Namespace, UID: m.UID, Labels: m.Labels, Status: m.Status.Status, Spec: m.Spec},
		m.Generation, m.Status.ObservedGeneration)
}

func fromClusterModel(m *aimv1.AIMClusterModel) Model {
	return currentModel(Model{Name: m.Name, UID: m.UID, Labels: m.Labels, Status: m.Status.Status, Spec: m.Spec},
		m.Generation, m.Status.ObservedGeneration)
}

// currentModel reads a stale status (StaleStatus) as Pending.
func currentModel(m Model, generation, observed int64) Model {
	if StaleStatus(generation, observed) {
		m.Stale, m.Status = true, aimv1.AIMStatusPending
	}
	return m
}

// currentTemplate reads a stale status (StaleStatus) as Pending: its hardware and profile may be of an earlier
// spec.
func currentTemplate(t Template) Template {
	if StaleStatus(t.Generation, t.Status.ObservedGeneration) {
		t.Stale = true
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
	for _, t := range ns {
		out = append(out, fromNamespaced(t))
	}
	cl, _ := ctl.clusterTemplates.List(labels.Everything())
	for _, t := range cl {
		out = append(out, fromCluster(t))
	}
	return out
}

func fromNamespaced(t *aimv1.AIMServiceTemplate) Template {
	return currentTemplate(Template{Name: t.Name, Namespace: t.Namespace, UID: t.UID, Labels: t.Labels, Spec: t.Spec.AIMServiceTemplateSpecCommon,
		Caching: t.Spec.Caching, Status: t.Status, Generation: t.Generation})
}

func fromCluster(t *aimv1.AIMClusterServiceTemplate) Template {
	return currentTemplate(Template{Name: t.Name, UID: t.UID, Labels: t.Labels, Spec: t.Spec.AIMServiceTemplateSpecCommon, Status: t.Status,
		Generation: t.Generation})
}

// warnings are the Warning events about one object of a kind.
func (ctl *Controller) warnings(namespace, name, kind string) []corev1.Event {
	objs, _ := ctl.events.ByIndex(eventIndex, namespace+"/"+name)
	var out []corev1.Event
	for _, o := range objs {
		if e, ok := o.(*corev1.Event); ok && e.InvolvedObject.Kind == kind {
			out = append(out, *e)
		}
	}
	return out
}

// createModel creates an auto-generated model; models are shared between services, so one that exists stays.
func (ctl *Controller) createModel(ctx context.Context, m *aimv1.AIMModel) error {
	_, err := ctl.c.AIM.AimV1alpha1().AIMModels(m.Namespace).Create(ctx, m, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating AIMModel %s/%s: %w", m.Namespace, m.Name, err)
	}
	return nil
}

// createCache creates a template cache; a shared one that exists is left as the first service made it.
func (ctl *Controller) createCache(ctx context.Context, c *aimv1.AIMTemplateCache) error {
	_, err := ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(c.Namespace).Create(ctx, c, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating AIMTemplateCache %s/%s: %w", c.Namespace, c.Name, err)
	}
	return nil
}

// applyDerived applies the service's derived template by manager.PrepareApply's rule.
func (ctl *Controller) applyDerived(ctx context.Context, svc *aimv1.AIMService, t *aimv1.AIMServiceTemplate) error {
	var live runtime.Object
	if cur, err := ctl.templates.AIMServiceTemplates(t.Namespace).Get(t.Name); err == nil {
		if !manager.OwnedBy(cur, svc.UID) {
			return state.NewError(state.InvalidSpec, "DerivedTemplateConflict", "AIMServiceTemplate %s/%s exists and belongs to something else", t.Namespace, t.Name)
		}
		live = cur
	}
	data, _, err := manager.PrepareApply(t, live)
	if err != nil || data == nil {
		return err
	}
	if _, err = manager.Send(ctx, data, ctl.c.AIM.AimV1alpha1().AIMServiceTemplates(t.Namespace).Apply, FieldManager); err != nil {
		return fmt.Errorf("applying derived template %s/%s: %w", t.Namespace, t.Name, err)
	}
	return nil
}

// namespaceHandler re-checks the services of the object's namespace.
func (ctl *Controller) namespaceHandler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if m, ok := obj.(metav1.Object); ok {
			ctl.enqueue(m.GetNamespace())
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue}
}

// enqueue adds the services of a namespace, or of all namespaces for "".
func (ctl *Controller) enqueue(namespace string) {
	var list []*aimv1.AIMService
	if namespace == "" {
		list, _ = ctl.services.List(labels.Everything())
	} else {
		list, _ = ctl.services.AIMServices(namespace).List(labels.Everything())
	}
	for _, s := range list {
		ctl.q.Add(cache.MetaObjectToName(s))
	}
}

// podHandler maps a predictor pod to its InferenceService's service.
func (ctl *Controller) podHandler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if p, ok := obj.(*corev1.Pod); ok {
			ctl.enqueueISVCOwner(p.Namespace, p.Labels[LabelInferenceService])
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue}
}

// hpaHandler maps KEDA's HorizontalPodAutoscaler of a predictor to the service.
func (ctl *Controller) hpaHandler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if h, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler); ok && strings.HasPrefix(h.Name, "keda-hpa-") && strings.HasSuffix(h.Name, "-predictor") {
			ctl.enqueueISVCOwner(h.Namespace, strings.TrimSuffix(strings.TrimPrefix(h.Name, "keda-hpa-"), "-predictor"))
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue}
}

// eventHandler maps a Warning event about a predictor pod or an InferenceService to the service.
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
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }}
}

func (ctl *Controller) enqueueISVCOwner(namespace, name string) {
	if ctl.isvcs == nil || name == "" {
		return
	}
	if obj, err := ctl.isvcs.ByNamespace(namespace).Get(name); err == nil {
		ctl.owners.Enqueue(obj)
	}
}
