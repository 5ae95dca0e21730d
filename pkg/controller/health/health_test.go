package health

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

func pod(phase corev1.PodPhase, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "dl-1", UID: "u1"}, Status: corev1.PodStatus{Phase: phase}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func waiting(reason, msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "model-download",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}
	}
}

func terminated(reason, msg string, code int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "model-download",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, Message: msg, ExitCode: code}}}}
	}
}

func readyCond(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
}

func event(reason, msg string, at time.Time) corev1.Event {
	return corev1.Event{InvolvedObject: corev1.ObjectReference{Name: "dl-1", UID: "u1"}, Reason: reason, Message: msg,
		LastTimestamp: metav1.NewTime(at)}
}

// podsCase is pods and events about them, and the state and reason they are judged to give.
type podsCase struct {
	name   string
	pods   []*corev1.Pod
	events []corev1.Event
	state  aimv1.AIMStatus
	reason string
}

func TestJobPods(t *testing.T) {
	now := time.Now()
	for _, tc := range []podsCase{
		{"no pods", nil, nil, aimv1.AIMStatusProgressing, ReasonNoPods},
		{"pull refused", []*corev1.Pod{pod(corev1.PodPending, waiting("ErrImagePull", "pull access denied, authorization failed"))}, nil,
			aimv1.AIMStatusFailed, ReasonImagePullAuthFailure},
		// The same refusal a predictor pod reports with the same reason (pkg/controller/service uses this rule).
		{"pull 403", []*corev1.Pod{pod(corev1.PodPending, waiting("ImagePullBackOff", `failed to pull image "registry.example/aim/x:1": unexpected status: 403 Forbidden`))}, nil,
			aimv1.AIMStatusFailed, ReasonImagePullAuthFailure},
		{"image missing", []*corev1.Pod{pod(corev1.PodPending, waiting("ImagePullBackOff", "manifest unknown: tag v9"))}, nil,
			aimv1.AIMStatusFailed, ReasonImageNotFound},
		{"pull slow", []*corev1.Pod{pod(corev1.PodPending, waiting("ImagePullBackOff", "i/o timeout"))}, nil,
			aimv1.AIMStatusDegraded, ReasonImagePullBackOff},
		{"source missing", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "huggingface_hub: 404 Repository Not Found", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonSourceNotFound},
		{"source refuses the token", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "401 Client Error: Unauthorized for url", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonAuthError},
		// aim-engine's chainsaw test failure-auth-s3: s3cmd's words for a wrong access key.
		{"S3 refuses the key", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error",
			"ERROR: S3 error: 403 (InvalidAccessKeyId): The Access Key Id you provided does not exist in our records.", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonAuthError},
		{"S3 key missing", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "ERROR: S3 error: 404 (NoSuchKey): The specified key does not exist.", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonSourceNotFound},
		// aim-engine's other patterns of a refused source (health_fetchers.go:72).
		{"hf model restricted", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "Access to model meta-llama/Llama-3.1-8B is restricted. You must have access to it", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonAuthError},
		{"hf authentication failed", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "huggingface-cli: authentication has failed", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonAuthError},
		{"S3 access is denied", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "access to the object is denied by s3", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonAuthError},
		{"hf file missing", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "File not found in repository.", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonSourceNotFound},
		{"disk full", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "OSError: [Errno 28] No space left on device", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonStorageFull},
		// aim-engine's further patterns (health_fetchers.go:62): AWS SDK credentials, hf's exception name, and the
		// API refusing the downloader's own account, which is no source error.
		{"no AWS credentials", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "NoCredentialProviders: no valid providers in chain", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonAuthError},
		{"hf repository missing", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "huggingface_hub.errors.RepositoryNotFoundError", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonSourceNotFound},
		{"volume full", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "write failed: disk is full", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonStorageFull},
		{"the API refuses the downloader", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error",
			`Error from server (Forbidden): aimartifacts.aim.eai.amd.com "x" is forbidden: User "system:serviceaccount:team:aim-artifact-downloader" cannot patch resource "aimartifacts/status"`, 1))}, nil,
			aimv1.AIMStatusFailed, ReasonPodFailed},
		{"out of memory", []*corev1.Pod{pod(corev1.PodFailed, terminated("OOMKilled", "", 137))}, nil, aimv1.AIMStatusFailed, ReasonPodOOMKilled},
		{"stalled attempt", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "download stalled for 120s, giving up", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonPodFailed},
		{"evicted", []*corev1.Pod{pod(corev1.PodFailed, func(p *corev1.Pod) { p.Status.Reason = "Evicted" })}, nil, aimv1.AIMStatusDegraded, ReasonPodEvicted},
		{"running and ready", []*corev1.Pod{pod(corev1.PodRunning, readyCond)}, nil, aimv1.AIMStatusReady, ReasonPodsReady},
		{"succeeded", []*corev1.Pod{pod(corev1.PodSucceeded)}, nil, aimv1.AIMStatusReady, ReasonPodsReady},
		{"running", []*corev1.Pod{pod(corev1.PodRunning)}, nil, aimv1.AIMStatusStarting, ReasonPodsStarting},
		{"unschedulable", []*corev1.Pod{pod(corev1.PodPending)}, []corev1.Event{event("Pulling", "", now.Add(-time.Minute)),
			event("FailedScheduling", "0/3 nodes are available", now)}, aimv1.AIMStatusPending, "FailedScheduling"},
		{"pulling", []*corev1.Pod{pod(corev1.PodPending)}, []corev1.Event{event("Pulling", "pulling image", now)}, aimv1.AIMStatusProgressing, "Pulling"},
		{"pending", []*corev1.Pod{pod(corev1.PodPending)}, nil, aimv1.AIMStatusPending, ReasonPodsPending},
		// Only the reasons that explain a pending pod count, as aim-engine filters them: a later Warning of another
		// reason does not hide the pull.
		{"pulling behind another warning", []*corev1.Pod{pod(corev1.PodPending)}, []corev1.Event{event("Pulling", "pulling image", now.Add(-time.Minute)),
			event("DNSConfigForming", "nameserver limits were exceeded", now)}, aimv1.AIMStatusProgressing, "Pulling"},
		// A pending pod no event explains hands on to the next, as aim-engine's loop does.
		{"the second pod pulls", []*corev1.Pod{pod(corev1.PodPending), pod(corev1.PodPending, func(p *corev1.Pod) { p.Name, p.UID = "dl-2", "u2" })},
			[]corev1.Event{{InvolvedObject: corev1.ObjectReference{Name: "dl-2", UID: "u2"}, Reason: "Pulling", LastTimestamp: metav1.NewTime(now)}},
			aimv1.AIMStatusProgressing, "Pulling"},
		// An event of an earlier pod of the same name is not this pod's.
		{"an earlier pod's pull", []*corev1.Pod{pod(corev1.PodPending)},
			[]corev1.Event{{InvolvedObject: corev1.ObjectReference{Name: "dl-1", UID: "u0"}, Reason: "Pulling", LastTimestamp: metav1.NewTime(now)}},
			aimv1.AIMStatusPending, ReasonPodsPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Pods("DownloadJobPods", tc.pods, tc.events)
			out := state.Derive(state.Input{Components: []state.Component{c}, Now: now.Add(-time.Hour)})
			cond := out.Conditions
			var got *metav1.Condition
			for i := range cond {
				if cond[i].Type == "DownloadJobPodsReady" {
					got = &cond[i]
				}
			}
			if got == nil || got.Reason != tc.reason {
				t.Fatalf("condition %+v, want reason %s", got, tc.reason)
			}
			if st, _, _ := state.Outcome(c); st != tc.state {
				t.Errorf("state %s, want %s", st, tc.state)
			}
		})
	}
}

func predictorPod(name string, mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team"}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func predictorWaiting(reason, msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = nil
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "kserve-container", State: corev1.ContainerState{
			Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}
	}
}

// TestJobPodsNoneCreated: a Job the API refuses pods to (a LimitRange here) says so in its pods component.
func TestJobPodsNoneCreated(t *testing.T) {
	refused := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "discover-x.1"}, InvolvedObject: corev1.ObjectReference{Kind: "Job", Name: "discover-x"},
		Type: corev1.EventTypeWarning, Reason: ReasonFailedCreate, LastTimestamp: metav1.Now(),
		Message: `Error creating: pods "discover-x-7kq2z" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`}
	c := Pods("DiscoveryPods", nil, []corev1.Event{refused})
	if st, reason, _ := state.Outcome(c); st != aimv1.AIMStatusProgressing || reason != ReasonNoPods {
		t.Errorf("%s %s, want Progressing NoPods", st, reason)
	}
	if want := `No pods found: Job discover-x cannot create them: Error creating: pods "discover-x-*" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi`; c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
}

// TestPredictorPodsNoneCreated: with no pods, the latest FailedCreate of the predictor's ReplicaSets says why (a
// quota on GPUs here), in the state and reason aim-engine gives a predictor without pods.
func TestPredictorPodsNoneCreated(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	rsEvent := func(rs, reason, msg string, at time.Time) corev1.Event {
		return corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: rs + "." + reason}, InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: rs},
			Type: corev1.EventTypeWarning, Reason: reason, Message: msg, LastTimestamp: metav1.NewTime(at)}
	}
	quota := `pods "%s" is forbidden: exceeded quota: gpus, requested: requests.amd.com/gpu=1, used: requests.amd.com/gpu=8, limited: requests.amd.com/gpu=8`
	c := PredictorPods("Pods", nil, nil, []corev1.Event{
		rsEvent("chat-predictor-7d9f", ReasonFailedCreate, "Error creating: an older refusal", now.Add(-time.Minute)),
		rsEvent("chat-predictor-7d9f", ReasonFailedCreate, "Error creating: "+fmt.Sprintf(quota, "chat-predictor-7d9f-x2k4q"), now),
		rsEvent("chat-predictor-7d9f", "SomethingElse", "later, and not about creating pods", now.Add(time.Second)),
	}, false)
	if st, reason, _ := state.Outcome(c); st != aimv1.AIMStatusProgressing || reason != ReasonNoPods {
		t.Errorf("%s %s, want Progressing NoPods", st, reason)
	}
	// The pod's generated name, another on every attempt, is left out: the message stays while the reason does.
	if want := "no predictor pods yet: ReplicaSet chat-predictor-7d9f cannot create them: Error creating: " + fmt.Sprintf(quota, "chat-predictor-7d9f-*"); c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	if c := PredictorPods("Pods", nil, nil, nil, false); c.Message != "no predictor pods yet" {
		t.Errorf("no events: message %q", c.Message)
	}
	// An InferenceService KServe reports Ready with no pods (replicas: 0) is what the service asked for.
	if st, reason, _ := state.Outcome(PredictorPods("Pods", nil, nil, nil, true)); st != aimv1.AIMStatusReady || reason != state.ReasonReady {
		t.Errorf("no pods of a Ready InferenceService: %s %s, want Ready", st, reason)
	}
}

func TestPredictorPods(t *testing.T) {
	ev := func(pod, reason, msg string, at time.Time) corev1.Event {
		return corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: pod}, Reason: reason, Message: msg, LastTimestamp: metav1.NewTime(at)}
	}
	now := time.Now()
	pending := func(p *corev1.Pod) { p.Status.Phase, p.Status.Conditions = corev1.PodPending, nil }
	for _, tc := range []podsCase{
		{"no pods yet", nil, nil, aimv1.AIMStatusProgressing, "NoPods"},
		{"all ready", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", nil)}, nil, aimv1.AIMStatusReady, "PodsReady"},
		{"starting", []*corev1.Pod{predictorPod("a", func(p *corev1.Pod) { p.Status.Conditions = nil })}, nil, aimv1.AIMStatusProgressing, "PodsStarting"},
		// Once a pod is ready the predictor serves: a scale-up's pod that starts or waits to be scheduled keeps it
		// Ready, as aim-engine's PodsReady; one that crash-loops makes it Degraded, never Pending.
		{"scaling up", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", func(p *corev1.Pod) { p.Status.Conditions = nil })}, nil, aimv1.AIMStatusReady, "PodsReady"},
		{"scaling up beyond capacity", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/3 nodes have amd.com/gpu"}}
		})}, nil, aimv1.AIMStatusReady, "PodsReady"},
		{"a rollout's pod crash-loops", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", predictorWaiting("CrashLoopBackOff", "back-off"))}, nil,
			aimv1.AIMStatusDegraded, "CrashLoopBackOff"},
		// A refused pull is reported whatever serves, as aim-engine checks pulls first; a pod that ended is no
		// replica once another serves (its ReplicaSet replaced it), as the ReplicaSet controller counts pods.
		{"a scale-up's pull is refused", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", predictorWaiting("ErrImagePull", "pull access denied: unauthorized"))}, nil,
			aimv1.AIMStatusFailed, "ImagePullAuthFailure"},
		{"a replica failed", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed })}, nil,
			aimv1.AIMStatusReady, "PodsReady"},
		{"an evicted replica lingers beside a crash-looping one", []*corev1.Pod{predictorPod("a", nil),
			predictorPod("b", func(p *corev1.Pod) { p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted" }),
			predictorPod("c", predictorWaiting("CrashLoopBackOff", "back-off"))}, nil, aimv1.AIMStatusDegraded, "CrashLoopBackOff"},
		{"image pull back-off", []*corev1.Pod{predictorPod("a", predictorWaiting("ImagePullBackOff", "Back-off pulling image"))}, nil, aimv1.AIMStatusDegraded, "ImagePullBackOff"},
		{"image pull auth", []*corev1.Pod{predictorPod("a", predictorWaiting("ErrImagePull", "pull access denied: unauthorized"))}, nil, aimv1.AIMStatusFailed, "ImagePullAuthFailure"},
		{"image not found", []*corev1.Pod{predictorPod("a", predictorWaiting("ErrImagePull", "manifest unknown"))}, nil, aimv1.AIMStatusFailed, "ImageNotFound"},
		{"registry host unknown", []*corev1.Pod{predictorPod("a", predictorWaiting("ErrImagePull",
			`failed to pull and unpack image "regsitry.example/aim/llama:1.0": failed to resolve reference: dial tcp: lookup regsitry.example on 10.96.0.10:53: no such host`))},
			nil, aimv1.AIMStatusFailed, "ImageNotFound"},
		{"authentication failed", []*corev1.Pod{predictorPod("a", predictorWaiting("ErrImagePull", "pulling from host ghcr.io failed: authentication failed"))},
			nil, aimv1.AIMStatusFailed, "ImagePullAuthFailure"},
		{"registry unreachable", []*corev1.Pod{predictorPod("a", predictorWaiting("ErrImagePull", "dial tcp 10.0.0.7:443: i/o timeout"))},
			nil, aimv1.AIMStatusDegraded, "ImagePullBackOff"},
		// Only kubelet's message is judged: the pod's name holds the hash of its namespace, here with a 401 in it.
		{"a pod name with 401 in it", []*corev1.Pod{predictorPod("chat-dc040123-predictor-7d9f-x2k4q", predictorWaiting("ErrImagePull", "dial tcp 10.0.0.7:443: i/o timeout"))},
			nil, aimv1.AIMStatusDegraded, "ImagePullBackOff"},
		// Across pods, aim-engine's order: a failed pull first, then a failed pod, then the rest by pod name.
		{"one pod unschedulable, another's pull refused", []*corev1.Pod{predictorPod("a", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/3 nodes have amd.com/gpu"}}
		}), predictorPod("b", predictorWaiting("ErrImagePull", "pull access denied: unauthorized"))}, nil, aimv1.AIMStatusFailed, "ImagePullAuthFailure"},
		{"one pod crash-loops, another's pull refused, one ready", []*corev1.Pod{predictorPod("a", predictorWaiting("CrashLoopBackOff", "back-off")),
			predictorPod("b", predictorWaiting("ErrImagePull", "pull access denied: unauthorized")), predictorPod("c", nil)}, nil, aimv1.AIMStatusFailed, "ImagePullAuthFailure"},
		{"one pod crash-loops, another failed", []*corev1.Pod{predictorPod("a", predictorWaiting("CrashLoopBackOff", "back-off")),
			predictorPod("b", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed })}, nil, aimv1.AIMStatusDegraded, "PodFailed"},
		// Image pulls are judged as download pods' are (PullError): a refused credential or a missing image is for the
		// user to fix (Failed), a slow or flaky registry is Degraded, as the reference categorises them.
		{"image pull 403", []*corev1.Pod{predictorPod("a", predictorWaiting("ImagePullBackOff", `failed to pull image "registry.example/aim/x:1": unexpected status: 403 Forbidden`))},
			nil, aimv1.AIMStatusFailed, ReasonImagePullAuthFailure},
		{"invalid image name", []*corev1.Pod{predictorPod("a", predictorWaiting("InvalidImageName", "couldn't parse image reference"))}, nil, aimv1.AIMStatusDegraded, "InvalidImageName"},
		{"OOM killed", []*corev1.Pod{predictorPod("a", func(p *corev1.Pod) {
			predictorWaiting("CrashLoopBackOff", "back-off")(p)
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: "OOMKilled"}
		})}, nil, aimv1.AIMStatusDegraded, "PodOOMKilled"},
		{"crash loop", []*corev1.Pod{predictorPod("a", predictorWaiting("CrashLoopBackOff", "back-off"))}, nil, aimv1.AIMStatusDegraded, "CrashLoopBackOff"},
		{"unschedulable", []*corev1.Pod{predictorPod("a", func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/3 nodes have amd.com/gpu"}}
		})}, nil, aimv1.AIMStatusPending, "FailedScheduling"},
		{"the latest event of a pending pod", []*corev1.Pod{predictorPod("a", pending)},
			[]corev1.Event{ev("a", "FailedScheduling", "old", now.Add(-time.Minute)), ev("a", "FailedMount", "volume cache not found", now)},
			aimv1.AIMStatusPending, "FailedMount"},
		{"evicted", []*corev1.Pod{predictorPod("a", func(p *corev1.Pod) { p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted" })}, nil, aimv1.AIMStatusDegraded, "PodEvicted"},
		// A pending pod that no Warning explains: pulling its image (kubelet's Pulling Event, the latest) is
		// Progressing, anything else Pending, as aim-engine's getPendingPodDetails; a pod that runs comes first.
		{"pulling after waiting for a GPU", []*corev1.Pod{predictorPod("a", pending)},
			[]corev1.Event{ev("a", "FailedScheduling", "0/3 nodes have amd.com/gpu", now.Add(-time.Minute)), ev("a", "Pulling", `Pulling image "x"`, now)},
			aimv1.AIMStatusProgressing, "Pulling"},
		{"pending", []*corev1.Pod{predictorPod("a", pending)}, nil, aimv1.AIMStatusPending, "PodsPending"},
		{"pending with another pod's pull", []*corev1.Pod{predictorPod("a", pending), predictorPod("b", pending)},
			[]corev1.Event{ev("b", "Pulling", `Pulling image "x"`, now)}, aimv1.AIMStatusProgressing, "Pulling"},
		{"one starts while another pulls", []*corev1.Pod{predictorPod("a", pending), predictorPod("b", func(p *corev1.Pod) { p.Status.Conditions = nil })},
			[]corev1.Event{ev("a", "Pulling", `Pulling image "x"`, now)}, aimv1.AIMStatusProgressing, "PodsStarting"},
		{"a scale-up's pod pulls", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", pending)},
			[]corev1.Event{ev("b", "Pulling", `Pulling image "x"`, now)}, aimv1.AIMStatusReady, "PodsReady"},
		{"an earlier pod's pull", []*corev1.Pod{predictorPod("a", func(p *corev1.Pod) { pending(p); p.UID = "u1" })},
			[]corev1.Event{{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "a", UID: "u0"}, Reason: "Pulling", LastTimestamp: metav1.NewTime(now)}},
			aimv1.AIMStatusPending, "PodsPending"},
		{"pulling behind another warning", []*corev1.Pod{predictorPod("a", pending)},
			[]corev1.Event{ev("a", "Pulling", `Pulling image "x"`, now.Add(-time.Minute)), ev("a", "DNSConfigForming", "nameserver limits", now)},
			aimv1.AIMStatusProgressing, "Pulling"},
		// A pod that waits outranks one that pulls: the service waits for it either way.
		{"one waits for a GPU while another pulls", []*corev1.Pod{predictorPod("a", pending), predictorPod("b", pending)},
			[]corev1.Event{ev("a", "Pulling", `Pulling image "x"`, now), ev("b", "FailedScheduling", "0/3 nodes have amd.com/gpu", now)},
			aimv1.AIMStatusPending, "FailedScheduling"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := PredictorPods("Pods", tc.pods, tc.events, nil, false)
			if st, reason, _ := state.Outcome(c); st != tc.state || reason != tc.reason {
				t.Errorf("%s %s (%s), want %s %s", st, reason, c.Message, tc.state, tc.reason)
			}
		})
	}
	// The pull is the pulling pod's, by its Event.
	c := PredictorPods("Pods", []*corev1.Pod{predictorPod("a", pending), predictorPod("b", pending)},
		[]corev1.Event{ev("b", "Pulling", `Pulling image "registry.example/aim/x:1.0"`, now)}, nil, false)
	if want := `pod b: Pulling image "registry.example/aim/x:1.0"`; c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	// A pod that ended is not counted among the replicas either.
	c = PredictorPods("Pods", []*corev1.Pod{predictorPod("a", nil), predictorPod("b", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }),
		predictorPod("c", func(p *corev1.Pod) { p.Status.Conditions = nil })}, nil, nil, false)
	if want := "1 of 2 pods ready"; c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
}

// TestPendingPodMessagesQuotedWhole: the scheduler's account of a pending pod lists every reason it passed nodes
// over, the one that matters maybe last; conditions quote it whole (aim-engine does), where other outside text is
// an excerpt of redact.DefaultLimit.
func TestPendingPodMessagesQuotedWhole(t *testing.T) {
	msg := "0/9 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, " +
		"2 node(s) didn't match Pod's node affinity/selector, 6 Insufficient amd.com/gpu. preemption: 0/9 nodes are " +
		"available: 3 Preemption is not helpful for scheduling, 6 No preemption victims found for incoming pod."
	if len(msg) <= redact.DefaultLimit {
		t.Fatalf("the message is %d bytes, not longer than an excerpt", len(msg))
	}
	unschedulable := func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: msg}}
	}
	predictor := PredictorPods("Pods", []*corev1.Pod{predictorPod("a", unschedulable)}, nil, nil, false)
	if _, _, got := state.Outcome(predictor); got != "pod a: "+msg {
		t.Errorf("predictor: message %q, want the scheduler's whole", got)
	}
	job := Pods("DownloadJob", []*corev1.Pod{pod(corev1.PodPending)}, []corev1.Event{event("FailedScheduling", msg, time.Now())})
	if _, _, got := state.Outcome(job); got != msg {
		t.Errorf("job pod: message %q, want the scheduler's whole", got)
	}
}

func TestInferenceService(t *testing.T) {
	warn := []corev1.Event{{Reason: "InternalError", Message: "fails to create: Knative serving is not installed"}}
	for _, tc := range []struct {
		s      InferenceServiceState
		ev     []corev1.Event
		state  aimv1.AIMStatus
		reason string
	}{
		{InferenceServiceState{}, nil, aimv1.AIMStatusProgressing, "CreatingRuntime"},
		{InferenceServiceState{Exists: true}, nil, aimv1.AIMStatusProgressing, "CreatingRuntime"},
		{InferenceServiceState{Exists: true, Ready: true}, warn, aimv1.AIMStatusReady, "RuntimeReady"},
		// An InternalError stays one whatever its words, as in aim-engine: ServerlessModeRejected is KServe's reason.
		{InferenceServiceState{Exists: true}, warn, aimv1.AIMStatusFailed, "InternalError"},
		{InferenceServiceState{Exists: true}, []corev1.Event{{Reason: "ServerlessModeRejected",
			Message: "It is not possible to use Serverless deployment mode when Knative Services are not available"}}, aimv1.AIMStatusFailed, "ServerlessModeRejected"},
		{InferenceServiceState{Exists: true}, []corev1.Event{{Reason: "InternalError", Message: "webhook denied"}}, aimv1.AIMStatusFailed, "InternalError"},
		// KServe's transient conflicts and other Warnings do not fail it (aim-engine's rule).
		{InferenceServiceState{Exists: true}, []corev1.Event{{Reason: "InternalError", Message: "Operation cannot be fulfilled on inferenceservices.serving.kserve.io \"x\": the object has been modified"}},
			aimv1.AIMStatusProgressing, "CreatingRuntime"},
		{InferenceServiceState{Exists: true}, []corev1.Event{{Reason: "UpdateFailed", Message: "something passing"}}, aimv1.AIMStatusProgressing, "CreatingRuntime"},
	} {
		st, reason, msg := state.Outcome(InferenceService("InferenceService", tc.s, tc.ev))
		if st != tc.state || reason != tc.reason {
			t.Errorf("%+v: %s %s, want %s %s", tc.s, st, reason, tc.state, tc.reason)
		}
		if st == aimv1.AIMStatusReady && msg != "InferenceService is ready" { // aim-engine's words
			t.Errorf("ready message %q", msg)
		}
	}
}

// TestLatestIsOneEventWhateverTheOrder: events of the same second are picked by reason and name, not by the
// order the informer lists them in.
func TestLatestIsOneEventWhateverTheOrder(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	events := []corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Name: "p.1"}, Reason: "FailedMount", LastTimestamp: at},
		{ObjectMeta: metav1.ObjectMeta{Name: "p.2"}, Reason: "FailedAttachVolume", LastTimestamp: at},
		{ObjectMeta: metav1.ObjectMeta{Name: "p.0"}, Reason: "Scheduled", LastTimestamp: metav1.NewTime(at.Add(-time.Minute))},
	}
	reversed := slices.Clone(events)
	slices.Reverse(reversed)
	a, b := Latest(events), Latest(reversed)
	if a == nil || b == nil || a.Name != b.Name || a.Name != "p.1" {
		t.Errorf("Latest picked %v and %v in the two orders, want p.1 both times", a, b)
	}
}

// TestPullErrorIsTheSameAtEachAttempt: kubelet alternates ErrImagePull's error with ImagePullBackOff's
// `Back-off pulling image "x": ErrImagePull: <the same error>`; the component quotes the same text for both, so
// the status is not written at each of kubelet's attempts. A back-off message with no error of its own stays.
func TestPullErrorIsTheSameAtEachAttempt(t *testing.T) {
	const pull = `failed to pull and unpack image "registry.example/aim/x:1": unexpected status: 403 Forbidden`
	a, b := PullError("pod p", pull), PullError("pod p", `Back-off pulling image "registry.example/aim/x:1": ErrImagePull: `+pull)
	if a.Error() != b.Error() || ImagePullReason(pull) != ReasonImagePullAuthFailure {
		t.Errorf("pull and back-off differ:\n%v\n%v", a, b)
	}
	if got := PullError("pod p", `Back-off pulling image "registry.example/aim/x:1"`).Error(); !strings.Contains(got, "Back-off pulling image") {
		t.Errorf("a back-off without an error lost its text: %s", got)
	}
}

// TestScaledToZeroWithAnEvictedPod: a Ready InferenceService scaled to zero whose last pod was evicted and lingers
// is healthy, as with no pods at all.
func TestScaledToZeroWithAnEvictedPod(t *testing.T) {
	evicted := predictorPod("a", func(p *corev1.Pod) { p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted" })
	if st, reason, _ := state.Outcome(PredictorPods("Pods", []*corev1.Pod{evicted}, nil, nil, true)); st != aimv1.AIMStatusReady {
		t.Errorf("scaled to zero with an evicted pod: %s %s", st, reason)
	}
	if st, reason, _ := state.Outcome(PredictorPods("Pods", []*corev1.Pod{evicted}, nil, nil, false)); st != aimv1.AIMStatusDegraded || reason != "PodEvicted" {
		t.Errorf("an evicted pod, nothing serving: %s %s", st, reason)
	}
}
