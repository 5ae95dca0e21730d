package jobhealth

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
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

func TestComponent(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name       string
		pods       []*corev1.Pod
		events     []corev1.Event
		wantState  aimv1.AIMStatus
		wantReason string
	}{
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
		{"disk full", []*corev1.Pod{pod(corev1.PodFailed, terminated("Error", "OSError: [Errno 28] No space left on device", 1))}, nil,
			aimv1.AIMStatusFailed, ReasonStorageFull},
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
			if got == nil || got.Reason != tc.wantReason {
				t.Fatalf("condition %+v, want reason %s", got, tc.wantReason)
			}
			if st := componentState(c); st != tc.wantState {
				t.Errorf("state %s, want %s", st, tc.wantState)
			}
		})
	}
}

// componentState is the state Derive gives the component alone, outside any grace period.
func componentState(c state.Component) aimv1.AIMStatus {
	if c.State != "" {
		return c.State
	}
	switch state.Categorize(c.Errors[0]) {
	case state.Infrastructure:
		return aimv1.AIMStatusDegraded
	}
	return aimv1.AIMStatusFailed
}
