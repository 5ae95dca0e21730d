package state

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/google/go-cmp/cmp"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

var gr = schema.GroupResource{Group: "aim.eai.amd.com", Resource: "aimmodels"}

func TestCategorize(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want Category
	}{
		{"not found", apierrors.NewNotFound(gr, "x"), MissingDownstream},
		{"upstream not found", UpstreamError(apierrors.NewNotFound(gr, "x")), MissingUpstream},
		{"upstream other error stays", UpstreamError(apierrors.NewForbidden(gr, "x", errors.New("no"))), Auth},
		{"forbidden", apierrors.NewForbidden(gr, "x", errors.New("no")), Auth},
		{"namespace terminating", func() error {
			err := apierrors.NewForbidden(gr, "x", errors.New("unable to create new content in namespace ns because it is being terminated"))
			err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
			return err
		}(), MissingDownstream},
		{"unauthorized", apierrors.NewUnauthorized("who"), Auth},
		{"invalid", apierrors.NewInvalid(schema.GroupKind{Kind: "K"}, "x", field.ErrorList{field.Required(field.NewPath("spec"), "")}), InvalidSpec},
		{"already exists", apierrors.NewAlreadyExists(gr, "x"), InvalidSpec},
		{"bad request", apierrors.NewBadRequest("no"), InvalidSpec},
		{"conflict", apierrors.NewConflict(gr, "x", errors.New("stale")), Infrastructure},
		{"timeout", apierrors.NewServerTimeout(gr, "get", 1), Infrastructure},
		{"throttled", apierrors.NewTooManyRequests("slow down", 1), Infrastructure},
		{"internal", apierrors.NewInternalError(errors.New("boom")), Infrastructure},
		{"unavailable", apierrors.NewServiceUnavailable("down"), Infrastructure},
		{"network", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, Infrastructure},
		{"deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), Infrastructure},
		{"explicit", NewError(ResourceExhaustion, "QuotaExceeded", "quota"), ResourceExhaustion},
		{"wrapped explicit", fmt.Errorf("ctx: %w", NewError(InvalidSpec, "Bad", "bad")), InvalidSpec},
		{"unknown", errors.New("mystery"), Infrastructure},
	}
	for _, tc := range cases {
		if got := Categorize(tc.err); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func ready(name string, d Dependency) Component { return Component{Name: name, Dependency: d} }

func failing(name string, d Dependency, err error) Component {
	return Component{Name: name, Dependency: d, Errors: []error{err}}
}

// TestDerive is the table of component states -> conditions and status.
func TestDerive(t *testing.T) {
	missingModel := UpstreamError(apierrors.NewNotFound(gr, "qwen"))
	cases := []struct {
		name       string
		components []Component
		wantStatus aimv1.AIMStatus
		wantReady  metav1.ConditionStatus
		wantReason string
		wantConds  map[string]metav1.ConditionStatus
		// wantCondReasons and wantMessages are the reasons and messages of some conditions.
		wantCondReasons, wantMessages map[string]string
		wantRetry                     bool
	}{
		{name: "all ready", components: []Component{ready("Model", DependencyUpstream), ready("DiscoveryJob", DependencyDownstream)},
			wantStatus: aimv1.AIMStatusReady, wantReady: metav1.ConditionTrue, wantReason: "AllComponentsReady",
			wantConds: map[string]metav1.ConditionStatus{"ModelReady": "True", "DiscoveryJobReady": "True", "ConfigValid": "True", "AuthValid": "True", "DependenciesReachable": "True"},
			// The reference's words when all is well.
			wantMessages: map[string]string{"Ready": "All components are ready", "ConfigValid": "Configuration is valid",
				"AuthValid": "Authentication and authorization successful", "DependenciesReachable": "All dependencies are reachable"}},
		{name: "downstream being created", components: []Component{ready("Model", DependencyUpstream), failing("DiscoveryJob", DependencyDownstream, apierrors.NewNotFound(gr, "job"))},
			wantStatus: aimv1.AIMStatusProgressing, wantReady: "False", wantReason: "Progressing"},
		{name: "missing upstream fails", components: []Component{failing("Model", DependencyUpstream, missingModel), ready("RuntimeConfig", DependencyUpstream)},
			wantStatus: aimv1.AIMStatusFailed, wantReady: "False", wantReason: "ReferenceNotFound",
			wantConds: map[string]metav1.ConditionStatus{"ConfigValid": "False", "ModelReady": "False"}},
		{name: "missing upstream keeps the component reason", components: []Component{
			failing("Model", DependencyUpstream, NewError(MissingUpstream, "ModelNotFound", "no model qwen"))},
			wantStatus: aimv1.AIMStatusFailed, wantReady: "False", wantReason: "ReferenceNotFound",
			wantConds: map[string]metav1.ConditionStatus{"ConfigValid": "False", "ModelReady": "False"}, wantCondReasons: map[string]string{"ModelReady": "ModelNotFound", "ConfigValid": "ReferenceNotFound"}},
		{name: "upstream progressing counts as pending", components: []Component{{Name: "Template", Dependency: DependencyUpstream, State: aimv1.AIMStatusProgressing, Reason: "TemplateNotReady"}},
			wantStatus: aimv1.AIMStatusPending, wantReady: "False", wantReason: "Progressing"},
		{name: "invalid spec fails", components: []Component{failing("HTTPRoute", DependencyDownstream, NewError(InvalidSpec, "GatewayNotConfigured", "routing is enabled without a gateway"))},
			wantStatus: aimv1.AIMStatusFailed, wantReady: "False", wantReason: "InvalidSpec",
			wantConds: map[string]metav1.ConditionStatus{"ConfigValid": "False"}, wantCondReasons: map[string]string{"HTTPRouteReady": "GatewayNotConfigured"}},
		{name: "auth fails", components: []Component{failing("ImageMetadata", DependencyUpstream, apierrors.NewUnauthorized("registry"))},
			wantStatus: aimv1.AIMStatusFailed, wantReady: "False", wantReason: "AuthError",
			wantConds: map[string]metav1.ConditionStatus{"AuthValid": "False"}},
		{name: "GPU absent is NotAvailable, worse than pending", components: []Component{
			{Name: "Model", Dependency: DependencyUpstream, State: aimv1.AIMStatusPending, Reason: "ModelNotReady"},
			{Name: "GPU", Dependency: DependencyUpstream, State: aimv1.AIMStatusNotAvailable, Reason: "GPUNotAvailable", Message: "no node has MI355X"}},
			wantStatus: aimv1.AIMStatusNotAvailable, wantReady: "False", wantReason: "GPUNotAvailable"},
		{name: "a missing reference is worse than an absent GPU", components: []Component{
			failing("Model", DependencyUpstream, missingModel),
			{Name: "GPU", Dependency: DependencyUpstream, State: aimv1.AIMStatusNotAvailable, Reason: "GPUNotAvailable", Message: "no node has MI355X"}},
			wantStatus: aimv1.AIMStatusFailed, wantReady: "False", wantReason: "ReferenceNotFound"},
		{name: "failed beats not available", components: []Component{
			{Name: "GPU", Dependency: DependencyUpstream, State: aimv1.AIMStatusNotAvailable, Reason: "GPUNotAvailable"},
			{Name: "DiscoveryJob", Dependency: DependencyDownstream, State: aimv1.AIMStatusFailed, Reason: "DiscoveryOutputInvalid"}},
			wantStatus: aimv1.AIMStatusFailed, wantReady: "False", wantReason: "DiscoveryOutputInvalid"},
		{name: "new outage is not degraded yet", components: []Component{failing("InferenceService", DependencyDownstream, apierrors.NewServiceUnavailable("etcd"))},
			wantStatus: aimv1.AIMStatusProgressing, wantReady: "False", wantReason: "InfrastructureError", wantRetry: true,
			wantConds: map[string]metav1.ConditionStatus{"DependenciesReachable": "False"}},
		{name: "no components", components: nil, wantStatus: aimv1.AIMStatusReady, wantReady: "True", wantReason: "AllComponentsReady"},
		// Pods running but not ready are on their way: Progressing (a service shows it as Starting), never the
		// pod word Starting itself, which artifacts and templates cannot report.
		{name: "starting pods are progressing", components: []Component{ready("Model", DependencyUpstream),
			{Name: "DownloadPods", Dependency: DependencyDownstream, State: aimv1.AIMStatusStarting, Reason: "PodsStarting"}},
			wantStatus: aimv1.AIMStatusProgressing, wantReady: "False", wantCondReasons: map[string]string{"DownloadPodsReady": "PodsStarting"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := Derive(Input{Components: tc.components, Generation: 3, Now: now})
			if out.Status != tc.wantStatus {
				t.Errorf("status %s, want %s", out.Status, tc.wantStatus)
			}
			r := meta.FindStatusCondition(out.Conditions, ConditionReady)
			if r == nil || r.Status != tc.wantReady || (tc.wantReason != "" && r.Reason != tc.wantReason) {
				t.Errorf("Ready = %+v, want %s/%s", r, tc.wantReady, tc.wantReason)
			}
			for typ, want := range tc.wantConds {
				if c := meta.FindStatusCondition(out.Conditions, typ); c == nil || c.Status != want {
					t.Errorf("%s = %+v, want %s", typ, c, want)
				}
			}
			for typ, want := range tc.wantMessages {
				if c := meta.FindStatusCondition(out.Conditions, typ); c == nil || c.Message != want {
					t.Errorf("%s = %+v, want message %q", typ, c, want)
				}
			}
			for typ, want := range tc.wantCondReasons {
				if c := meta.FindStatusCondition(out.Conditions, typ); c == nil || c.Reason != want {
					t.Errorf("%s = %+v, want reason %s", typ, c, want)
				}
			}
			if out.Retry != tc.wantRetry {
				t.Errorf("retry %v, want %v", out.Retry, tc.wantRetry)
			}
			for _, c := range out.Conditions {
				if c.ObservedGeneration != 3 {
					t.Errorf("%s observedGeneration %d, want 3 (F4)", c.Type, c.ObservedGeneration)
				}
			}
			// Whatever Derive writes must pass the API's own condition validation.
			if errs := metav1validation.ValidateConditions(out.Conditions, field.NewPath("status", "conditions")); len(errs) > 0 {
				t.Errorf("invalid conditions: %v", errs)
			}
		})
	}
}

// TestPruneStaleComponents: a component no longer reported loses its condition and its vote (F2).
func TestWriteFailed(t *testing.T) {
	boom := errors.New("forbidden")
	planned := []Component{ready("A", DependencyUpstream), ready("B", DependencyDownstream)}
	got := WriteFailed(planned, "B", boom)
	if len(got) != 2 || got[0].Name != "A" || got[1].Name != "B" || got[1].Dependency != DependencyDownstream ||
		got[1].State != "" || len(got[1].Errors) != 1 || got[1].Errors[0] != boom {
		t.Errorf("in place: %+v", got)
	}
	if got := WriteFailed(got, "C", boom); len(got) != 3 || got[2].Name != "C" || got[2].Errors[0] != boom {
		t.Errorf("added: %+v", got)
	}
}

func TestPruneStaleComponents(t *testing.T) {
	first := Derive(Input{Now: now, Components: []Component{
		ready("InferenceService", DependencyDownstream),
		failing("HTTPRoute", DependencyDownstream, NewError(InvalidSpec, "GatewayNotConfigured", "no gateway")),
	}, Informational: Normal(metav1.Condition{Type: "Discovered", Status: "True", Reason: "DiscoveryComplete"})})
	if first.Status != aimv1.AIMStatusFailed {
		t.Fatalf("first status %s", first.Status)
	}
	second := Derive(Input{Now: now.Add(time.Minute), Previous: append(first.Conditions, metav1.Condition{Type: "Foreign", Status: "True", Reason: "X"}),
		Components: []Component{ready("InferenceService", DependencyDownstream)}})
	if meta.FindStatusCondition(second.Conditions, "HTTPRouteReady") != nil {
		t.Error("stale HTTPRouteReady kept")
	}
	if meta.FindStatusCondition(second.Conditions, "Discovered") == nil || meta.FindStatusCondition(second.Conditions, "Foreign") == nil {
		t.Error("conditions that are not components must be kept")
	}
	if second.Status != aimv1.AIMStatusReady || !meta.IsStatusConditionTrue(second.Conditions, ConditionReady) {
		t.Errorf("status %s after the route was removed", second.Status)
	}
	if c := meta.FindStatusCondition(second.Conditions, ConditionConfigValid); c.Status != "True" {
		t.Errorf("ConfigValid %+v", c)
	}
}

// TestInfrastructureGrace: an outage keeps the previous conditions for 10 s, then shows Degraded.
func TestInfrastructureGrace(t *testing.T) {
	healthy := Derive(Input{Now: now, Components: []Component{ready("InferenceService", DependencyDownstream)}})
	outage := func(at time.Time, prev []metav1.Condition) Output {
		return Derive(Input{Now: at, Previous: prev,
			Components: []Component{failing("InferenceService", DependencyDownstream, apierrors.NewServiceUnavailable("apiserver"))}})
	}
	early := outage(now.Add(time.Second), healthy.Conditions)
	if early.Status != aimv1.AIMStatusReady || !meta.IsStatusConditionTrue(early.Conditions, "InferenceServiceReady") || !early.Retry {
		t.Errorf("within the grace period: status %s, conditions %v", early.Status, early.Conditions)
	}
	down := meta.FindStatusCondition(early.Conditions, ConditionDependenciesReachable)
	if down.Status != "False" {
		t.Fatalf("DependenciesReachable %+v", down)
	}
	late := outage(now.Add(12*time.Second), early.Conditions)
	if late.Status != aimv1.AIMStatusDegraded || meta.IsStatusConditionTrue(late.Conditions, "InferenceServiceReady") {
		t.Errorf("after the grace period: status %s", late.Status)
	}
	warned := false
	for _, tr := range late.Transitions {
		warned = warned || (tr.Type == "InferenceServiceReady" && tr.Warning)
	}
	if !warned {
		t.Errorf("degradation must emit a warning transition: %+v", late.Transitions)
	}
}

// TestInfrastructureGraceOfANewComponent: a component first reported with an infrastructure error (a child's
// apply refused by a webhook that is down) shows as waiting during the grace, Normal news; when the grace ends
// the object turns Degraded, one Warning, though no condition changes its reason. Later reconciles of the
// same outage send none.
func TestInfrastructureGraceOfANewComponent(t *testing.T) {
	outage := func(at time.Time, prev []metav1.Condition) Output {
		return Derive(Input{Now: at, Previous: prev, Components: []Component{ready("Model", DependencyUpstream),
			failing("InferenceService", DependencyDownstream, apierrors.NewInternalError(errors.New("failed calling webhook")))}})
	}
	warnings := func(o Output) (n int) {
		for _, tr := range o.Transitions {
			if tr.Warning {
				n++
			}
		}
		return n
	}
	first := outage(now, nil)
	if first.Status == aimv1.AIMStatusDegraded || warnings(first) != 0 {
		t.Errorf("within the grace period: status %s, transitions %+v", first.Status, first.Transitions)
	}
	early := outage(now.Add(5*time.Second), first.Conditions)
	if early.Status == aimv1.AIMStatusDegraded || len(early.Transitions) != 0 {
		t.Errorf("still within the grace period: status %s, transitions %+v", early.Status, early.Transitions)
	}
	late := outage(now.Add(12*time.Second), early.Conditions)
	if late.Status != aimv1.AIMStatusDegraded || warnings(late) != 1 {
		t.Errorf("after the grace period: status %s, transitions %+v, want Degraded and one Warning", late.Status, late.Transitions)
	}
	later := outage(now.Add(time.Minute), late.Conditions)
	if later.Status != aimv1.AIMStatusDegraded || len(later.Transitions) != 0 {
		t.Errorf("the same outage later: status %s, transitions %+v, want none", later.Status, later.Transitions)
	}
}

func TestTransitions(t *testing.T) {
	first := Derive(Input{Now: now, Components: []Component{failing("Model", DependencyUpstream, UpstreamError(apierrors.NewNotFound(gr, "m")))}})
	types := map[string]Transition{}
	for _, tr := range first.Transitions {
		types[tr.Type] = tr
	}
	if _, ok := types[ConditionAuthValid]; ok {
		t.Error("a parent condition starting True is no news")
	}
	if tr, ok := types["ModelReady"]; !ok || tr.Status != "False" {
		t.Errorf("ModelReady transition %+v", tr)
	}
	again := Derive(Input{Now: now.Add(time.Minute), Previous: first.Conditions, Components: []Component{failing("Model", DependencyUpstream, UpstreamError(apierrors.NewNotFound(gr, "m")))}})
	if len(again.Transitions) != 0 {
		t.Errorf("unchanged state made transitions: %+v", again.Transitions)
	}
	failed := Derive(Input{Now: now.Add(90 * time.Second), Previous: again.Conditions, Components: []Component{
		{Name: "Model", Dependency: DependencyUpstream, State: aimv1.AIMStatusFailed, Reason: "ModelFailed", Message: "bad image"}}})
	var sawFailure bool
	for _, tr := range failed.Transitions {
		sawFailure = sawFailure || (tr.Type == "ModelReady" && tr.Reason == "ModelFailed" && tr.Warning)
	}
	if !sawFailure {
		t.Errorf("False -> False with a new, bad reason must be a warning transition: %+v", failed.Transitions)
	}
	fixed := Derive(Input{Now: now.Add(2 * time.Minute), Previous: again.Conditions, Components: []Component{ready("Model", DependencyUpstream)}})
	for _, tr := range fixed.Transitions {
		if tr.Warning {
			t.Errorf("recovery is not a warning: %+v", tr)
		}
	}
	if c := meta.FindStatusCondition(fixed.Conditions, "ModelReady"); !c.LastTransitionTime.Time.Equal(now.Add(2 * time.Minute)) {
		t.Errorf("lastTransitionTime %v", c.LastTransitionTime)
	}
	if c := meta.FindStatusCondition(again.Conditions, "ModelReady"); !c.LastTransitionTime.Time.Equal(now) {
		t.Errorf("unchanged condition moved its lastTransitionTime: %v", c.LastTransitionTime)
	}
}

// TestInformationalTransitions: a kind's own condition (DownloadComplete) makes an Event when it appears or changes
// status or reason, Normal unless the reconcile says Warning, as aim-engine's condition manager records it; the
// same status and reason again make none.
func TestInformationalTransitions(t *testing.T) {
	download := func(status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: "DownloadComplete", Status: status, Reason: reason, Message: msg}
	}
	events := func(out Output) []string {
		var got []string
		for _, tr := range out.Transitions {
			if tr.Type == "DownloadComplete" {
				got = append(got, fmt.Sprintf("%s %s %s %v", tr.Status, tr.Reason, tr.Message, tr.Warning))
			}
		}
		return got
	}
	comps := []Component{ready("DownloadJob", DependencyDownstream)}
	started := Derive(Input{Now: now, Components: comps, Informational: Normal(download("False", "Downloading", "Download in progress"))})
	failed := Derive(Input{Now: now.Add(time.Minute), Previous: started.Conditions, Components: comps,
		Informational: []Informational{{Condition: download("False", "VerificationFailed", "Download completed but verification failed"), Warning: true}}})
	again := Derive(Input{Now: now.Add(2 * time.Minute), Previous: failed.Conditions, Components: comps,
		Informational: []Informational{{Condition: download("False", "VerificationFailed", "Download completed but verification failed"), Warning: true}}})
	for _, tc := range []struct {
		out  Output
		want []string
	}{
		{started, []string{"False Downloading Download in progress false"}},
		{failed, []string{"False VerificationFailed Download completed but verification failed true"}},
		{again, nil},
	} {
		if diff := cmp.Diff(tc.want, events(tc.out)); diff != "" {
			t.Errorf("DownloadComplete transitions (-want +got):\n%s", diff)
		}
	}
}

func TestSanitizeReason(t *testing.T) {
	for in, want := range map[string]string{"GPUNotAvailable": "GPUNotAvailable", "9lives": "lives", "a-b c": "abc", "": "Unknown", "X:": "X"} {
		if got := sanitizeReason(in); got != want {
			t.Errorf("sanitizeReason(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSanitizeReasonKeepsValidReasons: a reason that matches is kept as it is, and what sanitizeReason makes
// of any other matches.
func TestSanitizeReasonKeepsValidReasons(t *testing.T) {
	long := strings.Repeat("A", maxReason-1)
	for _, in := range []string{"Ready", "A", "a_b,c:d9", "Gpu2", long + "B", long + ":", long + "BC", "A\u00e9", "\u00e9A", "A b", "_A", "A,", ":", "9"} {
		got := sanitizeReason(in)
		if validReason(in) != (got == in) {
			t.Errorf("sanitizeReason(%q) = %q; valid %v", in, got, validReason(in))
		}
		if !validReason(got) {
			t.Errorf("sanitizeReason(%q) = %q, which does not match", in, got)
		}
	}
}

// TestMessagesAreRedacted: an error that quotes a credential, from any path, reaches neither a condition
// nor a transition (and so no Event) with the credential in it; and messages are capped on a rune boundary.
func TestMessagesAreRedacted(t *testing.T) {
	const secret = "c2VjcmV0LXRva2VuLXZhbHVlCg=="
	out := Derive(Input{Now: time.Now(), Components: []Component{{
		Name: "Image", Dependency: DependencyUpstream,
		Errors: []error{NewError(Auth, "ImagePullAuthFailure", "registry said: Authorization: Basic %s", secret)},
	}}})
	for _, c := range out.Conditions {
		if strings.Contains(c.Message, secret) {
			t.Errorf("condition %s quotes the credential: %s", c.Type, c.Message)
		}
	}
	for _, tr := range out.Transitions {
		if strings.Contains(tr.Message, secret) {
			t.Errorf("transition %s quotes the credential: %s", tr.Type, tr.Message)
		}
	}
	// Later reconciles with the stored conditions: a new secret is still redacted, and text redacted where it
	// was read is not masked twice (it read "password=[redacted]]").
	prev := out.Conditions
	for _, msg := range []string{"download failed: password=[redacted] token=hunter2", "download failed: password=[redacted] token=hunter2"} {
		next := Derive(Input{Now: time.Now(), Previous: prev, Components: []Component{{
			Name: "Image", Dependency: DependencyUpstream, Errors: []error{NewError(Auth, "ImagePullAuthFailure", "%s", msg)},
		}}})
		c := meta.FindStatusCondition(next.Conditions, "ImageReady")
		if c == nil || c.Message != "download failed: password=[redacted] token=[redacted]" {
			t.Errorf("ImageReady on a later reconcile: %+v", c)
		}
		prev = next.Conditions
	}
	long := conditionMessage(strings.Repeat("ü", 5000))
	if len(long) > 4096 || !utf8.ValidString(long) {
		t.Errorf("long message: %d bytes, valid UTF-8 %v", len(long), utf8.ValidString(long))
	}
}

// TestReadyWordedAsTheReference: Ready=False is Progressing with the reference's message while nothing is
// wrong, and names the component it waits for after it.
func TestReadyWordedAsTheReference(t *testing.T) {
	out := Derive(Input{Components: []Component{{Name: "DiscoveryPods", Dependency: DependencyDownstream, State: aimv1.AIMStatusPending,
		Reason: "PodsPending", Message: "Pods are pending"}}, Generation: 1, Now: now})
	r := meta.FindStatusCondition(out.Conditions, ConditionReady)
	if r == nil || r.Reason != "Progressing" || r.Message != "Waiting for components to become ready: DiscoveryPods is not ready: Pods are pending" {
		t.Errorf("Ready = %+v", r)
	}
	if c := meta.FindStatusCondition(out.Conditions, "DiscoveryPodsReady"); c == nil || c.Reason != "PodsPending" || out.Status != aimv1.AIMStatusPending {
		t.Errorf("the component keeps its own reason and the status its state: %+v, %s", c, out.Status)
	}
}

// TestReference: the scope and kind of a resolved reference follow from the namespace alone.
func TestReference(t *testing.T) {
	if r := Reference("m", "team", "u1", "AIMModel", "AIMClusterModel"); r.Kind != "AIMModel" || r.Scope != aimv1.AIMResolutionScopeNamespace || r.Namespace != "team" || r.UID != "u1" {
		t.Errorf("namespaced: %+v", r)
	}
	if r := Reference("m", "", "u2", "AIMModel", "AIMClusterModel"); r.Kind != "AIMClusterModel" || r.Scope != aimv1.AIMResolutionScopeCluster || r.Namespace != "" {
		t.Errorf("cluster: %+v", r)
	}
}
