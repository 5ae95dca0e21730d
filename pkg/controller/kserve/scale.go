package kserve

import (
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
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
	if spec.AutoScaling != nil || spec.MinReplicas != nil || spec.MaxReplicas != nil {
		minR := ptr.Deref(spec.MinReplicas, 1)
		return Scale{Autoscaled: true, Min: minR, Max: ptr.Deref(spec.MaxReplicas, minR)}
	}
	n := ptr.Deref(spec.Replicas, aimv1.DefaultReplicas)
	return Scale{Min: n, Max: n}
}
