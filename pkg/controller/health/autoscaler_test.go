package health

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// TestAutoscaler: aim-engine's HPAReady reasons, from KEDA's HPA conditions and the InferenceService's
// readiness.
func TestAutoscaler(t *testing.T) {
	hpa := func(conds ...autoscalingv2.HorizontalPodAutoscalerCondition) *autoscalingv2.HorizontalPodAutoscaler {
		return &autoscalingv2.HorizontalPodAutoscaler{Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: conds}}
	}
	cond := func(t autoscalingv2.HorizontalPodAutoscalerConditionType, st corev1.ConditionStatus) autoscalingv2.HorizontalPodAutoscalerCondition {
		return autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: st, Message: "the HPA says why"}
	}
	for _, tc := range []struct {
		name      string
		hpa       *autoscalingv2.HorizontalPodAutoscaler
		isvcReady bool
		want      string
	}{
		{"no HPA yet", nil, false, "Progressing/HPANotFound"},
		{"no metrics while the pods start", hpa(cond(autoscalingv2.ScalingActive, corev1.ConditionFalse)), false, "Progressing/WaitingForMetrics"},
		{"no metrics once the pods are Ready", hpa(cond(autoscalingv2.ScalingActive, corev1.ConditionFalse)), true, "Failed/MetricsFailed"},
		{"no ScalingActive once Ready", hpa(), true, "Failed/MetricsFailed"},
		{"cannot scale the target", hpa(cond(autoscalingv2.ScalingActive, corev1.ConditionTrue), cond(autoscalingv2.AbleToScale, corev1.ConditionFalse)), true,
			"Progressing/ScaleTargetNotReady"},
		{"scaling", hpa(cond(autoscalingv2.ScalingActive, corev1.ConditionTrue), cond(autoscalingv2.AbleToScale, corev1.ConditionTrue)), true,
			"Ready/HPAOperational"},
	} {
		c := Autoscaler("HPA", tc.hpa, tc.isvcReady)
		if c.Name != "HPA" {
			t.Fatalf("%s: component %+v", tc.name, c)
		}
		st, reason, _ := state.Outcome(c)
		if got := string(st) + "/" + reason; got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
