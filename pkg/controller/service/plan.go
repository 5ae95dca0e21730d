package service

import (
	"slices"
	"strings"

	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Plan is what one reconcile does for a service: the children to create, apply and delete, and the status and
// components to report when every write succeeds (the controller adjusts them where one fails).
type Plan struct {
	Status aimv1.AIMServiceStatus
	// Components are those of the runtime config, the model, the template and the cache; Workload those of
	// the InferenceService and its pods; HPA that of KEDA's autoscaler (nil without autoscaling); Route that
	// of the HTTPRoute (nil when routing is off).
	Components []state.Component
	Workload   []state.Component
	HPA        *state.Component
	Route      *state.Component

	// CreateModel is the model spec.model.image or .custom asks for, when none exists.
	CreateModel *aimv1.AIMModel
	// Derived is the template for spec.overrides (F10), applied over DerivedLive unless DerivedErr (its name is
	// another object's).
	Derived     *aimv1.AIMServiceTemplate
	DerivedLive *aimv1.AIMServiceTemplate
	DerivedErr  error
	CreateCache *aimv1.AIMTemplateCache
	// CacheInUse is the ready cache the InferenceService mounts, if any: the service's other Dedicated caches
	// are then stale.
	CacheInUse string
	// ISVC is the InferenceService to apply. WorkloadExists is set when it exists or is to be applied: the
	// service's InferenceServices of other names, and once it reads a cache its other Dedicated caches, are
	// then stale.
	ISVC           *kservev1beta1.InferenceService
	WorkloadExists bool
	// ISVCInputs identifies what ISVC was built from (workload.inputs), for Steady.ApplyChangedFrom.
	ISVCInputs string
	// StaleDerived are the service's derived templates but the one the InferenceService runs on (of an earlier
	// base or earlier overrides, or overrides removed), StaleCaches the Shared caches the service made for them or
	// for templates that are gone: deleted once the InferenceService is planned on its template with that
	// template's cache ready, as the pods may mount theirs until then.
	StaleDerived []*aimv1.AIMServiceTemplate
	StaleCaches  []*aimv1.AIMTemplateCache

	// SweepRoutes deletes the service's routes of other names than RouteName; DeleteRoute the route of that
	// name (routing is off); HTTPRoute is the route to apply, RouteErr the live one's, which its type cannot
	// hold.
	SweepRoutes bool
	DeleteRoute bool
	HTTPRoute   *gatewayv1.HTTPRoute
	RouteErr    error
	// routeBase is the route's component before the live route's acceptance is read, for a failed apply.
	routeBase state.Component
}

// PlanService plans a service's reconcile from its observation alone: resolve the runtime config, the model
// and the template (derived for overrides), then the cache, the InferenceService and the route.
func PlanService(o Observation) Plan {
	svc := o.Service
	p := Plan{Status: *svc.Status.DeepCopy()}
	p.Status.ObservedGeneration = svc.Generation
	if o.ISVC == nil {
		o.HPA = nil // read for a live InferenceService only, as aim-engine reads it: a deleted one's lingers until collected
	}
	if o.SpecErr != nil {
		// A spec the API would reject: the children stay as they are until it is fixed.
		p.Components = []state.Component{{Name: ComponentISVC, Dependency: state.DependencyDownstream, Errors: []error{o.SpecErr}}}
		return p
	}
	rc, recorded := runtimeconfig.Report(o.RuntimeConfig, o.RuntimeConfigErr, p.Status.ResolvedRuntimeConfig)
	p.Components, p.Status.ResolvedRuntimeConfig = append(p.Components, rc), recorded

	model := p.planModel(o)
	run := p.planTemplate(o, model)

	// Without its runtime config the desired children are unknown (its env, scheduling and routing are part of
	// them): the live ones are kept as they are, not rewritten without it. Nor are they while the model or the
	// template is missing or refused, as aim-engine applies nothing then.
	mayApply := o.RuntimeConfigErr == nil && !state.BlocksApply(p.Components)
	if !mayApply {
		p.holdDerived(o) // applied with the rest, as aim-engine applies it
	}
	var observed kserve.Live
	if o.ISVC != nil {
		observed = kserve.Observe(o.ISVC)
	}
	if o.ISVCErr != nil {
		p.Workload = []state.Component{{Name: ComponentISVC, Dependency: state.DependencyDownstream, Errors: []error{o.ISVCErr}}}
	} else {
		p.planWorkload(o, observed, model, run, mayApply)
	}
	p.HPA = HPAComponent(svc, o.HPA, o.ISVC != nil && observed.Ready)
	// The route, independent of the InferenceService: a routing mistake fails the route only.
	if mayApply {
		p.planRoute(o)
	}
	return p
}

// planModel resolves spec.model, records it in status.resolvedModel and plans the model to create for
// model.image or model.custom; it returns the model, if any.
func (p *Plan) planModel(o Observation) *Model {
	svc := o.Service
	mres := ResolveModel(svc, o.Models)
	p.CreateModel = mres.Create
	switch {
	case p.CreateModel == nil:
	case o.RuntimeConfigErr != nil:
		// A model is created with the service's other children, as aim-engine applies it: not while the runtime
		// config is missing, or it would lack its propagated labels for good (a model is created once). The
		// template is not waited for: a spec.template.name of a template the new model makes comes with it.
		mres.Component.Message = awaitsRuntimeConfig("AIMModel " + p.CreateModel.Name)
		p.CreateModel = nil
	default:
		// As every child: the service's propagated labels and its framework label, as aim-engine labels it.
		p.CreateModel.Labels = childlabels.For(childlabels.Service, svc, o.RuntimeConfig, p.CreateModel.Labels)
	}
	p.Components = append(p.Components, mres.Component)
	p.Status.ResolvedModel = nil
	if mres.Model != nil {
		p.Status.ResolvedModel = mres.Model.Ref()
	}
	return mres.Model
}

// planTemplate resolves the template, by name or selection, and the derived one for overrides (F10); it
// returns the template the service runs on, if any.
func (p *Plan) planTemplate(o Observation, model *Model) *Template {
	svc := o.Service
	tres := ResolveTemplate(svc, model, o.Templates, o.GPUModels)
	p.Status.TemplateMatching = nil
	if len(tres.Candidates) > 0 {
		p.Status.TemplateMatching = &aimv1.AIMTemplateMatching{Candidates: tres.Candidates}
	}
	run, comp := tres.Base, tres.Component
	if run != nil && svc.Spec.Overrides != nil && !run.Derived() {
		run = nil
		if tres.Base.Status.Status != aimv1.AIMStatusReady || model == nil {
			// Nothing to derive yet: the named base is what TemplateReady reports, as aim-engine reports it
			// whatever the model's state.
			comp = TemplateComponent(tres.Base, comp)
		} else {
			p.Derived = DerivedTemplate(svc, *tres.Base, model.Name, o.RuntimeConfig)
			live := o.NamespacedTemplate(p.Derived.Name)
			switch {
			case live == nil:
				comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonCreatingDerivedTemplate, "creating AIMServiceTemplate "+p.Derived.Name+" for spec.overrides"
			case !reconcile.OwnedBy(live, svc.UID):
				// The service neither applies over it nor runs on it: the name is someone else's (the user
				// renames or deletes that template). Said in TemplateReady; no retry can fix it.
				p.DerivedErr = state.NewError(state.InvalidSpec, ReasonDerivedTemplateConflict,
					"AIMServiceTemplate %s/%s, the name of the template derived for spec.overrides, exists and belongs to something else",
					live.Namespace, live.Name)
				comp = state.Component{Name: ComponentTemplate, Dependency: state.DependencyUpstream, Errors: []error{p.DerivedErr}}
				live = nil
			default:
				p.DerivedLive = live
			}
			if live != nil {
				d := fromNamespaced(live)
				run = &d
			}
		}
	}
	if run != nil {
		comp = TemplateComponent(run, comp)
	}
	p.Components = append(p.Components, comp)
	// Written once Ready and never cleared, as aim-engine writes it (DecorateStatus, reconcile.go:960): the
	// TEMPLATE column keeps the template a running service resolved while another is prepared.
	if run != nil && run.Status.Status == aimv1.AIMStatusReady {
		p.Status.ResolvedTemplate = run.Ref()
	}
	return run
}

// holdDerived drops the derived template from a plan that applies nothing. Only a missing runtime config blocks
// applying while a model and a base template resolve (other blockers leave nothing to derive from), so the
// template's component, which announced that it is being created, says that it waits for the config.
func (p *Plan) holdDerived(o Observation) {
	for i, c := range p.Components {
		if p.Derived != nil && o.RuntimeConfigErr != nil && c.Name == ComponentTemplate && c.Reason == ReasonCreatingDerivedTemplate {
			p.Components[i].Message = awaitsRuntimeConfig("AIMServiceTemplate " + p.Derived.Name + " for spec.overrides")
		}
	}
	p.Derived = nil
}

// awaitsRuntimeConfig says that a child the service creates (what) waits for its runtime config, as aim-engine
// applies no child without it.
func awaitsRuntimeConfig(what string) string {
	return what + " is created once the runtime config resolves"
}

// planWorkload plans the cache and the InferenceService and reports them, the pods and the runtime status;
// observed is what the live InferenceService holds.
func (p *Plan) planWorkload(o Observation, observed kserve.Live, model *Model, run *Template, mayApply bool) {
	svc := o.Service
	ready := mayApply && run != nil && model != nil && run.Status.Status == aimv1.AIMStatusReady
	var mounts []kserve.CacheMount
	cacheReady := true
	if ready {
		mounts, cacheReady = p.planCache(o, observed, *run)
	}
	// Create the InferenceService once its model is Ready and everything it mounts is ready, as aim-engine
	// does; once it exists, keep it up to date so that changes of mutable fields (replicas, env, resources,
	// ...) reach it.
	p.WorkloadExists = o.ISVC != nil
	if ready && (cacheReady && model.Status == aimv1.AIMStatusReady || p.WorkloadExists) {
		w := workload{svc: svc, model: *model, run: *run, rc: o.RuntimeConfig, mounts: mounts, image: o.Mirrors.Rewrite(model.Spec.Image)}
		p.WorkloadExists = true // created now, if not before; its status is not known yet
		// Built only when it may be sent: the same inputs found the live one steady before, and building it
		// was the largest single cost of a steady service's resync.
		if p.ISVCInputs = w.inputs(); p.ISVCInputs == "" || p.ISVCInputs != o.ISVCSteadyInputs {
			p.ISVC = w.build()
		}
		if p.ISVC != nil && UnchangedSinceAimEngine(p.ISVC, o.ISVC) {
			p.ISVC = nil // adopted as it is: an apply would roll the predictor for its labels alone
		}
		if cacheReady {
			p.StaleDerived, p.StaleCaches = staleDerived(o, run.Name)
		}
	}
	if !p.WorkloadExists {
		if ready {
			p.Workload = []state.Component{health.InferenceService(ComponentISVC, health.InferenceServiceState{}, nil)}
		}
		p.Status.Runtime, p.Status.Endpoint = kserve.RuntimeStatus(&svc.Spec, nil, nil), nil
		return
	}
	st := health.InferenceServiceState{Exists: true, Ready: observed.Ready, Reason: observed.Reason, Message: observed.Message}
	var warnings []corev1.Event
	if o.ISVC != nil {
		warnings = health.EventsOf(o.ISVC, o.ISVCWarnings)
	}
	isvc := health.InferenceService(ComponentISVC, st, warnings)
	// The model is unresolved while its InferenceService runs on (the model deleted, or a restored store
	// before its models resolve): there is no image to speak of then.
	if model != nil {
		if mirrored := o.Mirrors.Rewrite(model.Spec.Image); mirrored != model.Spec.Image {
			// rewriteImages: the status says where the predictor pulls from, so a stale mirror can be told apart.
			isvc.Message = strings.TrimPrefix(isvc.Message+"; the predictor pulls "+mirrored+" (rewriteImages)", "; ")
		}
	}
	p.Workload = []state.Component{isvc, health.PredictorPods(ComponentPods, o.Pods, o.PodEvents, o.ReplicaSetWarnings, st.Ready)}
	p.Status.Runtime = kserve.RuntimeStatus(&svc.Spec, o.Pods, o.HPA)
	p.Status.Endpoint = Endpoint(svc, observed.Address)
}

// staleDerived are the service's derived templates but the one named keep, as reconcile.DeleteStale picks them,
// and the Shared caches the service made for a template other than keep that is stale so or gone (a model's
// template its image no longer lists): a derived template is one service's, and a template that is gone serves
// no service, and without its template the cache fails for good. Their Ready artifacts stay (the cache
// finalizer keeps them).
func staleDerived(o Observation, keep string) ([]*aimv1.AIMServiceTemplate, []*aimv1.AIMTemplateCache) {
	elsewhere := func(template string) bool { return o.UsedElsewhere != nil && o.UsedElsewhere(template) }
	// Not one another service names in spec.template.name or runs on: that one is its too now.
	stale := slices.DeleteFunc(reconcile.Stale(o.Service.UID, []string{FieldManager}, o.DerivedTemplates, []string{keep}),
		func(t *aimv1.AIMServiceTemplate) bool { return elsewhere(t.Name) })
	var caches []*aimv1.AIMTemplateCache
	for _, c := range o.Caches {
		if c.Spec.Mode == aimv1.AIMTemplateCacheModeDedicated || len(c.OwnerReferences) > 0 || c.DeletionTimestamp != nil ||
			c.Spec.TemplateName == keep || c.Labels[aimv1.LabelService] != naming.LabelValue(o.Service.Name) ||
			!childlabels.MadeBy(c.Labels, childlabels.Service) {
			continue
		}
		derived := c.Spec.TemplateScope == aimv1.AIMTemplateScopeNamespace &&
			slices.ContainsFunc(stale, func(t *aimv1.AIMServiceTemplate) bool { return t.Name == c.Spec.TemplateName })
		gone := o.TemplateGone != nil && o.TemplateGone(c.Spec.TemplateScope, c.Spec.TemplateName)
		if (derived || gone) && !elsewhere(c.Spec.TemplateName) {
			caches = append(caches, c)
		}
	}
	return stale, caches
}

// planCache plans the cache of a service whose template is ready and reports it. It returns the volumes the
// InferenceService mounts and whether the cache is ready.
func (p *Plan) planCache(o Observation, observed kserve.Live, run Template) ([]kserve.CacheMount, bool) {
	cp := PlanCache(o.Service, run, o.Caches, o.RuntimeConfig)
	p.CreateCache = cp.Create
	cacheReady := true
	if cp.Component != nil {
		comp := *cp.Component
		if cp.Create != nil && len(observed.CacheMounts) > 0 && runsOn(o.ISVC, run) {
			// Lost: the InferenceService mounts this template's cache, which is gone (not the cache of the template
			// it moves from).
			comp = cacheLost(comp, o.Service.Spec.GetCachingMode())
		}
		p.Components = append(p.Components, comp)
		// A component with errors (a conflict over the cache's name) is not ready either.
		cacheReady = cp.Component.State == "" && len(cp.Component.Errors) == 0
	}
	if cp.Use != nil && cacheReady {
		// Like status.resolvedTemplate, written once Ready and never cleared (reconcile.go:979).
		p.CacheInUse = cp.Use.Name
		p.Status.Cache = &aimv1.AIMServiceCacheStatus{TemplateCacheRef: state.Reference(cp.Use.Name, cp.Use.Namespace, cp.Use.UID, "AIMTemplateCache", "")}
	}
	if !cacheReady && o.ISVC != nil {
		// A cache that is briefly not Ready must not unmount the volumes the pods run from (and restart
		// them twice): the live InferenceService keeps its mounts until the cache is Ready again.
		return observed.CacheMounts, false
	}
	return cp.Mounts, cacheReady
}

// runsOn reports whether a live InferenceService runs on template t, by the label it carries of it.
func runsOn(isvc *kservev1beta1.InferenceService, t Template) bool {
	return isvc != nil && isvc.Labels[aimv1.LabelTemplate] == naming.LabelValue(t.Name)
}

// cacheLost is the cache component of a running service whose cache is gone while its InferenceService still
// mounts the cache's volumes, as aim-engine reports it: a Shared cache is lost (CacheLost), a Dedicated one is
// being recreated; Degraded either way. The cache is created again.
func cacheLost(comp state.Component, mode aimv1.AIMCachingMode) state.Component {
	comp.State, comp.Errors = aimv1.AIMStatusDegraded, nil
	if mode == aimv1.AIMCachingModeDedicated {
		comp.Reason, comp.Message = ReasonCacheCreating, "Dedicated template cache is being recreated"
		return comp
	}
	comp.Reason, comp.Message = ReasonCacheLost, "Shared template cache was deleted but InferenceService still references cached storage volumes"
	return comp
}

// planRoute plans the service's HTTPRoute: applied, kept as it is (routing broken), or deleted (routing off).
// status.routing says what the live route serves: the planned path once it is applied; while a route that cannot
// be applied is kept, the path it had.
func (p *Plan) planRoute(o Observation) {
	rp := PlanRoute(o.Service, o.RuntimeConfig)
	p.Status.Routing = keptRouting(o)
	p.SweepRoutes = o.RoutesServed
	if rp.Component == nil {
		p.Status.Routing = nil
		p.DeleteRoute = o.RouteObject != nil && reconcile.OwnedBy(o.RouteObject, o.Service.UID)
		return
	}
	comp := *rp.Component
	p.Route, p.routeBase = &comp, comp
	switch {
	case rp.Route == nil:
		return
	case !o.RoutesServed:
		comp = routeFailed(comp, gatewayNotInstalled())
	case o.RouteErr != nil:
		p.RouteErr = o.RouteErr
		comp = routeFailed(comp, o.RouteErr)
	default:
		p.HTTPRoute = gateway.Build(*rp.Route)
		p.Status.Routing = &aimv1.AIMServiceRoutingStatus{Path: rp.Path}
		if o.Route != nil {
			comp = RouteComponent(comp, gateway.Accepted(o.Route.Status))
		}
	}
	*p.Route = comp
}

// keptRouting is the service's status.routing while its live route stays as it is, nil when there is none.
func keptRouting(o Observation) *aimv1.AIMServiceRoutingStatus {
	if o.RouteObject == nil {
		return nil
	}
	return o.Service.Status.Routing.DeepCopy()
}

// routeFailed is the route's component when err stops it: the error's reason and message, not the plan's.
func routeFailed(comp state.Component, err error) state.Component {
	comp.Errors, comp.State, comp.Reason, comp.Message = []error{err}, "", "", ""
	return comp
}

// components are the plan's components in the order they are reported.
func (p *Plan) components() []state.Component {
	out := append(append([]state.Component(nil), p.Components...), p.Workload...)
	for _, c := range []*state.Component{p.HPA, p.Route} {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// finalStatus is the planned status with the routed path, if any, in the endpoint.
func (p *Plan) finalStatus() aimv1.AIMServiceStatus {
	if p.Status.Endpoint != nil {
		p.Status.Endpoint.Path = ""
		if p.Status.Routing != nil {
			p.Status.Endpoint.Path = p.Status.Routing.Path
		}
	}
	return p.Status
}

// HPAComponent is the health of an autoscaled service's HPA (health.Autoscaler); nil when the service does not
// autoscale (no autoScaling, minReplicas or maxReplicas).
func HPAComponent(svc *aimv1.AIMService, hpa *autoscalingv2.HorizontalPodAutoscaler, isvcReady bool) *state.Component {
	if !kserve.ScaleOf(&svc.Spec).Autoscaled {
		return nil
	}
	comp := health.Autoscaler(ComponentHPA, hpa, isvcReady)
	return &comp
}
