package aim

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// AIMStatus is the overall state of an AIM object, derived by the controller from its components.
type AIMStatus string

const (
	// AIMStatusPending: waiting for something the user references (a model, a template, a GPU node pool).
	AIMStatusPending AIMStatus = "Pending"
	// AIMStatusStarting: an AIMService whose workloads are being created.
	AIMStatusStarting AIMStatus = "Starting"
	// AIMStatusProgressing: the controller is creating or waiting for objects it owns.
	AIMStatusProgressing AIMStatus = "Progressing"
	// AIMStatusReady: every component is ready.
	AIMStatusReady AIMStatus = "Ready"
	// AIMStatusRunning: an AIMService whose inference endpoint serves.
	AIMStatusRunning AIMStatus = "Running"
	// AIMStatusDegraded: infrastructure errors have lasted longer than the grace period.
	AIMStatusDegraded AIMStatus = "Degraded"
	// AIMStatusFailed: an error the user must fix (invalid spec, missing reference, auth).
	AIMStatusFailed AIMStatus = "Failed"
	// AIMStatusNotAvailable: the required GPU is not present in the cluster.
	AIMStatusNotAvailable AIMStatus = "NotAvailable"
)

// AIMResolutionScope says where a referenced object was found.
type AIMResolutionScope string

const (
	AIMResolutionScopeNamespace AIMResolutionScope = "Namespace"
	AIMResolutionScopeCluster   AIMResolutionScope = "Cluster"
	AIMResolutionScopeMerged    AIMResolutionScope = "Merged"
	AIMResolutionScopeUnknown   AIMResolutionScope = "Unknown"
)

// AIMResolvedReference records which object the controller resolved a reference to.
type AIMResolvedReference struct {
	// name of the resolved object.
	Name string
	// namespace of the resolved object; empty for cluster-scoped objects.
	Namespace string
	// scope is where the object was found: Namespace, Cluster, Merged (a namespace object merged over a
	// cluster object) or Unknown.
	Scope AIMResolutionScope
	// kind of the resolved object, for example AIMClusterServiceTemplate.
	Kind string
	// uid of the resolved object at the time of resolution.
	UID types.UID
}

// AIMMetric is the optimisation goal of a runtime profile.
type AIMMetric string

const (
	AIMMetricLatency    AIMMetric = "latency"
	AIMMetricThroughput AIMMetric = "throughput"
)

// AIMPrecision is the numeric precision a profile runs the model in.
type AIMPrecision string

const (
	AIMPrecisionAuto AIMPrecision = "auto"
	AIMPrecisionFP4  AIMPrecision = "fp4"
	AIMPrecisionFP8  AIMPrecision = "fp8"
	AIMPrecisionFP16 AIMPrecision = "fp16"
	AIMPrecisionFP32 AIMPrecision = "fp32"
	AIMPrecisionBF16 AIMPrecision = "bf16"
	AIMPrecisionInt4 AIMPrecision = "int4"
	AIMPrecisionInt8 AIMPrecision = "int8"
)

// AIMProfileType says how well a runtime profile is tuned.
type AIMProfileType string

const (
	AIMProfileTypeOptimized   AIMProfileType = "optimized"
	AIMProfileTypePreview     AIMProfileType = "preview"
	AIMProfileTypeUnoptimized AIMProfileType = "unoptimized"
)

// DefaultGPUResourceName is the extended resource AMD's device plugin advertises.
const DefaultGPUResourceName = "amd.com/gpu"

// AIMRuntimeParameters select a runtime profile: what to optimise for, in which precision, on which hardware.
type AIMRuntimeParameters struct {
	// metric is the optimisation goal: latency or throughput. Immutable once set.
	Metric *AIMMetric
	// precision is the numeric precision: auto, fp4, fp8, fp16, fp32, bf16, int4 or int8. Immutable once set.
	Precision *AIMPrecision
	// hardware is the GPU and/or CPU the profile needs. Immutable once set.
	Hardware *AIMHardwareRequirements
}

// AIMHardwareRequirements describe the compute a workload needs. At least one of gpu and cpu is required.
type AIMHardwareRequirements struct {
	// gpu requirements; omit for CPU-only workloads.
	GPU *AIMGpuRequirements
	// cpu requirements; required when gpu is omitted.
	CPU *AIMCpuRequirements
}

// AIMGpuRequirements describe the GPUs a workload needs.
type AIMGpuRequirements struct {
	// requests is the number of GPUs per replica (requests equal limits). 0 with a model or minVram places the
	// workload on GPU nodes without consuming GPUs; 0 without either needs no GPU. On a template, the GPU count
	// discovery chose replaces it in status.resolvedHardware, which the InferenceService requests.
	Requests int32
	// model is the GPU model, for example MI300X or MI355X (at most 64 characters). Mutually exclusive with minVram.
	Model string
	// minVram is the minimum memory per GPU, for example 192Gi. Mutually exclusive with model.
	MinVRAM *Quantity
	// resourceName is the extended resource that counts GPUs on nodes. Defaults to amd.com/gpu.
	ResourceName string
}

// AIMCpuRequirements describe a CPU-only workload.
type AIMCpuRequirements struct {
	// requests is the CPU requested per replica by the templates of a model's custom hardware, which the model
	// writes into their resources; on a template's own hardware and in a service's overrides it sets no pod
	// resources (set resources instead).
	Requests Quantity
	// limits is the CPU limit per replica, where requests is applied; one below requests is stored with a warning.
	Limits *Quantity
}

// AIMModelSource is one set of model weights to download.
type AIMModelSource struct {
	// modelId identifies the model as org/name, for example meta-llama/Llama-3.1-8B. It names the cache
	// mount path /workspace/cache/<modelId>.
	ModelID string
	// sourceUri is where the weights come from: hf://org/name or s3://bucket/path.
	SourceURI string
	// size of the weights; when absent a check-size job measures it.
	WeightsSize *Quantity
	// env holds per-source settings such as credentials; it overrides cache-level env of the same name.
	Env []corev1.EnvVar
}

// AIMProfile is the runtime profile discovery selected for a template, or the one built from the spec for
// inline model sources.
type AIMProfile struct {
	// engine_args are the inference engine arguments of the profile, a JSON object.
	EngineArgs *JSON
	// env_vars are the environment variables of the discovery output, recorded only: the InferenceService does
	// not get them, as in aim-engine.
	EnvVars map[string]string
	// metadata describes the profile.
	Metadata AIMProfileMetadata
	// originalDiscoveryOutput is not written by aim-apiserver (nor by aim-engine); kept for compatibility.
	OriginalDiscoveryOutput *JSON
}

// AIMProfileMetadata describes a runtime profile.
type AIMProfileMetadata struct {
	// engine is the inference engine, for example vllm.
	Engine string
	// gpu is the GPU model the profile is tuned for.
	GPU string
	// gpuCount is the number of GPUs per replica.
	GPUCount int32
	// metric is the optimisation goal of the profile.
	Metric AIMMetric
	// precision of the profile.
	Precision AIMPrecision
	// type says how well the profile is tuned: optimized, preview or unoptimized.
	Type AIMProfileType
}

// AIMStorageConfig controls the volumes that hold downloaded models.
type AIMStorageConfig struct {
	// defaultStorageClassName is the storage class of model cache volumes; empty falls back to the runtime
	// config's (in a service's storage), then the cluster default.
	DefaultStorageClassName *string
	// pvcHeadroomPercent is extra space, in percent of the model size, added to cache volumes. Defaults to 10.
	PVCHeadroomPercent *int32
	// accessModes of model cache volumes. When no runtime config sets it, ReadWriteMany is used.
	AccessModes []corev1.PersistentVolumeAccessMode
}

// AIMGatewayParentReference names the Gateway API parent (usually a Gateway) an HTTPRoute attaches to.
// It has the shape of gateway.networking.k8s.io ParentReference.
type AIMGatewayParentReference struct {
	// group of the parent. Defaults to gateway.networking.k8s.io when unset.
	Group *string
	// kind of the parent. Defaults to Gateway when unset.
	Kind *string
	// namespace of the parent; defaults to the namespace of the route.
	Namespace *string
	// name of the parent.
	Name string
	// sectionName is the listener of the parent to attach to.
	SectionName *string
	// port of the parent listener to attach to.
	Port *int32
}

// AIMRuntimeRoutingConfig controls the HTTPRoute that exposes an inference endpoint through a Gateway.
type AIMRuntimeRoutingConfig struct {
	// enabled turns routing on or off.
	Enabled *bool
	// gatewayRef is the Gateway the HTTPRoute attaches to; required when routing is enabled.
	GatewayRef *AIMGatewayParentReference
	// pathTemplate renders the route path from the service with JSONPath expressions, for example
	// /{.metadata.namespace}/{.metadata.name}.
	PathTemplate *string
	// requestTimeout is the HTTPRoute rule timeout, for example 60s.
	RequestTimeout *Duration
	// annotations are copied onto the HTTPRoute.
	Annotations map[string]string
}

// Quantity is an amount as it was written (v1alpha1.Quantity).
type Quantity struct {
	Text   string
	Number bool
}

// Amount is the value as a resource.Quantity; zero when unset or when the text does not parse.
func (q Quantity) Amount() resource.Quantity {
	v, _ := resource.ParseQuantity(q.Text)
	return v
}

// ResourceList maps a resource name to its amount (v1alpha1.ResourceList).
type ResourceList map[corev1.ResourceName]Quantity

// ResourceRequirements are a container's compute resources (v1alpha1.ResourceRequirements).
type ResourceRequirements struct {
	Limits   ResourceList
	Requests ResourceList
	Claims   []corev1.ResourceClaim
}

// Duration is a length of time and the text it was written with (v1alpha1.Duration).
type Duration struct {
	Duration time.Duration
	Text     string
}

// JSON holds any JSON value, verbatim.
type JSON struct {
	Raw []byte
}
