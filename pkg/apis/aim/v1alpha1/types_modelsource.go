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
	Registry string `json:"registry,omitempty" protobuf:"bytes,1,opt,name=registry"`
	// imagePullSecrets to authenticate to the registry, in the controller's namespace; copied to the models the
	// source creates. A secret that does not exist is skipped (a public registry is listed without it).
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,2,rep,name=imagePullSecrets"`
	// filters select repositories and tags (1 to 100 entries).
	// +listType=atomic
	// +required
	// +k8s:validation:minItems=1
	// +k8s:validation:maxItems=100
	Filters []AIMModelSourceFilter `json:"filters" protobuf:"bytes,3,rep,name=filters"`
	// syncInterval is how often the registry is listed. Defaults to 1h.
	// +optional
	// +default="1h"
	SyncInterval *Duration `json:"syncInterval,omitempty" protobuf:"bytes,4,opt,name=syncInterval"`
	// versions are version ranges every filter applies unless it sets its own, for example >=0.8.0, and
	// ">=0.8.0 <1.0.0" or "<1.0.0 || >=1.5.0" in one entry; a tag must be in every entry. As in aim-engine, a
	// leading v of a tag is dropped, tags that are not strict semver are skipped, a prerelease is its version
	// (0.8.1-rc1 is >=0.8.0), and an entry that is no such range (~, ^ or a comma list) is ignored with a warning.
	// +optional
	// +listType=atomic
	Versions []string `json:"versions,omitempty" protobuf:"bytes,5,rep,name=versions"`
	// maxModels caps the models created by this source (1 to 10000). Defaults to 100.
	// +optional
	// +k8s:validation:minimum=1
	// +k8s:validation:maximum=10000
	// +default=100
	MaxModels *int32 `json:"maxModels,omitempty" protobuf:"varint,6,opt,name=maxModels"`
}

// AIMModelSourceFilter selects images of a registry.
type AIMModelSourceFilter struct {
	// image is a repository with optional * wildcards and an optional :tag, for example amdenterpriseai/aim-*.
	// +required
	// +k8s:validation:pattern="^([a-zA-Z0-9.-]+(:[0-9]+)?/)?[a-z0-9*._/-]+(:[a-zA-Z0-9*._-]+)?$"
	// +k8s:validation:maxLength=512
	Image string `json:"image" protobuf:"bytes,1,opt,name=image"`
	// exclude lists repositories to skip, by exact name.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:minLength=1
	Exclude []string `json:"exclude,omitempty" protobuf:"bytes,2,rep,name=exclude"`
	// versions are version ranges for this filter, written as spec.versions; they replace spec.versions. A
	// filter that names an exact tag ignores both.
	// +optional
	// +listType=atomic
	Versions []string `json:"versions,omitempty" protobuf:"bytes,3,rep,name=versions"`
}

// AIMClusterModelSourceStatus is the observed state of a model source.
type AIMClusterModelSourceStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status,casttype=AIMStatus"`
	// lastSyncTime is when the registry was last listed.
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty" protobuf:"bytes,3,opt,name=lastSyncTime"`
	// discoveredModels is the number of models this source created.
	// +optional
	// +k8s:validation:minimum=0
	DiscoveredModels int32 `json:"discoveredModels,omitempty" protobuf:"varint,4,opt,name=discoveredModels"`
	// availableModels is the number of matching images in the registry.
	// +optional
	// +k8s:validation:minimum=0
	AvailableModels int32 `json:"availableModels,omitempty" protobuf:"varint,5,opt,name=availableModels"`
	// modelsLimitReached is true when maxModels stopped model creation.
	// +optional
	ModelsLimitReached bool `json:"modelsLimitReached,omitempty" protobuf:"varint,6,opt,name=modelsLimitReached"`
	// conditions of the source.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,7,rep,name=conditions"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelSource lists a container registry and creates AIMClusterModels for matching images.
type AIMClusterModelSource struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the source.
	Spec AIMClusterModelSourceSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMClusterModelSourceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelSourceList is a list of AIMClusterModelSources.
type AIMClusterModelSourceList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the sources.
	Items []AIMClusterModelSource `json:"items" protobuf:"bytes,2,rep,name=items"`
}
