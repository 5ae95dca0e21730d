// Package gateway builds the Gateway API HTTPRoute of an AIMService and renders its path from the user's path
// template. It is the only package that imports the Gateway API's Go types.
package gateway

import (
	"fmt"
	"regexp"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
)

// Resource is the HTTPRoute resource, for dynamic clients and informers.
var Resource = schema.GroupVersionResource{Group: gatewayv1.GroupName, Version: "v1", Resource: "httproutes"}

// NewObject is an empty HTTPRoute, the Go type the controller caches HTTPRoutes as.
func NewObject() runtime.Object { return &gatewayv1.HTTPRoute{} }

// BackendPort is the port of KServe's predictor Service.
const BackendPort = 80

// Input is what a route is built from; everything is already resolved.
type Input struct {
	Name, Namespace string
	Owner           metav1.OwnerReference
	Labels          map[string]string
	Annotations     map[string]string
	Parent          aimv1.AIMGatewayParentReference
	// Path is the rendered path prefix; requests have it replaced by "/" before they reach the model.
	Path string
	// Backend is the Service the route sends to (the InferenceService's predictor).
	Backend string
	Timeout *aimv1.Duration
}

// Build returns the HTTPRoute. It is pure: equal inputs give equal objects.
func Build(in Input) *gatewayv1.HTTPRoute {
	owner := in.Owner
	owner.Controller, owner.BlockOwnerDeletion = ptr.To(true), ptr.To(true)
	p := in.Parent
	parent := gatewayv1.ParentReference{
		Name:        gatewayv1.ObjectName(p.Name),
		Group:       (*gatewayv1.Group)(p.Group),
		Kind:        (*gatewayv1.Kind)(p.Kind),
		Namespace:   (*gatewayv1.Namespace)(p.Namespace),
		SectionName: (*gatewayv1.SectionName)(p.SectionName),
		Port:        (*gatewayv1.PortNumber)(p.Port),
	}
	rule := gatewayv1.HTTPRouteRule{
		Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{
			Type: ptr.To(gatewayv1.PathMatchPathPrefix), Value: ptr.To(in.Path)}}},
		Filters: []gatewayv1.HTTPRouteFilter{{
			Type: gatewayv1.HTTPRouteFilterURLRewrite,
			URLRewrite: &gatewayv1.HTTPURLRewriteFilter{Path: &gatewayv1.HTTPPathModifier{
				Type: gatewayv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptr.To("/")}},
		}},
		BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
			Kind: ptr.To(gatewayv1.Kind("Service")), Name: gatewayv1.ObjectName(in.Backend),
			Namespace: ptr.To(gatewayv1.Namespace(in.Namespace)), Port: ptr.To(gatewayv1.PortNumber(BackendPort)),
		}}}},
	}
	if in.Timeout != nil {
		rule.Timeouts = &gatewayv1.HTTPRouteTimeouts{Request: ptr.To(Duration(in.Timeout.Duration))}
	}
	return &gatewayv1.HTTPRoute{
		TypeMeta: metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "HTTPRoute"},
		ObjectMeta: metav1.ObjectMeta{Name: in.Name, Namespace: in.Namespace, Labels: in.Labels, Annotations: in.Annotations,
			OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Rules:           []gatewayv1.HTTPRouteRule{rule},
		},
	}
}

// gatewayDuration is the Gateway API's pattern of a duration (GEP-2257).
var gatewayDuration = regexp.MustCompile(`^([0-9]{1,5}(h|m|s|ms)){1,4}$`)

// Duration formats d as a Gateway API duration. It is Go's form, as aim-engine writes it ("5m0s", "1h30m0s"),
// when the API takes that; otherwise (fractions like "1.5s", microseconds) hours, minutes, seconds and
// milliseconds ("1s500ms"), which the API takes and aim-engine's apply would fail on.
func Duration(d time.Duration) gatewayv1.Duration {
	if d <= 0 {
		return "0s"
	}
	if s := d.String(); gatewayDuration.MatchString(s) {
		return gatewayv1.Duration(s)
	}
	var out string
	for _, u := range []struct {
		unit time.Duration
		sfx  string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if n := d / u.unit; n > 0 {
			out += fmt.Sprintf("%d%s", n, u.sfx)
			d -= n * u.unit
		}
	}
	if out == "" {
		out = "1ms" // below the API's resolution: round up rather than disable the timeout
	}
	return gatewayv1.Duration(out)
}

// ReasonAccepted is the reason of a route every gateway accepted.
const ReasonAccepted = "HTTPRouteAccepted"

// Acceptance is what the gateways say of a route.
type Acceptance struct {
	// Accepted is true when every parent accepted the route and resolved its backend; Known is false while no
	// parent has answered.
	Accepted, Known bool
	// Unresolved is set when a parent accepted the route but cannot resolve its backend (ResolvedRefs=False):
	// typically the predictor Service, which KServe makes only once the InferenceService is up. aim-engine
	// reads it as a missing downstream, something to wait for, not a failure.
	Unresolved      bool
	Reason, Message string
}

// Accepted reads the route's parent statuses: a parent that rejects the route (Accepted=False) wins over
// everything, an unresolved backend over parents that accept it.
func Accepted(status gatewayv1.HTTPRouteStatus) Acceptance {
	var a Acceptance
	for _, p := range status.Parents {
		said := func(c metav1.Condition) Acceptance {
			return Acceptance{Known: true, Reason: c.Reason, Message: redact.Excerpt(c.Message, redact.DefaultLimit)}
		}
		for _, c := range p.Conditions {
			accepted := c.Type == string(gatewayv1.RouteConditionAccepted)
			switch {
			case accepted && c.Status == metav1.ConditionTrue:
				if !a.Known {
					a = Acceptance{Accepted: true, Known: true, Reason: ReasonAccepted}
				}
			case accepted && c.Status == metav1.ConditionFalse:
				return said(c)
			case c.Type == string(gatewayv1.RouteConditionResolvedRefs) && c.Status == metav1.ConditionFalse && !a.Unresolved:
				a = said(c)
				a.Unresolved = true
			}
		}
	}
	return a
}
