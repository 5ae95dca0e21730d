package aim

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Defaults that admission advice reads as well as the controller: the versioned API applies them on decode
// (+default markers) and names them (v1alpha1.DefaultReplicas), so a value equal to one may be the default
// rather than something the user wrote.
const (
	DefaultReplicas           int32 = 1
	DefaultPVCHeadroomPercent int32 = 10
)

// GPUDefaults are the inference container's CPU and memory for gpus GPUs, before the template's resources and the
// service's are laid over them key by key (kserve's resources, aim-engine's defaultResourceRequirementsForGPU):
// 4 CPUs and 32Gi of memory requested and a memory limit of 48Gi, per GPU; none without GPUs.
func GPUDefaults(gpus int64) (requests, limits corev1.ResourceList) {
	if gpus <= 0 {
		return nil, nil
	}
	const gi = 1 << 30
	return corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(4*gpus, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(32*gi*gpus, resource.BinarySI),
		}, corev1.ResourceList{
			corev1.ResourceMemory: *resource.NewQuantity(48*gi*gpus, resource.BinarySI),
		}
}
