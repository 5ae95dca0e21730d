package aim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AIMClusterModelSourceSpec is the desired state of a model source.
type AIMClusterModelSourceSpec struct {
	// registry to list, for example docker.io or ghcr.io. Defaults to docker.io.
	Registry string
	// imagePullSecrets to authenticate to the registry, in the controller's namespace; copied to the models the
	// source creates. A secret that does not exist is skipped (a public registry is listed without it).
	ImagePullSecrets []corev1.LocalObjectReference
	// filters select repositories and tags (1 to 100 entries).
	Filters []AIMModelSourceFilter
	// syncInterval is how often the registry is listed. Defaults to 1h.
	SyncInterval *Duration
	// versions are version ranges every filter applies unless it sets its own, for example >=0.8.0, and
	// ">=0.8.0 <1.0.0" or "<1.0.0 || >=1.5.0" in one entry; a tag must be in every entry. As in aim-engine, a
	// leading v of a tag is dropped, tags that are not strict semver are skipped, a prerelease is its version
	// (0.8.1-rc1 is >=0.8.0), and an entry that is no such range (~, ^ or a comma list) is ignored with a warning.
	Versions []string
	// maxModels caps the models created by this source (1 to 10000). Defaults to 100.
	MaxModels *int32
}

// AIMModelSourceFilter selects images of a registry.
type AIMModelSourceFilter struct {
	// image is a repository with optional * wildcards and an optional :tag, for example amdenterpriseai/aim-*.
	Image string
	// exclude lists repositories to skip, by exact name.
	Exclude []string
	// versions are version ranges for this filter, written as spec.versions; they replace spec.versions. A
	// filter that names an exact tag ignores both.
	Versions []string
}

// AIMClusterModelSourceStatus is the observed state of a model source.
type AIMClusterModelSourceStatus struct {
	// observedGeneration is the spec generation the status describes.
	ObservedGeneration int64
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	Status AIMStatus
	// lastSyncTime is when the registry was last listed.
	LastSyncTime *metav1.Time
	// discoveredModels is the number of models this source created.
	DiscoveredModels int32
	// availableModels is the number of matching images in the registry.
	AvailableModels int32
	// modelsLimitReached is true when maxModels stopped model creation.
	ModelsLimitReached bool
	// conditions of the source.
	Conditions []metav1.Condition
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelSource lists a container registry and creates AIMClusterModels for matching images.
type AIMClusterModelSource struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the source.
	Spec AIMClusterModelSourceSpec
	// status is written by the controller.
	Status AIMClusterModelSourceStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelSourceList is a list of AIMClusterModelSources.
type AIMClusterModelSourceList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the sources.
	Items []AIMClusterModelSource
}
