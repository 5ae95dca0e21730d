package health

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Reasons of a pods component.
const (
	ReasonNoPods               = "NoPods"
	ReasonPodsReady            = "PodsReady"
	ReasonPodsStarting         = "PodsStarting"
	ReasonPodsPending          = "PodsPending"
	ReasonPodsProgressing      = "PodsProgressing"
	ReasonImagePullAuthFailure = "ImagePullAuthFailure"
	ReasonImageNotFound        = "ImageNotFound"
	ReasonImagePullBackOff     = "ImagePullBackOff"
	ReasonPodFailed            = "PodFailed"
	ReasonPodOOMKilled         = "PodOOMKilled"
	ReasonPodDeadlineExceeded  = "PodDeadlineExceeded"
	ReasonPodEvicted           = "PodEvicted"
	ReasonSourceNotFound       = "SourceNotFound"
	ReasonAuthError            = "AuthError"
	ReasonStorageFull          = "StorageFull"
)

// Reasons of pod Events that a pods component takes as its own: what keeps a pod pending, and an image pull
// under way.
const (
	ReasonFailedScheduling       = "FailedScheduling"
	ReasonFailedMount            = "FailedMount"
	ReasonFailedAttachVolume     = "FailedAttachVolume"
	ReasonFailedCreatePodSandBox = "FailedCreatePodSandBox"
	ReasonPulling                = "Pulling"
	// ReasonFailedCreate is the ReplicaSet's (and Job's) event for a pod the API refused to create.
	ReasonFailedCreate = "FailedCreate"
)

// pendingReasons are the event reasons that explain a pending pod.
var pendingReasons = []string{ReasonFailedScheduling, ReasonFailedMount, ReasonFailedAttachVolume, ReasonFailedCreatePodSandBox}

// quoteLimit is how much of a message of reason a condition quotes: more of what explains a pending pod
// (redact.PendingPodLimit), an excerpt of anything else.
func quoteLimit(reason string) int {
	if slices.Contains(pendingReasons, reason) {
		return redact.PendingPodLimit
	}
	return redact.DefaultLimit
}

// Pods reports the pods of a Job as the component name; events are events about them, any type, and without
// pods the Job's own (JobPods).
func Pods(name string, pods []*corev1.Pod, events []corev1.Event) state.Component {
	comp := state.Component{Name: name, Dependency: state.DependencyDownstream}
	set := func(s aimv1.AIMStatus, reason, msg string) state.Component {
		comp.State, comp.Reason, comp.Message = s, reason, redact.Excerpt(msg, quoteLimit(reason))
		return comp
	}
	fail := func(cat state.Category, reason, msg string) state.Component {
		comp.Errors = []error{state.NewError(cat, reason, "%s", redact.Excerpt(msg, redact.DefaultLimit))}
		return comp
	}
	if len(pods) == 0 {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonNoPods, "No pods found"
		if why, ok := RefusedPods(events); ok {
			comp.Message += ": " + why
		}
		return comp
	}
	pods = slices.SortedFunc(slices.Values(pods), func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })

	for _, p := range pods {
		for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
			if w := cs.State.Waiting; w != nil && (w.Reason == "ImagePullBackOff" || w.Reason == "ErrImagePull") {
				comp.Errors = []error{PullError("Container "+cs.Name, w.Message)}
				return comp
			}
		}
	}
	for _, p := range pods {
		if p.Status.Phase == corev1.PodFailed {
			return fail(failedPod(p))
		}
	}
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodRunning && Ready(p) {
			return set(aimv1.AIMStatusReady, ReasonPodsReady, "Pods are ready")
		}
	}
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning {
			return set(aimv1.AIMStatusStarting, ReasonPodsStarting, "Pods are running, waiting for readiness")
		}
	}
	pending := false
	for _, p := range pods {
		if p.Status.Phase != corev1.PodPending {
			continue
		}
		pending = true
		// As aim-engine's getPendingPodDetails: the first pending pod an event explains; one without goes on to
		// the next.
		if e := Explaining(EventsOf(p, events)); e != nil {
			if e.Reason == ReasonPulling {
				return set(aimv1.AIMStatusProgressing, e.Reason, e.Message)
			}
			return set(aimv1.AIMStatusPending, e.Reason, e.Message)
		}
	}
	if pending {
		return set(aimv1.AIMStatusPending, ReasonPodsPending, "Pods are pending")
	}
	return set(aimv1.AIMStatusProgressing, ReasonPodsProgressing, "Pods are progressing")
}

// EventsOf are the events about obj (a pod, an InferenceService): by name, and by UID where the event names one
// (an event of an earlier object of the same name is not obj's).
func EventsOf(obj metav1.Object, events []corev1.Event) []corev1.Event {
	var out []corev1.Event
	for _, e := range events {
		if e.InvolvedObject.Name == obj.GetName() && (e.InvolvedObject.UID == "" || e.InvolvedObject.UID == obj.GetUID()) {
			out = append(out, e)
		}
	}
	return out
}

// Explaining is the latest of a pending pod's events that explains it, nil if none does: a reason of
// pendingReasons (the pod waits) or kubelet's Pulling (its image is being pulled). aim-engine filters by these
// reasons too, but takes a pending reason of any age before Pulling; the latest is taken here, so that a pod that
// waited for a GPU and now pulls reads Pulling (docs/compatibility.md, "Which event explains a pending pod").
func Explaining(events []corev1.Event) *corev1.Event {
	return Latest(matching(events, func(e *corev1.Event) bool {
		return e.Reason == ReasonPulling || slices.Contains(pendingReasons, e.Reason)
	}))
}

// The words of aim-engine's CategorizeRegistryError (internal/utils/errors.go:99), which judges kubelet's pull
// messages: a typo in a registry's host ("dial tcp: lookup regsitry.example: no such host") is a missing image
// the user fixes, as there.
var (
	authWords     = []string{"unauthorized", "401", "403", "forbidden", "denied", "credentials", "authentication"}
	notFoundWords = []string{"not found", "404", "manifest unknown", "name unknown", "no such"}
)

// PullError is the error of an image pull of what (a pod, a container) that failed with kubelet's msg, in the
// reference's categories: a refused credential is Auth (the user fixes it: Failed, AuthValid False), a missing
// image MissingUpstream, anything else Infrastructure (retried by kubelet: Degraded). Every pod of every kind is
// judged by it: download, discovery and predictor pods alike. Only msg is judged, as aim-engine judges it: a pod
// named after a namespace whose hash holds "401" is no refused credential.
func PullError(what, msg string) error {
	// kubelet alternates ErrImagePull's error with ImagePullBackOff's `Back-off pulling image "x": ErrImagePull:
	// <the same error>`; quoted as it comes, the status would change at each of its attempts.
	if m := backOffPrefix.FindStringIndex(msg); m != nil && m[1] < len(msg) {
		msg = msg[m[1]:]
	}
	reason, excerpt := ImagePullReason(msg), redact.Excerpt(what+": "+msg, redact.DefaultLimit)
	switch reason {
	case ReasonImagePullAuthFailure:
		return state.NewError(state.Auth, reason, "%s", excerpt)
	case ReasonImageNotFound:
		return state.NewError(state.MissingUpstream, reason, "%s", excerpt)
	default:
		return state.NewError(state.Infrastructure, reason, "%s", excerpt)
	}
}

// ImagePullReason tells, from a pull error's text, a refused credential and a missing image from the rest.
func ImagePullReason(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case containsAny(m, authWords):
		return ReasonImagePullAuthFailure
	case containsAny(m, notFoundWords):
		return ReasonImageNotFound
	}
	return ReasonImagePullBackOff
}

var (
	// backOffPrefix is what kubelet puts before the pull error in an ImagePullBackOff message.
	backOffPrefix = regexp.MustCompile(`^Back-off pulling image "[^"]*":\s*(?:ErrImagePull:\s*)?`)
	// Not "does not exist": S3 words a refused key so ("403 (InvalidAccessKeyId): The Access Key Id you provided
	// does not exist in our records"); its missing keys and buckets carry 404 and their codes. "File not found in
	// repository" is the hf CLI's missing file.
	sourceNotFound = regexp.MustCompile(`(?i)repository ?not ?found|revision not found|entry not found|file.*not.*found|model.*not.*found|\b404\b|nosuchkey|nosuchbucket`)
	sourceAuth     = regexp.MustCompile(`(?i)\b401\b|\b403\b|unauthori[sz]ed|gated repo|access denied|access.*denied.*s3|access to model .* is restricted|invalid (user )?token|invalid.*token.*huggingface|huggingface.*authentication.*failed|invalidaccesskeyid|signaturedoesnotmatch|forbidden|nocredentialproviders|aws.*credentials.*not.*found`)
	diskFull       = regexp.MustCompile(`(?i)no space left on device|enospc|disk.*full|storage.*full|quota.*exceeded`)
	// apiRefusal is the Kubernetes API refusing the pod's own service account (the downloader patching its
	// artifact's status), which aim-engine checks first (infraErrorPatterns, health_fetchers.go:62): no fault of
	// the source or its credentials, the pod's reason decides.
	apiRefusal = regexp.MustCompile(`(?i)rbac:.*not found|clusterrole.*not found|forbidden.*cannot.*resource|serviceaccount.*cannot`)
)

// failedPod classifies a failed pod by its first terminated container: what its termination message says,
// else its reason.
func failedPod(p *corev1.Pod) (state.Category, string, string) {
	var t *corev1.ContainerStateTerminated
	var name string
	for _, cs := range append(slices.Clone(p.Status.ContainerStatuses), p.Status.InitContainerStatuses...) {
		if cs.State.Terminated != nil {
			t, name = cs.State.Terminated, cs.Name
			break
		}
	}
	if t == nil {
		reason := p.Status.Reason
		msg := fmt.Sprintf("Pod %s failed: %s", p.Name, strings.TrimSpace(reason+" "+p.Status.Message))
		return byReason(reason, msg)
	}
	msg := fmt.Sprintf("Container %s failed with exit code %d: %s", name, t.ExitCode, strings.TrimSpace(t.Reason+" "+t.Message))
	if t.Reason != "OOMKilled" {
		switch out := t.Message; {
		case apiRefusal.MatchString(out):
			// not the source's fault: the pod's reason decides, below
		case sourceNotFound.MatchString(out):
			return state.InvalidSpec, ReasonSourceNotFound, "Source resource not found: " + msg
		case sourceAuth.MatchString(out):
			return state.Auth, ReasonAuthError, "Authentication error: " + msg
		case diskFull.MatchString(out):
			return state.ResourceExhaustion, ReasonStorageFull, "Storage full: " + msg
		}
	}
	return byReason(t.Reason, msg)
}

func byReason(reason, msg string) (state.Category, string, string) {
	switch reason {
	case "OOMKilled":
		return state.ResourceExhaustion, ReasonPodOOMKilled, msg
	case "DeadlineExceeded":
		return state.InvalidSpec, ReasonPodDeadlineExceeded, msg
	case "Evicted":
		return state.Infrastructure, ReasonPodEvicted, msg
	}
	return state.InvalidSpec, ReasonPodFailed, msg
}

// Ready reports whether a pod's Ready condition is True.
func Ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Latest is the most recent event. Event times have whole seconds and informers list in no fixed order, so
// events of one second are told apart by reason and name: the pick, and the message quoted from it, must not
// flap between reconciles.
func Latest(events []corev1.Event) *corev1.Event {
	var out *corev1.Event
	for i := range events {
		e := &events[i]
		if out == nil || laterEvent(e, out) {
			out = e
		}
	}
	return out
}

func laterEvent(a, b *corev1.Event) bool {
	if c := eventTime(a).Compare(eventTime(b)); c != 0 {
		return c > 0
	}
	return cmp.Or(strings.Compare(a.Reason, b.Reason), strings.Compare(a.Name, b.Name)) > 0
}

func eventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}

func containsAny(s string, words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
}

// quotedName is a quoted object name in an event's message.
var quotedName = regexp.MustCompile(`"[a-z0-9]([-a-z0-9.]*[a-z0-9])?"`)

// RefusedPods says why a ReplicaSet or Job has no pods when the API refused to create them: "<kind> <name> cannot
// create them: <the latest FailedCreate's message>", quoted as a pending pod's explanation (a quota's message names
// what was requested, used and limited), without the name the controller generated for the pod, which differs on
// every attempt: the message stays while the cause does, and is written once.
func RefusedPods(events []corev1.Event) (string, bool) {
	e := Latest(matching(events, func(e *corev1.Event) bool { return e.Reason == ReasonFailedCreate }))
	if e == nil {
		return "", false
	}
	owner := e.InvolvedObject.Name
	msg := quotedName.ReplaceAllStringFunc(e.Message, func(q string) string {
		if strings.HasPrefix(q, `"`+owner+"-") {
			return `"` + owner + `-*"`
		}
		return q
	})
	return fmt.Sprintf("%s %s cannot create them: %s", e.InvolvedObject.Kind, owner, redact.Excerpt(msg, redact.PendingPodLimit)), true
}

// matching is the events keep accepts.
func matching(events []corev1.Event, keep func(*corev1.Event) bool) []corev1.Event {
	var out []corev1.Event
	for i := range events {
		if keep(&events[i]) {
			out = append(out, events[i])
		}
	}
	return out
}
