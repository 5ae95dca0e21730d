package aim

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
	Storage *AIMStorageConfig
	// routing settings for services.
	Routing *AIMRuntimeRoutingConfig
	// env is added to inference containers and download jobs.
	Env []corev1.EnvVar
	// labelPropagation copies labels of AIM objects to the objects created for them.
	LabelPropagation *AIMLabelPropagationConfig
	// scheduling adds tolerations, node selectors and a priority class to discovery and inference pods.
	Scheduling *AIMSchedulingConfig
	// discovery configures discovery jobs.
	Discovery *AIMDiscoveryConfig
	// model is a legacy block; autoDiscovery is accepted and ignored.
	Model *AIMRuntimeModelConfig
	// defaultStorageClassName is deprecated; use storage.defaultStorageClassName.
	DefaultStorageClassName string
	// pvcHeadroomPercent is deprecated; use storage.pvcHeadroomPercent.
	PVCHeadroomPercent *int32
}

// AIMLabelPropagationConfig selects labels to copy from AIM objects to their children.
type AIMLabelPropagationConfig struct {
	// enabled turns propagation on. Labels with the aim.eai.amd.com/ prefix are always propagated.
	Enabled *bool
	// match lists shell globs on label keys, for example team/* or cost-center.
	Match []string
}

// AIMSchedulingConfig places discovery and inference pods.
type AIMSchedulingConfig struct {
	// tolerations added to the pods, for example for tainted GPU nodes.
	Tolerations []corev1.Toleration
	// nodeSelector added to the pods.
	NodeSelector map[string]string
	// priorityClassName of the pods.
	PriorityClassName *string
}

// AIMDiscoveryConfig configures discovery jobs.
type AIMDiscoveryConfig struct {
	// serviceAccountName runs discovery jobs under this service account.
	ServiceAccountName *string
	// maxConcurrentJobs bounds the discovery jobs running at once (at least 1). When no config sets it, 10.
	MaxConcurrentJobs *int32
}

// AIMRuntimeModelConfig is a legacy block kept so that older manifests apply.
type AIMRuntimeModelConfig struct {
	// autoDiscovery is accepted for compatibility and has no effect.
	AutoDiscovery *bool
}

// AIMRuntimeConfigStatus is the observed state of a runtime config.
type AIMRuntimeConfigStatus struct {
	// observedGeneration is the spec generation the status describes.
	ObservedGeneration int64
	// status is Pending until the controller has checked the config, then Ready when it is valid and
	// Failed when it is not.
	Status AIMStatus
	// conditions: Valid and Ready (the same status, reason and message).
	Conditions []metav1.Condition
	// consumers is the number of AIM objects that resolve their defaults from this config.
	Consumers int32
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMRuntimeConfig holds namespace defaults: storage, routing, env, label propagation and scheduling.
type AIMRuntimeConfig struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the config.
	Spec AIMRuntimeConfigSpec
	// status is written by the controller.
	Status AIMRuntimeConfigStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMRuntimeConfigList is a list of AIMRuntimeConfigs.
type AIMRuntimeConfigList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the configs.
	Items []AIMRuntimeConfig
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterRuntimeConfig holds cluster defaults, overridden field by field by an AIMRuntimeConfig of the same name.
type AIMClusterRuntimeConfig struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the config.
	Spec AIMRuntimeConfigSpec
	// status is written by the controller.
	Status AIMRuntimeConfigStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterRuntimeConfigList is a list of AIMClusterRuntimeConfigs.
type AIMClusterRuntimeConfigList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the configs.
	Items []AIMClusterRuntimeConfig
}
