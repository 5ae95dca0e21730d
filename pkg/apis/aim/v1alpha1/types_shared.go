package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
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
// +enum
type AIMResolutionScope string

const (
	// AIMResolutionScopeNamespace means the namespaced object of the name was found.
	AIMResolutionScopeNamespace AIMResolutionScope = "Namespace"
	// AIMResolutionScopeCluster means the cluster-scoped object of the name was found.
	AIMResolutionScopeCluster AIMResolutionScope = "Cluster"
	// AIMResolutionScopeMerged means a namespaced object was laid over the cluster object of the same name.
	AIMResolutionScopeMerged AIMResolutionScope = "Merged"
	// AIMResolutionScopeUnknown means where the object was found is not known.
	AIMResolutionScopeUnknown AIMResolutionScope = "Unknown"
)

// AIMResolvedReference records which object the controller resolved a reference to.
type AIMResolvedReference struct {
	// name of the resolved object.
	// +required
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// namespace of the resolved object; empty for cluster-scoped objects.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// scope is where the object was found: Namespace, Cluster, Merged (a namespace object merged over a
	// cluster object) or Unknown.
	// +optional
	Scope AIMResolutionScope `json:"scope,omitempty" protobuf:"bytes,3,opt,name=scope,casttype=AIMResolutionScope"`
	// kind of the resolved object, for example AIMClusterServiceTemplate.
	// +optional
	Kind string `json:"kind,omitempty" protobuf:"bytes,4,opt,name=kind"`
	// uid of the resolved object at the time of resolution.
	// +optional
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
}

// AIMMetric is the optimisation goal of a runtime profile.
// +enum
type AIMMetric string

const (
	AIMMetricLatency    AIMMetric = "latency"
	AIMMetricThroughput AIMMetric = "throughput"
)

// AIMPrecision is the numeric precision a profile runs the model in.
// +enum
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
// +enum
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
	// +optional
	Metric *AIMMetric `json:"metric,omitempty" protobuf:"bytes,1,opt,name=metric,casttype=AIMMetric"`
	// precision is the numeric precision: auto, fp4, fp8, fp16, fp32, bf16, int4 or int8. Immutable once set.
	// +optional
	Precision *AIMPrecision `json:"precision,omitempty" protobuf:"bytes,2,opt,name=precision,casttype=AIMPrecision"`
	// hardware is the GPU and/or CPU the profile needs. Immutable once set.
	// +optional
	Hardware *AIMHardwareRequirements `json:"hardware,omitempty" protobuf:"bytes,3,opt,name=hardware"`
}

// AIMHardwareRequirements describe the compute a workload needs. At least one of gpu and cpu is required.
// +k8s:validation:minProperties=1
type AIMHardwareRequirements struct {
	// gpu requirements; omit for CPU-only workloads.
	// +optional
	GPU *AIMGpuRequirements `json:"gpu,omitempty" protobuf:"bytes,1,opt,name=gpu"`
	// cpu requirements; required when gpu is omitted.
	// +optional
	CPU *AIMCpuRequirements `json:"cpu,omitempty" protobuf:"bytes,2,opt,name=cpu"`
}

// AIMGpuRequirements describe the GPUs a workload needs.
type AIMGpuRequirements struct {
	// requests is the number of GPUs per replica (requests equal limits). 0 with a model or minVram places the
	// workload on GPU nodes without consuming GPUs; 0 without either needs no GPU. On a template, the GPU count
	// discovery chose replaces it in status.resolvedHardware, which the InferenceService requests.
	// +optional
	// +k8s:validation:minimum=0
	Requests int32 `json:"requests,omitempty" protobuf:"varint,1,opt,name=requests"`
	// model is the GPU model, for example MI300X or MI355X (at most 64 characters). Mutually exclusive with minVram.
	// +optional
	// +k8s:validation:maxLength=64
	Model string `json:"model,omitempty" protobuf:"bytes,2,opt,name=model"`
	// minVram is the minimum memory per GPU, for example 192Gi. Mutually exclusive with model.
	// +optional
	MinVRAM *Quantity `json:"minVram,omitempty" protobuf:"bytes,3,opt,name=minVram"`
	// resourceName is the extended resource that counts GPUs on nodes. Defaults to amd.com/gpu.
	// +optional
	// +default="amd.com/gpu"
	ResourceName string `json:"resourceName,omitempty" protobuf:"bytes,4,opt,name=resourceName"`
}

// AIMCpuRequirements describe a CPU-only workload.
type AIMCpuRequirements struct {
	// requests is the CPU requested per replica by the templates of a model's custom hardware, which the model
	// writes into their resources; on a template's own hardware and in a service's overrides it sets no pod
	// resources (set resources instead).
	// +required
	Requests Quantity `json:"requests" protobuf:"bytes,1,opt,name=requests"`
	// limits is the CPU limit per replica, where requests is applied; one below requests is stored with a warning.
	// +optional
	Limits *Quantity `json:"limits,omitempty" protobuf:"bytes,2,opt,name=limits"`
}

// ResourceRequirements are the compute resources of a container, as corev1.ResourceRequirements, with each
// amount read back as it was written (D17).
type ResourceRequirements struct {
	// limits are the most of each resource the container may use, for example cpu: 8 or memory: 64Gi.
	// +optional
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits,casttype=ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
	// requests are the least of each resource the container needs; the scheduler places it by them. A request
	// left out is the per-GPU default when GPUs are requested (4 CPUs and 32Gi of memory per GPU), else its limit.
	// +optional
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests,casttype=ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
	// claims name the entries of the pod's resourceClaims (dynamic resource allocation) that the container uses.
	// +optional
	// +listType=map
	// +listMapKey=name
	Claims []corev1.ResourceClaim `json:"claims,omitempty" protobuf:"bytes,3,rep,name=claims"`
}

// AIMModelSource is one set of model weights to download.
type AIMModelSource struct {
	// modelId identifies the model as org/name, for example meta-llama/Llama-3.1-8B. It names the cache
	// mount path /workspace/cache/<modelId>.
	// +required
	// +k8s:validation:pattern="^[a-zA-Z0-9_-]+/[a-zA-Z0-9._-]+$"
	ModelID string `json:"modelId" protobuf:"bytes,1,opt,name=modelId"`
	// sourceUri is where the weights come from: hf://org/name or s3://bucket/path.
	// +required
	// +k8s:validation:pattern="^(hf|s3)://[^ \\t\\r\\n]+$"
	SourceURI string `json:"sourceUri" protobuf:"bytes,2,opt,name=sourceUri"`
	// size of the weights; when absent a check-size job measures it.
	// +optional
	WeightsSize *Quantity `json:"size,omitempty" protobuf:"bytes,3,opt,name=size"`
	// env holds per-source settings such as credentials; it overrides cache-level env of the same name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,4,rep,name=env"`
}

// AIMProfile is the runtime profile discovery selected for a template, or the one built from the spec for
// inline model sources.
type AIMProfile struct {
	// engine_args are the inference engine arguments of the profile, a JSON object.
	// +optional
	EngineArgs *JSON `json:"engine_args,omitempty" protobuf:"bytes,1,opt,name=engine_args,json=engineArgs"`
	// env_vars are the environment variables of the discovery output, recorded only: the InferenceService does
	// not get them, as in aim-engine.
	// +optional
	EnvVars map[string]string `json:"env_vars,omitempty" protobuf:"bytes,2,rep,name=env_vars,json=envVars"`
	// metadata describes the profile.
	// +optional
	Metadata AIMProfileMetadata `json:"metadata,omitempty" protobuf:"bytes,3,opt,name=metadata"`
	// originalDiscoveryOutput is not written by aim-apiserver (nor by aim-engine); kept for compatibility.
	// +optional
	OriginalDiscoveryOutput *JSON `json:"originalDiscoveryOutput,omitempty" protobuf:"bytes,4,opt,name=originalDiscoveryOutput"`
}

// AIMProfileMetadata describes a runtime profile.
type AIMProfileMetadata struct {
	// engine is the inference engine, for example vllm.
	// +optional
	Engine string `json:"engine,omitempty" protobuf:"bytes,1,opt,name=engine"`
	// gpu is the GPU model the profile is tuned for.
	// +optional
	GPU string `json:"gpu,omitempty" protobuf:"bytes,2,opt,name=gpu"`
	// gpuCount is the number of GPUs per replica.
	// +optional
	// +k8s:validation:minimum=0
	GPUCount int32 `json:"gpuCount,omitempty" protobuf:"varint,3,opt,name=gpuCount"`
	// metric is the optimisation goal of the profile.
	// +optional
	Metric AIMMetric `json:"metric,omitempty" protobuf:"bytes,4,opt,name=metric,casttype=AIMMetric"`
	// precision of the profile.
	// +optional
	Precision AIMPrecision `json:"precision,omitempty" protobuf:"bytes,5,opt,name=precision,casttype=AIMPrecision"`
	// type says how well the profile is tuned: optimized, preview or unoptimized.
	// +optional
	Type AIMProfileType `json:"type,omitempty" protobuf:"bytes,6,opt,name=type,casttype=AIMProfileType"`
}

// AIMStorageConfig controls the volumes that hold downloaded models.
type AIMStorageConfig struct {
	// defaultStorageClassName is the storage class of model cache volumes; empty falls back to the runtime
	// config's (in a service's storage), then the cluster default.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	DefaultStorageClassName *string `json:"defaultStorageClassName,omitempty" protobuf:"bytes,1,opt,name=defaultStorageClassName"`
	// pvcHeadroomPercent is extra space, in percent of the model size, added to cache volumes. Defaults to 10.
	// +optional
	// +k8s:validation:minimum=0
	PVCHeadroomPercent *int32 `json:"pvcHeadroomPercent,omitempty" protobuf:"varint,2,opt,name=pvcHeadroomPercent"`
	// accessModes of model cache volumes. When no runtime config sets it, ReadWriteMany is used.
	// +optional
	// +listType=atomic
	AccessModes []corev1.PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,3,rep,name=accessModes,casttype=k8s.io/api/core/v1.PersistentVolumeAccessMode"`
}

// AIMGatewayParentReference names the Gateway API parent (usually a Gateway) an HTTPRoute attaches to.
// It has the shape of gateway.networking.k8s.io ParentReference.
type AIMGatewayParentReference struct {
	// group of the parent. Defaults to gateway.networking.k8s.io.
	// +optional
	// +default="gateway.networking.k8s.io"
	// +k8s:validation:pattern="^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	Group *string `json:"group,omitempty" protobuf:"bytes,1,opt,name=group"`
	// kind of the parent. Defaults to Gateway.
	// +optional
	// +default="Gateway"
	// +k8s:validation:pattern="^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$"
	// +k8s:validation:minLength=1
	// +k8s:validation:maxLength=63
	Kind *string `json:"kind,omitempty" protobuf:"bytes,2,opt,name=kind"`
	// namespace of the parent; defaults to the namespace of the route.
	// +optional
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +k8s:validation:minLength=1
	// +k8s:validation:maxLength=63
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// name of the parent.
	// +required
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:minLength=1
	// +k8s:validation:maxLength=253
	Name string `json:"name" protobuf:"bytes,4,opt,name=name"`
	// sectionName is the listener of the parent to attach to.
	// +optional
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:minLength=1
	// +k8s:validation:maxLength=253
	SectionName *string `json:"sectionName,omitempty" protobuf:"bytes,5,opt,name=sectionName"`
	// port of the parent listener to attach to.
	// +optional
	// +k8s:validation:minimum=1
	// +k8s:validation:maximum=65535
	Port *int32 `json:"port,omitempty" protobuf:"varint,6,opt,name=port"`
}

// AIMRuntimeRoutingConfig controls the HTTPRoute that exposes an inference endpoint through a Gateway.
type AIMRuntimeRoutingConfig struct {
	// enabled turns routing on or off.
	// +optional
	Enabled *bool `json:"enabled,omitempty" protobuf:"varint,1,opt,name=enabled"`
	// gatewayRef is the Gateway the HTTPRoute attaches to; required when routing is enabled.
	// +optional
	GatewayRef *AIMGatewayParentReference `json:"gatewayRef,omitempty" protobuf:"bytes,2,opt,name=gatewayRef"`
	// pathTemplate renders the route path from the service with JSONPath expressions, for example
	// /{.metadata.namespace}/{.metadata.name}.
	// +optional
	// +k8s:validation:pattern="[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
	PathTemplate *string `json:"pathTemplate,omitempty" protobuf:"bytes,3,opt,name=pathTemplate"`
	// requestTimeout is the HTTPRoute rule timeout, for example 60s.
	// +optional
	RequestTimeout *Duration `json:"requestTimeout,omitempty" protobuf:"bytes,4,opt,name=requestTimeout"`
	// annotations are copied onto the HTTPRoute.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,5,rep,name=annotations"`
}
