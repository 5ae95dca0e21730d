package aim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AIMServiceTemplateSpecCommon is the spec shared by namespaced and cluster service templates.
type AIMServiceTemplateSpecCommon struct {
	// modelName names the model the template runs. A namespaced template names an AIMModel in its namespace,
	// else an AIMClusterModel; a cluster template names an AIMClusterModel. Immutable.
	ModelName string
	// metric, precision and hardware select the runtime profile; each is immutable once set.
	AIMRuntimeParameters
	// runtimeConfigName is the runtime config to take defaults from. Empty or "default" resolves the configs
	// named default, which may be absent; any other name must exist.
	RuntimeConfigName string
	// imagePullSecrets for the model image, used by discovery and inference.
	ImagePullSecrets []corev1.LocalObjectReference
	// serviceAccountName runs discovery and inference pods under this service account, unless the service names
	// one (inference) or the runtime config's discovery.serviceAccountName does (discovery).
	ServiceAccountName string
	// resources of the inference container, merged under the service's resources.
	Resources *ResourceRequirements
	// modelSources lists the weights inline; a template with inline sources skips discovery.
	ModelSources []AIMModelSource
	// profileId pins a profile of the image; passed as AIM_PROFILE_ID to discovery and inference.
	ProfileID string
	// type of the profile when it is built from inline sources: optimized, preview or unoptimized. Defaults to
	// unoptimized.
	Type *AIMProfileType
	// env is added to the inference container (and the discovery container).
	Env []corev1.EnvVar
}

// AIMTemplateCachingConfig controls pre-downloading of a namespaced template's model sources.
type AIMTemplateCachingConfig struct {
	// enabled creates an AIMTemplateCache for the template once it has model sources (inline ones at once) and its
	// model, runtime config and GPU resolve. Defaults to false.
	Enabled bool
	// env is passed to the download jobs.
	Env []corev1.EnvVar
}

// AIMServiceTemplateSpec is the desired state of an AIMServiceTemplate.
type AIMServiceTemplateSpec struct {
	AIMServiceTemplateSpecCommon
	// caching pre-downloads the template's model sources into its namespace.
	Caching *AIMTemplateCachingConfig
}

// AIMClusterServiceTemplateSpec is the desired state of an AIMClusterServiceTemplate.
type AIMClusterServiceTemplateSpec struct {
	AIMServiceTemplateSpecCommon
}

// AIMDiscoveryState is the circuit breaker of discovery retries.
type AIMDiscoveryState struct {
	// attempts is the number of failed discovery attempts since the discovery inputs (specHash) last changed.
	Attempts int32
	// lastAttemptTime is when the last failed attempt was recorded; the retry backoff counts from it.
	LastAttemptTime *metav1.Time
	// lastFailureReason is the reason the last attempt failed.
	LastFailureReason string
	// specHash is the hash of the discovery inputs; a new hash resets the attempts.
	SpecHash string
}

// AIMServiceTemplateStatus is the observed state of a service template, namespaced or cluster.
type AIMServiceTemplateStatus struct {
	// observedGeneration is the spec generation the status describes.
	ObservedGeneration int64
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	Status AIMStatus
	// conditions: ModelReady (ClusterModelReady when the template takes the cluster model), RuntimeConfigReady,
	// GPUReady, DiscoveryJobReady, DiscoveryPodsReady, Discovered, TemplateCacheReady (caching enabled),
	// ConfigValid, AuthValid, DependenciesReachable, Ready.
	Conditions []metav1.Condition
	// resolvedModel is the model the template runs.
	ResolvedModel *AIMResolvedReference
	// resolvedRuntimeConfig is the runtime config the template's defaults came from.
	ResolvedRuntimeConfig *AIMResolvedReference
	// resolvedCache is the AIMTemplateCache a caching template owns.
	ResolvedCache *AIMResolvedReference
	// resolvedHardware is the hardware the template needs, from discovery or the spec.
	ResolvedHardware *AIMHardwareRequirements
	// resolvedNodeAffinity places workloads of the template on nodes with the right GPU.
	ResolvedNodeAffinity *corev1.NodeAffinity
	// hardwareSummary is a display string such as "2 x MI300X", "MI300X" or "CPU".
	HardwareSummary string
	// modelSources are the weights the template serves, from the spec or from discovery.
	ModelSources []AIMModelSource
	// profile is the runtime profile discovery selected, or the one built from the spec for inline model sources.
	Profile *AIMProfile
	// discoveryJob is the latest discovery Job (kind Job, with its namespace and uid).
	DiscoveryJob *AIMResolvedReference
	// discovery is the retry state of discovery.
	Discovery *AIMDiscoveryState
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceTemplate is a runtime profile for one model in a namespace: metric, precision and GPU. Discovery
// fills its status with the model sources and the engine profile.
type AIMServiceTemplate struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the template.
	Spec AIMServiceTemplateSpec
	// status is written by the controller.
	Status AIMServiceTemplateStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceTemplateList is a list of AIMServiceTemplates.
type AIMServiceTemplateList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the templates.
	Items []AIMServiceTemplate
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterServiceTemplate is a cluster-wide runtime profile for one cluster model.
type AIMClusterServiceTemplate struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the template.
	Spec AIMClusterServiceTemplateSpec
	// status is written by the controller.
	Status AIMServiceTemplateStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterServiceTemplateList is a list of AIMClusterServiceTemplates.
type AIMClusterServiceTemplateList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the templates.
	Items []AIMClusterServiceTemplate
}
