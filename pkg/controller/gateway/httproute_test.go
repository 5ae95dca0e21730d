package gateway

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

func TestBuild(t *testing.T) {
	r := Build(Input{
		Name: "chat", Namespace: "team-a", Owner: metav1.OwnerReference{APIVersion: "aim.eai.amd.com/v1alpha1", Kind: "AIMService", Name: "chat", UID: "u1"},
		Parent: aimv1.AIMGatewayParentReference{Name: "gw", Namespace: ptr.To("infra")}, Path: "/team-a/chat",
		Backend: "chat-predictor", Timeout: &aimv1.Duration{Duration: 90 * time.Second},
		Annotations: map[string]string{"a": "b"},
	})
	if got := r.OwnerReferences[0]; !*got.Controller || got.UID != "u1" {
		t.Fatalf("owner = %+v", got)
	}
	if p := r.Spec.ParentRefs[0]; p.Name != "gw" || string(*p.Namespace) != "infra" || p.Group != nil {
		t.Fatalf("parent = %+v", p)
	}
	rule := r.Spec.Rules[0]
	if m := rule.Matches[0].Path; *m.Type != gatewayv1.PathMatchPathPrefix || *m.Value != "/team-a/chat" {
		t.Fatalf("match = %+v", m)
	}
	if f := rule.Filters[0].URLRewrite.Path; *f.ReplacePrefixMatch != "/" {
		t.Fatalf("rewrite = %+v", f)
	}
	if b := rule.BackendRefs[0]; b.Name != "chat-predictor" || *b.Port != BackendPort {
		t.Fatalf("backend = %+v", b)
	}
	if *rule.Timeouts.Request != "1m30s" {
		t.Fatalf("timeout = %s", *rule.Timeouts.Request)
	}
	if r.Annotations["a"] != "b" {
		t.Fatalf("annotations = %v", r.Annotations)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]gatewayv1.Duration{
		0: "0s", time.Second: "1s", 90 * time.Minute: "1h30m0s", 5 * time.Minute: "5m0s", 90 * time.Second: "1m30s",
		500 * time.Millisecond: "500ms", 1500 * time.Millisecond: "1s500ms", time.Microsecond: "1ms",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%s) = %s, want %s", d, got, want)
		}
	}
}

func TestAccepted(t *testing.T) {
	parent := func(conds ...metav1.Condition) gatewayv1.RouteParentStatus {
		return gatewayv1.RouteParentStatus{ParentRef: gatewayv1.ParentReference{Name: "gw"}, Conditions: conds}
	}
	ok := metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue}
	bad := metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionFalse, Reason: "BackendNotFound", Message: "no svc"}
	if a := Accepted(gatewayv1.HTTPRouteStatus{}); a.Known {
		t.Fatalf("no parents: %+v", a)
	}
	if a := Accepted(gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{parent(ok)}}}); !a.Accepted {
		t.Fatalf("accepted: %+v", a)
	}
	// An unresolved backend (the predictor Service KServe has not made yet) is waited for, not a rejection.
	a := Accepted(gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{parent(ok), parent(ok, bad)}}})
	if a.Accepted || !a.Unresolved || a.Reason != "BackendNotFound" || !strings.Contains(a.Message, "no svc") {
		t.Fatalf("an unresolved backend: %+v", a)
	}
	// A parent that rejects the route wins over an unresolved backend, whatever their order.
	rejected := metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "NotAllowedByListeners"}
	a = Accepted(gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{parent(ok, bad), parent(rejected)}}})
	if a.Accepted || a.Unresolved || a.Reason != "NotAllowedByListeners" {
		t.Fatalf("a rejecting parent must win: %+v", a)
	}
	// Accepted=Unknown (Pending: the gateway has not judged the route yet) is neither: the route is waited for.
	pending := metav1.Condition{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending"}
	if a := Accepted(gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: []gatewayv1.RouteParentStatus{parent(pending)}}}); a.Known {
		t.Fatalf("a route not judged yet: %+v", a)
	}
}
