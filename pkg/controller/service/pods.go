package service

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/jobhealth"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// PodsComponent reports the predictor pods from their container states and the latest Warning event about
// each pod. Image pulls are judged by jobhealth.PullError (a refused credential or a missing image Failed, other
// pull failures Degraded); crashes and OOM kills make the component Degraded; scheduling problems keep it Pending.
func PodsComponent(pods []*corev1.Pod, events []corev1.Event, isvcReady bool) state.Component {
	comp := state.Component{Name: ComponentPods, Dependency: state.DependencyDownstream}
	if len(pods) == 0 {
		if isvcReady {
			return comp
		}
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "NoPods", "no predictor pods yet"
		return comp
	}
	byPod := map[string][]corev1.Event{}
	for _, e := range events {
		byPod[e.InvolvedObject.Name] = append(byPod[e.InvolvedObject.Name], e)
	}
	ready := 0
	for _, p := range sortedPods(pods) {
		if problem := podProblem(p, byPod[p.Name]); problem != nil {
			return *problem
		}
		if jobhealth.Ready(p) {
			ready++
		}
	}
	if ready == len(pods) {
		comp.Reason = "PodsReady"
		return comp
	}
	comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "PodsStarting", fmt.Sprintf("%d of %d pods ready", ready, len(pods))
	return comp
}

func podProblem(p *corev1.Pod, events []corev1.Event) *state.Component {
	bad := func(st aimv1.AIMStatus, reason, msg string) *state.Component {
		// msg is kubelet's or an Event's text, which may quote a registry's answer.
		return &state.Component{Name: ComponentPods, Dependency: state.DependencyDownstream, State: st, Reason: reason,
			Message: fmt.Sprintf("pod %s: %s", p.Name, redact.Excerpt(msg, redact.DefaultLimit))}
	}
	// Image pulls are judged as every pod's are (jobhealth.PullError), so that one registry answer gives one
	// reason and one state everywhere, as the reference does.
	pullFailed := func(msg string) *state.Component {
		return &state.Component{Name: ComponentPods, Dependency: state.DependencyDownstream,
			Errors: []error{jobhealth.PullError(fmt.Sprintf("pod %s: %s", p.Name, msg))}}
	}
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "ImagePullBackOff", "ErrImagePull":
				return pullFailed(cmp.Or(w.Message, w.Reason+" for "+cs.Image))
			case "InvalidImageName", "ErrImageNeverPull":
				return bad(aimv1.AIMStatusDegraded, w.Reason, cmp.Or(w.Message, w.Reason+" for "+cs.Image))
			case "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError":
				msg := cmp.Or(w.Message, w.Reason)
				if t := cs.LastTerminationState.Terminated; t != nil && t.Reason == "OOMKilled" {
					return bad(aimv1.AIMStatusDegraded, "PodOOMKilled", "container "+cs.Name+" was killed for running out of memory")
				}
				return bad(aimv1.AIMStatusDegraded, w.Reason, msg)
			}
		}
		if t := cs.State.Terminated; t != nil && t.Reason == "OOMKilled" {
			return bad(aimv1.AIMStatusDegraded, "PodOOMKilled", "container "+cs.Name+" was killed for running out of memory")
		}
	}
	switch {
	case p.Status.Phase == corev1.PodFailed && p.Status.Reason == "Evicted":
		return bad(aimv1.AIMStatusDegraded, "PodEvicted", cmp.Or(p.Status.Message, "evicted"))
	case p.Status.Phase == corev1.PodFailed:
		return bad(aimv1.AIMStatusDegraded, "PodFailed", cmp.Or(p.Status.Message, "failed"))
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return bad(aimv1.AIMStatusPending, "FailedScheduling", cmp.Or(c.Message, "unschedulable"))
		}
	}
	if p.Status.Phase == corev1.PodPending {
		if e := jobhealth.Latest(events); e != nil {
			switch {
			case slices.Contains(jobhealth.PendingEvents, e.Reason):
				return bad(aimv1.AIMStatusPending, e.Reason, e.Message)
			case (e.Reason == "Failed" || e.Reason == "BackOff") && strings.Contains(e.Message, "pull"):
				return pullFailed(e.Message)
			}
		}
	}
	return nil
}

func sortedPods(pods []*corev1.Pod) []*corev1.Pod {
	out := slices.Clone(pods)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HPAName is the HorizontalPodAutoscaler KEDA makes for an autoscaled InferenceService's predictor.
func HPAName(isvc string) string { return "keda-hpa-" + isvc + "-predictor" }

// Runtime is the replica summary, by the rule of kserve.ScaleOf; an autoscaled service's bounds and desired count
// are its HPA's once KEDA has made one. currentReplicas counts the ready predictor pods. replicas shows "N" (the
// ready replicas) when the bounds are equal, else "ready/desired (min-max)", as aim-engine's does.
func Runtime(svc *aimv1.AIMService, pods []*corev1.Pod, hpa *autoscalingv2.HorizontalPodAutoscaler) *aimv1.AIMServiceRuntimeStatus {
	ready := int32(0)
	for _, p := range pods {
		if jobhealth.Ready(p) {
			ready++
		}
	}
	scale := kserve.ScaleOf(&svc.Spec)
	r := &aimv1.AIMServiceRuntimeStatus{CurrentReplicas: ready, MinReplicas: scale.Min, MaxReplicas: scale.Max, DesiredReplicas: scale.Min}
	if scale.Autoscaled && hpa != nil {
		r.MinReplicas, r.MaxReplicas = ptr.Deref(hpa.Spec.MinReplicas, r.MinReplicas), hpa.Spec.MaxReplicas
		r.DesiredReplicas = r.MinReplicas // until the HPA has computed a count
		if hpa.Status.DesiredReplicas > 0 {
			r.DesiredReplicas = hpa.Status.DesiredReplicas
		}
	}
	if r.MinReplicas == r.MaxReplicas {
		r.Replicas = fmt.Sprintf("%d", ready)
	} else {
		r.Replicas = fmt.Sprintf("%d/%d (%d-%d)", ready, r.DesiredReplicas, r.MinReplicas, r.MaxReplicas)
	}
	return r
}

// ComponentHPA reports KEDA's HorizontalPodAutoscaler of an autoscaled service; its condition is HPAReady.
const ComponentHPA = "HPA"

// HPAComponent is the health of an autoscaled service's HPA, as aim-engine reads it; nil when the service does
// not autoscale (no autoScaling, minReplicas or maxReplicas). KEDA makes the HPA after the InferenceService;
// until its pods are Ready, metrics missing are expected (WaitingForMetrics), after that they are a failure.
func HPAComponent(svc *aimv1.AIMService, hpa *autoscalingv2.HorizontalPodAutoscaler, isvcReady bool) *state.Component {
	if svc.Spec.AutoScaling == nil && svc.Spec.MinReplicas == nil && svc.Spec.MaxReplicas == nil {
		return nil
	}
	comp := &state.Component{Name: ComponentHPA, Dependency: state.DependencyDownstream}
	if hpa == nil {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "HPANotFound", "Waiting for KEDA to create HorizontalPodAutoscaler"
		return comp
	}
	active, able := hpaCondition(hpa, autoscalingv2.ScalingActive), hpaCondition(hpa, autoscalingv2.AbleToScale)
	switch {
	case (active == nil || active.Status != corev1.ConditionTrue) && !isvcReady:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "WaitingForMetrics",
			"Waiting for InferenceService to be ready before metrics are available"
	case active == nil:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, "MetricsFailed", "HPA ScalingActive condition not found"
	case active.Status != corev1.ConditionTrue:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, "MetricsFailed", "HPA cannot get metrics: "+active.Message
	case able != nil && able.Status != corev1.ConditionTrue:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "ScaleTargetNotReady", "HPA cannot update scale target: "+able.Message
	default:
		comp.Reason, comp.Message = "HPAOperational", "HorizontalPodAutoscaler is actively scaling"
	}
	return comp
}

func hpaCondition(hpa *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range hpa.Status.Conditions {
		if hpa.Status.Conditions[i].Type == t {
			return &hpa.Status.Conditions[i]
		}
	}
	return nil
}
