// Package kserve builds the KServe InferenceService of an AIMService. It and pkg/controller/service, which reads
// InferenceServices as Go structs, are the only packages that import KServe's Go types, which pin the Kubernetes
// libraries (docs/design.md D3).
package kserve

import (
	"path"
	"strings"

	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// Fixed parts of every inference pod (docs/design.md D12, AMD GPU placement).
const (
	ContainerName = "kserve-container"
	PortName      = "http"
	Port          = 8000
	CacheRoot     = "/workspace/cache"

	shmVolume = "dshm"
	shmPath   = "/dev/shm"

	annotationAutoscalerClass = "serving.kserve.io/autoscalerClass"
	annotationOtelInject      = "sidecar.opentelemetry.io/inject"
	annotationPrometheusPort  = "prometheus.kserve.io/port"
)

var shmSize = resource.MustParse("8Gi")

// CacheMount is a ready artifact the service mounts.
type CacheMount struct {
	// ModelID names the mount path /workspace/cache/<modelId>.
	ModelID string
	// Volume is the volume name; PVC the claim holding the weights.
	Volume, PVC string
}

// Input is what an InferenceService is built from; everything is already resolved.
type Input struct {
	Name, Namespace string
	// Owner is the AIMService; the InferenceService is its controlled child.
	Owner       metav1.OwnerReference
	Labels      map[string]string
	Annotations map[string]string

	Image string
	// GPUs per replica and the resource that counts them; 0 runs on CPU (or on GPU nodes without GPUs).
	GPUs         int32
	GPUResource  corev1.ResourceName
	NodeAffinity *corev1.NodeAffinity
	Scheduling   *aimv1.AIMSchedulingConfig
	// Env is the merged environment (runtime config, template, service), without duplicates.
	Env []corev1.EnvVar
	// TemplateResources and ServiceResources overlay the per-GPU defaults, in that order, key by key.
	TemplateResources, ServiceResources *corev1.ResourceRequirements
	ImagePullSecrets                    []corev1.LocalObjectReference
	ServiceAccountName                  string

	Scale Scale
	// AutoScaling holds the KEDA metrics of an autoscaled service.
	AutoScaling *aimv1.AIMServiceAutoScaling

	Caches []CacheMount
}

// Build returns the InferenceService of a service. It is pure: equal inputs give equal objects.
func Build(in Input) *kservev1beta1.InferenceService {
	owner := in.Owner
	owner.Controller, owner.BlockOwnerDeletion = ptr.To(true), ptr.To(true)
	isvc := &kservev1beta1.InferenceService{
		TypeMeta: metav1.TypeMeta{APIVersion: kservev1beta1.SchemeGroupVersion.String(), Kind: "InferenceService"},
		ObjectMeta: metav1.ObjectMeta{
			Name: in.Name, Namespace: in.Namespace, Labels: copyMap(in.Labels), Annotations: copyMap(in.Annotations),
			OwnerReferences: []metav1.OwnerReference{owner},
		},
	}
	if isvc.Annotations == nil {
		isvc.Annotations = map[string]string{}
	}
	p := &isvc.Spec.Predictor
	// KServe's maxReplicas omits 0: a fixed count of 0 reaches KServe as minReplicas 0 alone, as aim-engine's does.
	p.MinReplicas, p.MaxReplicas = ptr.To(in.Scale.Min), in.Scale.Max
	if in.Scale.Autoscaled {
		isvc.Annotations[annotationAutoscalerClass] = "keda"
		isvc.Annotations[annotationOtelInject] = PredictorName(in.Name)
		isvc.Annotations[annotationPrometheusPort] = "8000"
		// spec.autoScaling without metrics is autoScaling: {}, as aim-engine converts it.
		if in.AutoScaling != nil {
			p.AutoScaling = &kservev1beta1.AutoScalingSpec{Metrics: metrics(in.AutoScaling.Metrics)}
		}
	} else {
		isvc.Annotations[annotationAutoscalerClass] = "none"
	}

	volumes := []corev1.Volume{{Name: shmVolume, VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(shmSize.DeepCopy())}}}}
	mounts := []corev1.VolumeMount{{Name: shmVolume, MountPath: shmPath}}
	for _, c := range in.Caches {
		volumes = append(volumes, corev1.Volume{Name: c.Volume, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.PVC}}})
		mounts = append(mounts, corev1.VolumeMount{Name: c.Volume, MountPath: CacheMountPath(c.ModelID)})
	}

	p.Containers = []corev1.Container{{
		Name:         ContainerName,
		Image:        in.Image,
		Ports:        []corev1.ContainerPort{{Name: PortName, ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
		Env:          in.Env,
		Resources:    resources(in),
		VolumeMounts: mounts,
	}}
	p.Volumes = volumes
	p.ImagePullSecrets = in.ImagePullSecrets
	p.ServiceAccountName = in.ServiceAccountName
	if in.NodeAffinity != nil {
		p.Affinity = &corev1.Affinity{NodeAffinity: in.NodeAffinity.DeepCopy()}
	}
	if s := in.Scheduling; s != nil {
		p.Tolerations = append([]corev1.Toleration(nil), s.Tolerations...)
		p.NodeSelector = copyMap(s.NodeSelector)
		if s.PriorityClassName != nil {
			p.PriorityClassName = *s.PriorityClassName
		}
	}
	return isvc
}

// CacheMountPath is where a model's weights appear in the inference container.
func CacheMountPath(modelID string) string {
	return path.Join(CacheRoot, strings.ReplaceAll(modelID, "..", ""))
}

// resources are the per-GPU defaults (aim.GPUDefaults) overlaid by the template's, then the service's, key by key.
func resources(in Input) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	if in.GPUs > 0 {
		gpu := in.GPUResource
		if gpu == "" {
			gpu = corev1.ResourceName(aimv1.DefaultGPUResourceName)
		}
		n := int64(in.GPUs)
		r.Requests, r.Limits = aim.GPUDefaults(n)
		r.Requests[gpu] = *resource.NewQuantity(n, resource.DecimalSI)
		r.Limits[gpu] = *resource.NewQuantity(n, resource.DecimalSI)
	}
	for _, over := range []*corev1.ResourceRequirements{in.TemplateResources, in.ServiceResources} {
		if over == nil {
			continue
		}
		for k, v := range over.Requests {
			r.Requests[k] = v.DeepCopy()
		}
		for k, v := range over.Limits {
			r.Limits[k] = v.DeepCopy()
		}
	}
	if len(r.Requests) == 0 {
		r.Requests = nil
	}
	if len(r.Limits) == 0 {
		r.Limits = nil
	}
	return r
}

// metrics converts the service's autoscaling metrics one to one.
func metrics(ms []aimv1.AIMServiceMetricSpec) []kservev1beta1.MetricsSpec {
	var out []kservev1beta1.MetricsSpec
	for _, m := range ms {
		if m.PodMetric == nil || m.PodMetric.Metric == nil {
			continue // validation requires both; nothing to scale on without them
		}
		pm := m.PodMetric
		target := kservev1beta1.MetricTarget{Type: kservev1beta1.MetricTargetType(pm.Target.Type), AverageUtilization: pm.Target.AverageUtilization}
		if pm.Target.Value != "" {
			target.Value = kservev1beta1.NewMetricQuantity(pm.Target.Value)
		}
		if pm.Target.AverageValue != "" {
			target.AverageValue = kservev1beta1.NewMetricQuantity(pm.Target.AverageValue)
		}
		out = append(out, kservev1beta1.MetricsSpec{
			Type: kservev1beta1.PodMetricSourceType,
			PodMetric: &kservev1beta1.PodMetricSource{
				Metric: kservev1beta1.PodMetrics{Backend: kservev1beta1.PodsMetricsBackend(pm.Metric.Backend), ServerAddress: pm.Metric.ServerAddress,
					MetricNames: pm.Metric.MetricNames, Query: pm.Metric.Query, OperationOverTime: pm.Metric.OperationOverTime},
				Target: target,
			},
		})
	}
	return out
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Resource is the InferenceService resource, for dynamic clients and informers.
var Resource = kservev1beta1.SchemeGroupVersion.WithResource("inferenceservices")

// NewObject is an empty InferenceService, the Go type the controller caches InferenceServices as.
func NewObject() runtime.Object { return &kservev1beta1.InferenceService{} }

// Live is what the controller reads back from a live InferenceService.
type Live struct {
	// Ready, and if not, why (its Ready condition).
	Ready           bool
	Reason, Message string
	// CacheMounts are the cache volumes it mounts now.
	CacheMounts []CacheMount
	// Address is the URL it answers at inside the cluster (status.address.url), "" until KServe reports it.
	Address string
}

// Observe reads what the controller needs of a live InferenceService: readiness, the cache mounts and its address.
func Observe(isvc *kservev1beta1.InferenceService) Live {
	var live Live
	if a := isvc.Status.Address; a != nil && a.URL != nil {
		live.Address = a.URL.String()
	}
	for _, c := range isvc.Status.Conditions {
		if c.Type == "Ready" {
			live.Ready, live.Reason, live.Message = c.Status == corev1.ConditionTrue, c.Reason, c.Message
		}
	}
	claims := map[string]string{}
	for _, v := range isvc.Spec.Predictor.Volumes {
		if v.PersistentVolumeClaim != nil {
			claims[v.Name] = v.PersistentVolumeClaim.ClaimName
		}
	}
	for _, c := range isvc.Spec.Predictor.Containers {
		if c.Name != ContainerName {
			continue
		}
		for _, m := range c.VolumeMounts {
			if pvc, ok := claims[m.Name]; ok && strings.HasPrefix(m.MountPath, CacheRoot+"/") {
				live.CacheMounts = append(live.CacheMounts, CacheMount{ModelID: strings.TrimPrefix(m.MountPath, CacheRoot+"/"), Volume: m.Name, PVC: pvc})
			}
		}
	}
	return live
}
