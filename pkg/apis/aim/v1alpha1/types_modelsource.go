package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AIMClusterModelSourceSpec is the desired state of a model source.
type AIMClusterModelSourceSpec struct {
	// registry to list, for example docker.io or ghcr.io. Defaults to docker.io.
	// +optional
	// +k8s:validation:pattern="^([a-zA-Z0-9.-]+(:[0-9]+)?(/[a-z0-9._/-]+)?)?$"
	// +default="docker.io"
	Registry string `json:"registry,omitempty"`
	// imagePullSecrets to authenticate to the registry, in the controller's namespace.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// filters select repositories and tags (1 to 100 entries).
	// +listType=atomic
	// +required
	// +k8s:validation:minItems=1
	// +k8s:validation:maxItems=100
	Filters []AIMModelSourceFilter `json:"filters"`
	// syncInterval is how often the registry is listed. Defaults to 1h.
	// +optional
	// +default="1h0m0s"
	SyncInterval *metav1.Duration `json:"syncInterval,omitempty"`
	// versions are semver constraints every filter applies unless it sets its own, for example >=0.8.0.
	// Tags that are not semver are skipped when constraints are present.
	// +optional
	// +listType=atomic
	Versions []string `json:"versions,omitempty"`
	// maxModels caps the models created by this source (1 to 10000). Defaults to 100.
	// +optional
	// +k8s:validation:minimum=1
	// +k8s:validation:maximum=10000
	// +default=100
	MaxModels *int32 `json:"maxModels,omitempty"`
}

// AIMModelSourceFilter selects images of a registry.
type AIMModelSourceFilter struct {
	// image is a repository with optional * wildcards and an optional :tag, for example amdenterpriseai/aim-*.
	// +required
	// +k8s:validation:pattern="^([a-zA-Z0-9.-]+(:[0-9]+)?/)?[a-z0-9*._/-]+(:[a-zA-Z0-9*._-]+)?$"
	// +k8s:validation:maxLength=512
	Image string `json:"image"`
	// exclude lists repositories to skip, by exact name.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:minLength=1
	Exclude []string `json:"exclude,omitempty"`
	// versions are semver constraints for this filter; they replace spec.versions.
	// +optional
	// +listType=atomic
	Versions []string `json:"versions,omitempty"`
}

// AIMClusterModelSourceStatus is the observed state of a model source.
type AIMClusterModelSourceStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty"`
	// lastSyncTime is when the registry was last listed.
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty"`
	// discoveredModels is the number of models this source created.
	// +optional
	// +k8s:validation:minimum=0
	DiscoveredModels int32 `json:"discoveredModels,omitempty"`
	// availableModels is the number of matching images in the registry.
	// +optional
	// +k8s:validation:minimum=0
	AvailableModels int32 `json:"availableModels,omitempty"`
	// modelsLimitReached is true when maxModels stopped model creation.
	// +optional
	ModelsLimitReached bool `json:"modelsLimitReached,omitempty"`
	// conditions of the source.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelSource lists a container registry and creates AIMClusterModels for matching images.
type AIMClusterModelSource struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec of the source.
	Spec AIMClusterModelSourceSpec `json:"spec"`
	// status is written by the controller.
	// +optional
	Status AIMClusterModelSourceStatus `json:"status,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelSourceList is a list of AIMClusterModelSources.
type AIMClusterModelSourceList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the sources.
	Items []AIMClusterModelSource `json:"items"`
}
