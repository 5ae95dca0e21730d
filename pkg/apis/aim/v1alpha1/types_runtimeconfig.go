package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AIMRuntimeConfigSpec holds defaults for AIM objects. A namespaced config of a name overrides the cluster
// config of the same name field by field: a field that is set in the namespaced config wins even when it is
// false, zero or empty; env lists merge by name, nodeSelector and routing annotations by key. Fields are
// pointers so that "set" can be told from "unset", and the only defaults stored are routing.gatewayRef's group
// and kind, so that an unset field never overrides the cluster config.
type AIMRuntimeConfigSpec struct {
	// storage settings for model caches.
	// +optional
	Storage *AIMStorageConfig `json:"storage,omitempty" protobuf:"bytes,1,opt,name=storage"`
	// routing settings for services.
	// +optional
	Routing *AIMRuntimeRoutingConfig `json:"routing,omitempty" protobuf:"bytes,2,opt,name=routing"`
	// env is added to inference containers and download jobs.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,3,rep,name=env"`
	// labelPropagation copies labels of AIM objects to the objects created for them.
	// +optional
	LabelPropagation *AIMLabelPropagationConfig `json:"labelPropagation,omitempty" protobuf:"bytes,4,opt,name=labelPropagation"`
	// scheduling adds tolerations, node selectors and a priority class to discovery and inference pods.
	// +optional
	Scheduling *AIMSchedulingConfig `json:"scheduling,omitempty" protobuf:"bytes,5,opt,name=scheduling"`
	// discovery configures discovery jobs.
	// +optional
	Discovery *AIMDiscoveryConfig `json:"discovery,omitempty" protobuf:"bytes,6,opt,name=discovery"`
	// model is a legacy block; autoDiscovery is accepted and ignored.
	// +optional
	Model *AIMRuntimeModelConfig `json:"model,omitempty" protobuf:"bytes,7,opt,name=model"`
	// defaultStorageClassName is deprecated; use storage.defaultStorageClassName.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	DefaultStorageClassName string `json:"defaultStorageClassName,omitempty" protobuf:"bytes,8,opt,name=defaultStorageClassName"`
	// pvcHeadroomPercent is deprecated; use storage.pvcHeadroomPercent.
	// +optional
	// +k8s:validation:minimum=0
	PVCHeadroomPercent *int32 `json:"pvcHeadroomPercent,omitempty" protobuf:"varint,9,opt,name=pvcHeadroomPercent"`
}

// AIMLabelPropagationConfig selects labels to copy from AIM objects to their children.
type AIMLabelPropagationConfig struct {
	// enabled turns propagation on. Labels with the aim.eai.amd.com/ prefix are always propagated.
	// +optional
	Enabled *bool `json:"enabled,omitempty" protobuf:"varint,1,opt,name=enabled"`
	// match lists shell globs on label keys, for example team/* or cost-center.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:minLength=1
	Match []string `json:"match,omitempty" protobuf:"bytes,2,rep,name=match"`
}

// AIMSchedulingConfig places discovery and inference pods.
type AIMSchedulingConfig struct {
	// tolerations added to the pods, for example for tainted GPU nodes.
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty" protobuf:"bytes,1,rep,name=tolerations"`
	// nodeSelector added to the pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,2,rep,name=nodeSelector"`
	// priorityClassName of the pods.
	// +optional
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	PriorityClassName *string `json:"priorityClassName,omitempty" protobuf:"bytes,3,opt,name=priorityClassName"`
}

// AIMDiscoveryConfig configures discovery jobs.
type AIMDiscoveryConfig struct {
	// serviceAccountName runs discovery jobs under this service account.
	// +optional
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:maxLength=253
	ServiceAccountName *string `json:"serviceAccountName,omitempty" protobuf:"bytes,1,opt,name=serviceAccountName"`
	// maxConcurrentJobs bounds the discovery jobs running at once (at least 1). When no config sets it, 10.
	// +optional
	// +k8s:validation:minimum=1
	MaxConcurrentJobs *int32 `json:"maxConcurrentJobs,omitempty" protobuf:"varint,2,opt,name=maxConcurrentJobs"`
}

// AIMRuntimeModelConfig is a legacy block kept so that older manifests apply.
type AIMRuntimeModelConfig struct {
	// autoDiscovery is accepted for compatibility and has no effect.
	// +optional
	AutoDiscovery *bool `json:"autoDiscovery,omitempty" protobuf:"varint,1,opt,name=autoDiscovery"`
}

// AIMRuntimeConfigStatus is the observed state of a runtime config.
type AIMRuntimeConfigStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// status is Pending until the controller has checked the config, then Ready when it is valid and
	// Failed when it is not.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status,casttype=AIMStatus"`
	// conditions: Valid and Ready (the same status, reason and message).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,3,rep,name=conditions"`
	// consumers is the number of AIM objects that resolve their defaults from this config.
	// +optional
	// +k8s:validation:minimum=0
	Consumers int32 `json:"consumers,omitempty" protobuf:"varint,4,opt,name=consumers"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMRuntimeConfig holds namespace defaults: storage, routing, env, label propagation and scheduling.
type AIMRuntimeConfig struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the config.
	// +optional
	Spec AIMRuntimeConfigSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMRuntimeConfigStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMRuntimeConfigList is a list of AIMRuntimeConfigs.
type AIMRuntimeConfigList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the configs.
	Items []AIMRuntimeConfig `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterRuntimeConfig holds cluster defaults, overridden field by field by an AIMRuntimeConfig of the same name.
type AIMClusterRuntimeConfig struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the config.
	// +optional
	Spec AIMRuntimeConfigSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMRuntimeConfigStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterRuntimeConfigList is a list of AIMClusterRuntimeConfigs.
type AIMClusterRuntimeConfigList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the configs.
	Items []AIMClusterRuntimeConfig `json:"items" protobuf:"bytes,2,rep,name=items"`
}
