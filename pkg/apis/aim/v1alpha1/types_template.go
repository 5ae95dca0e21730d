package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AIMServiceTemplateSpecCommon is the spec shared by namespaced and cluster service templates.
type AIMServiceTemplateSpecCommon struct {
	// modelName names the model the template runs. A namespaced template names an AIMModel in its namespace,
	// else an AIMClusterModel; a cluster template names an AIMClusterModel. Immutable.
	// +required
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	ModelName string `json:"modelName"`
	// metric, precision and hardware select the runtime profile; each is immutable once set.
	AIMRuntimeParameters `json:",inline"`
	// runtimeConfigName is the runtime config to take defaults from. Empty or "default" resolves the configs
	// named default, which may be absent; any other name must exist.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	RuntimeConfigName string `json:"runtimeConfigName,omitempty"`
	// imagePullSecrets for the model image, used by discovery and inference.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// serviceAccountName runs discovery and inference pods under this service account.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// resources of the inference container, merged under the service's resources.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// modelSources lists the weights inline; a template with inline sources skips discovery.
	// +optional
	// +listType=atomic
	ModelSources []AIMModelSource `json:"modelSources,omitempty"`
	// profileId pins a profile of the image; passed as AIM_PROFILE_ID to discovery and inference.
	// +optional
	ProfileID string `json:"profileId,omitempty"`
	// type of the profile when it is built from inline sources: optimized, preview or unoptimized.
	// +optional
	Type *AIMProfileType `json:"type,omitempty"`
	// env is added to the inference container (and the discovery container).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// AIMTemplateCachingConfig controls pre-downloading of a namespaced template's model sources.
type AIMTemplateCachingConfig struct {
	// enabled creates an AIMTemplateCache for the template once it is Ready. Defaults to false.
	// +optional
	// +default=false
	Enabled bool `json:"enabled"`
	// env is passed to the download jobs.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// AIMServiceTemplateSpec is the desired state of an AIMServiceTemplate.
type AIMServiceTemplateSpec struct {
	AIMServiceTemplateSpecCommon `json:",inline"`
	// caching pre-downloads the template's model sources into its namespace.
	// +optional
	Caching *AIMTemplateCachingConfig `json:"caching,omitempty"`
}

// AIMClusterServiceTemplateSpec is the desired state of an AIMClusterServiceTemplate.
type AIMClusterServiceTemplateSpec struct {
	AIMServiceTemplateSpecCommon `json:",inline"`
}

// AIMDiscoveryState is the circuit breaker of discovery retries.
type AIMDiscoveryState struct {
	// attempts is the number of failed discovery attempts since the spec last changed.
	// +optional
	// +k8s:validation:minimum=0
	Attempts int32 `json:"attempts,omitempty"`
	// lastAttemptTime is when the last discovery job was started.
	// +optional
	LastAttemptTime *metav1.Time `json:"lastAttemptTime,omitempty"`
	// lastFailureReason is the reason the last attempt failed.
	// +optional
	LastFailureReason string `json:"lastFailureReason,omitempty"`
	// specHash is the hash of the discovery inputs; a new hash resets the attempts.
	// +optional
	SpecHash string `json:"specHash,omitempty"`
}

// AIMServiceTemplateStatus is the observed state of a service template, namespaced or cluster.
type AIMServiceTemplateStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty"`
	// conditions: ModelReady, RuntimeConfigReady, GPUReady, DiscoveryJobReady, Discovered, ConfigValid,
	// AuthValid, DependenciesReachable, Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// resolvedModel is the model the template runs.
	// +optional
	ResolvedModel *AIMResolvedReference `json:"resolvedModel,omitempty"`
	// resolvedRuntimeConfig is the runtime config the template's defaults came from.
	// +optional
	ResolvedRuntimeConfig *AIMResolvedReference `json:"resolvedRuntimeConfig,omitempty"`
	// resolvedCache is the AIMTemplateCache a caching template owns.
	// +optional
	ResolvedCache *AIMResolvedReference `json:"resolvedCache,omitempty"`
	// resolvedHardware is the hardware the template needs, from discovery or the spec.
	// +optional
	ResolvedHardware *AIMHardwareRequirements `json:"resolvedHardware,omitempty"`
	// resolvedNodeAffinity places workloads of the template on nodes with the right GPU.
	// +optional
	ResolvedNodeAffinity *corev1.NodeAffinity `json:"resolvedNodeAffinity,omitempty"`
	// hardwareSummary is a display string such as "2 x MI300X", "MI300X" or "CPU".
	// +optional
	HardwareSummary string `json:"hardwareSummary,omitempty"`
	// modelSources are the weights the template serves, from the spec or from discovery.
	// +optional
	// +listType=atomic
	ModelSources []AIMModelSource `json:"modelSources,omitempty"`
	// profile is the runtime profile discovery selected.
	// +optional
	Profile *AIMProfile `json:"profile,omitempty"`
	// discoveryJob is the latest discovery Job (kind Job, with its namespace and uid).
	// +optional
	DiscoveryJob *AIMResolvedReference `json:"discoveryJob,omitempty"`
	// discovery is the retry state of discovery.
	// +optional
	Discovery *AIMDiscoveryState `json:"discovery,omitempty"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceTemplate is a runtime profile for one model in a namespace: metric, precision and GPU. Discovery
// fills its status with the model sources and the engine profile.
type AIMServiceTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec of the template.
	Spec AIMServiceTemplateSpec `json:"spec"`
	// status is written by the controller.
	// +optional
	Status AIMServiceTemplateStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceTemplateList is a list of AIMServiceTemplates.
type AIMServiceTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the templates.
	Items []AIMServiceTemplate `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterServiceTemplate is a cluster-wide runtime profile for one cluster model.
type AIMClusterServiceTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec of the template.
	Spec AIMClusterServiceTemplateSpec `json:"spec"`
	// status is written by the controller.
	// +optional
	Status AIMServiceTemplateStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterServiceTemplateList is a list of AIMClusterServiceTemplates.
type AIMClusterServiceTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the templates.
	Items []AIMClusterServiceTemplate `json:"items"`
}
