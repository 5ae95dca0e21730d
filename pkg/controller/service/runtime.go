package service

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// HPAName is the HorizontalPodAutoscaler KEDA makes for an autoscaled InferenceService's predictor.
func HPAName(isvc string) string { return "keda-hpa-" + isvc + "-predictor" }

// Runtime is the replica summary, by the rule of kserve.ScaleOf; an autoscaled service's bounds and desired count
// are its HPA's once KEDA has made one. currentReplicas counts the ready predictor pods. replicas shows "N" (the
// ready replicas) when the bounds are equal, else "ready/desired (min-max)", as aim-engine's does.
func Runtime(svc *aimv1.AIMService, pods []*corev1.Pod, hpa *autoscalingv2.HorizontalPodAutoscaler) *aimv1.AIMServiceRuntimeStatus {
	ready := int32(0)
	for _, p := range pods {
		if health.Ready(p) {
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

// HPAComponent is the health of an autoscaled service's HPA (health.Autoscaler); nil when the service does not
// autoscale (no autoScaling, minReplicas or maxReplicas).
func HPAComponent(svc *aimv1.AIMService, hpa *autoscalingv2.HorizontalPodAutoscaler, isvcReady bool) *state.Component {
	if svc.Spec.AutoScaling == nil && svc.Spec.MinReplicas == nil && svc.Spec.MaxReplicas == nil {
		return nil
	}
	comp := health.Autoscaler(ComponentHPA, hpa, isvcReady)
	return &comp
}
