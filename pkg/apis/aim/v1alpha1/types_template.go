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
	// +k8s:validation:minLength=1
	// +k8s:validation:maxLength=253
	ModelName string `json:"modelName" protobuf:"bytes,1,opt,name=modelName"`
	// metric, precision and hardware select the runtime profile; each is immutable once set.
	AIMRuntimeParameters `json:",inline" protobuf:"bytes,2,opt,name=aIMRuntimeParameters"`
	// runtimeConfigName is the runtime config to take defaults from. Empty or "default" resolves the configs
	// named default, which may be absent; any other name must exist.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	RuntimeConfigName string `json:"runtimeConfigName,omitempty" protobuf:"bytes,3,opt,name=runtimeConfigName"`
	// imagePullSecrets for the model image, used by discovery and inference.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,4,rep,name=imagePullSecrets"`
	// serviceAccountName runs discovery and inference pods under this service account, unless the service names
	// one (inference) or the runtime config's discovery.serviceAccountName does (discovery).
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty" protobuf:"bytes,5,opt,name=serviceAccountName"`
	// resources of the inference container, merged under the service's resources.
	// +optional
	Resources *ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,6,opt,name=resources"`
	// modelSources lists the weights inline; a template with inline sources skips discovery.
	// +optional
	// +listType=atomic
	ModelSources []AIMModelSource `json:"modelSources,omitempty" protobuf:"bytes,7,rep,name=modelSources"`
	// profileId pins a profile of the image; passed as AIM_PROFILE_ID to discovery and inference.
	// +optional
	ProfileID string `json:"profileId,omitempty" protobuf:"bytes,8,opt,name=profileId"`
	// type of the profile when it is built from inline sources: optimized, preview or unoptimized. Defaults to
	// unoptimized.
	// +optional
	Type *AIMProfileType `json:"type,omitempty" protobuf:"bytes,9,opt,name=type,casttype=AIMProfileType"`
	// env is added to the inference container (and the discovery container).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,10,rep,name=env"`
}

// AIMTemplateCachingConfig controls pre-downloading of a namespaced template's model sources.
type AIMTemplateCachingConfig struct {
	// enabled creates an AIMTemplateCache for the template once it has model sources (inline ones at once) and its
	// model, runtime config and GPU resolve. Defaults to false.
	// +optional
	// +default=false
	Enabled bool `json:"enabled" protobuf:"varint,1,opt,name=enabled"`
	// env is passed to the download jobs.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=env"`
}

// AIMServiceTemplateSpec is the desired state of an AIMServiceTemplate.
type AIMServiceTemplateSpec struct {
	AIMServiceTemplateSpecCommon `json:",inline" protobuf:"bytes,1,opt,name=aIMServiceTemplateSpecCommon"`
	// caching pre-downloads the template's model sources into its namespace.
	// +optional
	Caching *AIMTemplateCachingConfig `json:"caching,omitempty" protobuf:"bytes,2,opt,name=caching"`
}

// AIMClusterServiceTemplateSpec is the desired state of an AIMClusterServiceTemplate.
type AIMClusterServiceTemplateSpec struct {
	AIMServiceTemplateSpecCommon `json:",inline" protobuf:"bytes,1,opt,name=aIMServiceTemplateSpecCommon"`
}

// AIMDiscoveryState is the circuit breaker of discovery retries.
type AIMDiscoveryState struct {
	// attempts is the number of failed discovery attempts since the discovery inputs (specHash) last changed.
	// +optional
	// +k8s:validation:minimum=0
	Attempts int32 `json:"attempts,omitempty" protobuf:"varint,1,opt,name=attempts"`
	// lastAttemptTime is when the last failed attempt was recorded; the retry backoff counts from it.
	// +optional
	LastAttemptTime *metav1.Time `json:"lastAttemptTime,omitempty" protobuf:"bytes,2,opt,name=lastAttemptTime"`
	// lastFailureReason is the reason the last attempt failed.
	// +optional
	LastFailureReason string `json:"lastFailureReason,omitempty" protobuf:"bytes,3,opt,name=lastFailureReason"`
	// specHash is the hash of the discovery inputs; a new hash resets the attempts.
	// +optional
	SpecHash string `json:"specHash,omitempty" protobuf:"bytes,4,opt,name=specHash"`
}

// AIMServiceTemplateStatus is the observed state of a service template, namespaced or cluster.
type AIMServiceTemplateStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status,casttype=AIMStatus"`
	// conditions: ModelReady (ClusterModelReady when the template takes the cluster model), RuntimeConfigReady,
	// GPUReady, DiscoveryJobReady, DiscoveryPodsReady, Discovered, TemplateCacheReady (caching enabled),
	// ConfigValid, AuthValid, DependenciesReachable, Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,3,rep,name=conditions"`
	// resolvedModel is the model the template runs.
	// +optional
	ResolvedModel *AIMResolvedReference `json:"resolvedModel,omitempty" protobuf:"bytes,4,opt,name=resolvedModel"`
	// resolvedRuntimeConfig is the runtime config the template's defaults came from.
	// +optional
	ResolvedRuntimeConfig *AIMResolvedReference `json:"resolvedRuntimeConfig,omitempty" protobuf:"bytes,5,opt,name=resolvedRuntimeConfig"`
	// resolvedCache is the AIMTemplateCache a caching template owns.
	// +optional
	ResolvedCache *AIMResolvedReference `json:"resolvedCache,omitempty" protobuf:"bytes,6,opt,name=resolvedCache"`
	// resolvedHardware is the hardware the template needs, from discovery or the spec.
	// +optional
	ResolvedHardware *AIMHardwareRequirements `json:"resolvedHardware,omitempty" protobuf:"bytes,7,opt,name=resolvedHardware"`
	// resolvedNodeAffinity places workloads of the template on nodes with the right GPU.
	// +optional
	ResolvedNodeAffinity *corev1.NodeAffinity `json:"resolvedNodeAffinity,omitempty" protobuf:"bytes,8,opt,name=resolvedNodeAffinity"`
	// hardwareSummary is a display string such as "2 x MI300X", "MI300X" or "CPU".
	// +optional
	HardwareSummary string `json:"hardwareSummary,omitempty" protobuf:"bytes,9,opt,name=hardwareSummary"`
	// modelSources are the weights the template serves, from the spec or from discovery.
	// +optional
	// +listType=atomic
	ModelSources []AIMModelSource `json:"modelSources,omitempty" protobuf:"bytes,10,rep,name=modelSources"`
	// profile is the runtime profile discovery selected, or the one built from the spec for inline model sources.
	// +optional
	Profile *AIMProfile `json:"profile,omitempty" protobuf:"bytes,11,opt,name=profile"`
	// discoveryJob is the latest discovery Job (kind Job, with its namespace and uid).
	// +optional
	DiscoveryJob *AIMResolvedReference `json:"discoveryJob,omitempty" protobuf:"bytes,12,opt,name=discoveryJob"`
	// discovery is the retry state of discovery.
	// +optional
	Discovery *AIMDiscoveryState `json:"discovery,omitempty" protobuf:"bytes,13,opt,name=discovery"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceTemplate is a runtime profile for one model in a namespace: metric, precision and GPU. Discovery
// fills its status with the model sources and the engine profile.
type AIMServiceTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the template.
	Spec AIMServiceTemplateSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMServiceTemplateStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMServiceTemplateList is a list of AIMServiceTemplates.
type AIMServiceTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the templates.
	Items []AIMServiceTemplate `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterServiceTemplate is a cluster-wide runtime profile for one cluster model.
type AIMClusterServiceTemplate struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the template.
	Spec AIMClusterServiceTemplateSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMServiceTemplateStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterServiceTemplateList is a list of AIMClusterServiceTemplates.
type AIMClusterServiceTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the templates.
	Items []AIMClusterServiceTemplate `json:"items" protobuf:"bytes,2,rep,name=items"`
}
