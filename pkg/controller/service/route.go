package service

import (
	"cmp"
	"maps"

	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// RoutePlan is what the service does about its HTTPRoute.
type RoutePlan struct {
	// Route is the route to apply; nil when routing is off (an existing route is deleted) or broken (an
	// existing route is kept as it is).
	Route *gateway.Input
	// Path is the routed path.
	Path string
	// Component is nil when routing is off.
	Component *state.Component
}

// PlanRoute decides on the service's HTTPRoute from its routing settings laid over the runtime config's, field by
// field (runtimeconfig.Section). A mistake in them fails the route only; the InferenceService does not depend on
// it.
func PlanRoute(svc *aimv1.AIMService, rc runtimeconfig.Resolved) RoutePlan {
	var r aimv1.AIMRuntimeRoutingConfig
	if merged := runtimeconfig.Section(rc.Spec.Routing, svc.Spec.Routing); merged != nil {
		r = *merged
	}
	if !ptr.Deref(r.Enabled, false) {
		return RoutePlan{}
	}
	comp := state.Component{Name: ComponentRoute, Dependency: state.DependencyDownstream}
	if r.GatewayRef == nil {
		comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonGatewayNotConfigured,
			"routing is enabled but neither spec.routing.gatewayRef nor the runtime config names a gateway")}
		return RoutePlan{Component: &comp}
	}
	path := gateway.DefaultPath(svc)
	if tmpl := ptr.Deref(r.PathTemplate, ""); tmpl != "" {
		p, err := gateway.RenderPath(svc, tmpl)
		if err != nil {
			// The user's to fix (ConfigValid=False), but the InferenceService serves: Degraded, not Failed. aim-engine
			// falls back to the default path without a word (httproute.go:137); its docs say degraded.
			comp.State = aimv1.AIMStatusDegraded
			comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonPathTemplateInvalid, "routing path template %q: %v", tmpl, err)}
			return RoutePlan{Component: &comp}
		}
		path = p
	}
	annotations := maps.Clone(r.Annotations) // r's may be the informer's own map
	if len(annotations) == 0 {
		annotations = nil
	}
	name := RouteName(svc)
	in := &gateway.Input{
		Name: name, Namespace: svc.Namespace, Owner: ownerRef(svc), Annotations: annotations,
		Labels: childlabels.For(childlabels.Service, svc, rc, map[string]string{labelComponent: "routing", aimv1.LabelService: naming.LabelValue(svc.Name)}),
		Parent: *r.GatewayRef, Path: path, Backend: kserve.PredictorName(WorkloadName(svc)), Timeout: r.RequestTimeout,
	}
	comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonHTTPRouteCreating, "HTTPRoute is being created"
	return RoutePlan{Route: in, Path: path, Component: &comp}
}

// RouteComponent reports an existing route by what its gateways say, in aim-engine's words and categories
// (GetHTTPRouteHealth, health_fetchers.go:699; HTTPRouteCreating, reconcile.go:518).
func RouteComponent(comp state.Component, a gateway.Acceptance) state.Component {
	switch {
	case a.Accepted:
		comp.State, comp.Reason, comp.Message = "", ReasonHTTPRouteAccepted, "HTTPRoute is accepted by gateway"
	case a.Unresolved:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, cmp.Or(a.Reason, ReasonHTTPRoutePending), "HTTPRoute backend not resolved: "+a.Message
	case a.Known:
		// An invalid spec, as in aim-engine: ConfigValid=False/InvalidSpec and Ready's reason InvalidSpec. Unlike
		// there it holds up no apply (the route is planned after that is decided), so a fixed gatewayRef or
		// path reaches the route.
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, cmp.Or(a.Reason, ReasonHTTPRouteRejected), "HTTPRoute rejected: "+a.Message
		comp.Errors = []error{state.NewError(state.InvalidSpec, comp.Reason, "%s", comp.Message)}
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonHTTPRoutePending, "HTTPRoute is waiting for gateway acceptance"
	}
	return comp
}
