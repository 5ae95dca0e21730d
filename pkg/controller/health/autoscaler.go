package health

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Reasons of an autoscaler component (aim-engine's HPAReady).
const (
	ReasonHPANotFound         = "HPANotFound"
	ReasonWaitingForMetrics   = "WaitingForMetrics"
	ReasonMetricsFailed       = "MetricsFailed"
	ReasonScaleTargetNotReady = "ScaleTargetNotReady"
	ReasonHPAOperational      = "HPAOperational"
)

// Autoscaler reports KEDA's HorizontalPodAutoscaler of an autoscaled InferenceService as the component name, as
// aim-engine reads it; a nil hpa is not made yet. KEDA makes the HPA after the InferenceService; until its pods
// are Ready, metrics missing are expected (WaitingForMetrics), after that they are a failure.
func Autoscaler(name string, hpa *autoscalingv2.HorizontalPodAutoscaler, isvcReady bool) state.Component {
	comp := state.Component{Name: name, Dependency: state.DependencyDownstream}
	if hpa == nil {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonHPANotFound, "Waiting for KEDA to create HorizontalPodAutoscaler"
		return comp
	}
	active, able := hpaCondition(hpa, autoscalingv2.ScalingActive), hpaCondition(hpa, autoscalingv2.AbleToScale)
	switch {
	case (active == nil || active.Status != corev1.ConditionTrue) && !isvcReady:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonWaitingForMetrics,
			"Waiting for InferenceService to be ready before metrics are available"
	case active == nil:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, ReasonMetricsFailed, "HPA ScalingActive condition not found"
	case active.Status != corev1.ConditionTrue:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, ReasonMetricsFailed, "HPA cannot get metrics: "+active.Message
	case able != nil && able.Status != corev1.ConditionTrue:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonScaleTargetNotReady, "HPA cannot update scale target: "+able.Message
	default:
		comp.Reason, comp.Message = ReasonHPAOperational, "HorizontalPodAutoscaler is actively scaling"
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
