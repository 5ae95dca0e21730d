package kserve

import (
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
)

// Scale is how many predictor replicas a service runs. It is decided here only, for the InferenceService and
// for the service's status.runtime alike, by aim-engine's rule: autoscaled by KEDA when any of autoScaling,
// minReplicas and maxReplicas is set, between Min (minReplicas, else 1) and Max (maxReplicas, else Min);
// otherwise a fixed count, Min = Max = replicas (else 1).
type Scale struct {
	Autoscaled bool
	Min, Max   int32
}

// ScaleOf decides the Scale of a service spec.
func ScaleOf(spec *aimv1.AIMServiceSpec) Scale {
	if spec.Autoscaled() {
		minR := ptr.Deref(spec.MinReplicas, 1)
		return Scale{Autoscaled: true, Min: minR, Max: ptr.Deref(spec.MaxReplicas, minR)}
	}
	n := ptr.Deref(spec.Replicas, aimv1.DefaultReplicas)
	return Scale{Min: n, Max: n}
}

// KServe's suffix of a predictor's name, and KEDA's prefix of the HorizontalPodAutoscaler it makes for one.
const (
	predictorSuffix = "-predictor"
	hpaPrefix       = "keda-hpa-"
)

// ScaleFields are the InferenceService's fields that only scale it, which an apply leaves out of the hash of its
// applied fields (reconcile.PrepareApply's unhashed) while it still applies and compares them. KServe copies an
// InferenceService's annotations into its predictor's pod template: a hash that moved with the replica counts or
// the autoscaling targets would restart every predictor pod (each loading the model onto its GPUs again) for a
// change that only scales, which aim-engine's InferenceService does not.
func ScaleFields() [][]string {
	return [][]string{{"spec", "predictor", "minReplicas"}, {"spec", "predictor", "maxReplicas"}, {"spec", "predictor", "autoScaling"}}
}

// HPAName is the HorizontalPodAutoscaler KEDA makes for an autoscaled InferenceService's predictor.
func HPAName(isvc string) string { return hpaPrefix + PredictorName(isvc) }

// OfHPA is the InferenceService whose predictor the HorizontalPodAutoscaler of that name scales (HPAName).
func OfHPA(name string) (string, bool) {
	predictor, isHPA := strings.CutPrefix(name, hpaPrefix)
	isvc, isPredictor := strings.CutSuffix(predictor, predictorSuffix)
	if !isHPA || !isPredictor || isvc == "" {
		return "", false
	}
	return isvc, true
}

// PredictorName is KServe's name of an InferenceService's predictor: its Deployment (whose ReplicaSets are
// <predictor>-<pod-template-hash>), Service and HPA target.
func PredictorName(isvc string) string { return isvc + predictorSuffix }

// OfPredictorReplicaSet is the InferenceService a ReplicaSet of its predictor belongs to, by name: the part before
// the last "-predictor-" (<isvc>-predictor-<hash>, or a Knative revision's <isvc>-predictor-00001-deployment-<hash>).
func OfPredictorReplicaSet(name string) (string, bool) {
	i := strings.LastIndex(name, predictorSuffix+"-")
	return name[:max(i, 0)], i > 0
}

// RuntimeStatus is a service's replica summary, by the rule of ScaleOf; an autoscaled service's bounds and desired count
// are its HPA's once KEDA has made one. currentReplicas counts the ready predictor pods. replicas shows "N" (the
// ready replicas) when the bounds are equal, else "ready/desired (min-max)", as aim-engine's does.
func RuntimeStatus(spec *aimv1.AIMServiceSpec, pods []*corev1.Pod, hpa *autoscalingv2.HorizontalPodAutoscaler) *aimv1.AIMServiceRuntimeStatus {
	ready := int32(0)
	for _, p := range pods {
		if health.Ready(p) {
			ready++
		}
	}
	scale := ScaleOf(spec)
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
