package aim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// AIMTemplateScope says which kind of template a cache refers to.
type AIMTemplateScope string

const (
	AIMTemplateScopeNamespace AIMTemplateScope = "Namespace"
	AIMTemplateScopeCluster   AIMTemplateScope = "Cluster"
	// AIMTemplateScopeUnknown looks for a namespaced template first, then a cluster template.
	AIMTemplateScopeUnknown AIMTemplateScope = "Unknown"
)

// AIMTemplateCacheMode says who owns the artifacts of a cache.
type AIMTemplateCacheMode string

const (
	// AIMTemplateCacheModeShared artifacts belong to no cache: a cache of the namespace with the same source, env
	// and storage class uses one (another's once it is Ready), and they outlive the caches.
	AIMTemplateCacheModeShared AIMTemplateCacheMode = "Shared"
	// AIMTemplateCacheModeDedicated artifacts belong to this cache and are deleted with it.
	AIMTemplateCacheModeDedicated AIMTemplateCacheMode = "Dedicated"
)

// AIMTemplateCacheSpec is the desired state of a template cache.
type AIMTemplateCacheSpec struct {
	// templateName is the template whose model sources are cached.
	TemplateName string
	// templateScope says whether templateName is an AIMServiceTemplate (Namespace) or an
	// AIMClusterServiceTemplate (Cluster); Unknown looks for the namespaced template first, then the cluster one.
	// Required on create, as in aim-engine; the controller never writes it.
	TemplateScope AIMTemplateScope
	// env is passed to the download jobs; a source's own env wins on name clashes.
	Env []corev1.EnvVar
	// imagePullSecrets for the downloader image.
	ImagePullSecrets []corev1.LocalObjectReference
	// storageClassName of the cache volumes; empty uses the runtime config, then the cluster default.
	StorageClassName string
	// downloadImage overrides the downloader image.
	DownloadImage string
	// modelSources, when set, are cached instead of the template's, without waiting for the template to be Ready.
	ModelSources []AIMModelSource
	// runtimeConfigName is the runtime config to take defaults from.
	RuntimeConfigName string
	// mode is Shared (default) or Dedicated.
	Mode AIMTemplateCacheMode
}

// AIMTemplateCacheArtifactStatus is the state of one artifact of a cache.
type AIMTemplateCacheArtifactStatus struct {
	// uid of the AIMArtifact.
	UID types.UID
	// name of the AIMArtifact.
	Name string
	// model is the modelId the artifact holds.
	Model string
	// status of the artifact.
	Status AIMStatus
	// persistentVolumeClaim holding the artifact.
	PersistentVolumeClaim string
	// mountPoint is not written (as in aim-engine); services mount an artifact under its model id.
	MountPoint string
}

// AIMTemplateCacheStatus is the observed state of a template cache.
type AIMTemplateCacheStatus struct {
	// observedGeneration is the spec generation the status describes.
	ObservedGeneration int64
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	Status AIMStatus
	// conditions: RuntimeConfigReady, ServiceTemplateReady, ArtifactsReady, ConfigValid, AuthValid,
	// DependenciesReachable, Ready.
	Conditions []metav1.Condition
	// resolvedTemplateKind is AIMServiceTemplate or AIMClusterServiceTemplate.
	ResolvedTemplateKind string
	// resolvedRuntimeConfig is the runtime config the cache's defaults came from.
	ResolvedRuntimeConfig *AIMResolvedReference
	// artifacts of the cache, by artifact name.
	Artifacts map[string]AIMTemplateCacheArtifactStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMTemplateCache pre-downloads every model source of a template into its namespace.
type AIMTemplateCache struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the cache.
	Spec AIMTemplateCacheSpec
	// status is written by the controller.
	Status AIMTemplateCacheStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMTemplateCacheList is a list of AIMTemplateCaches.
type AIMTemplateCacheList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the caches.
	Items []AIMTemplateCache
}

// AIMArtifactSpec is the desired state of an artifact.
type AIMArtifactSpec struct {
	// sourceUri is where the weights come from: hf://org/name or s3://bucket/path. Immutable.
	SourceURI string
	// modelId identifies the model as org/name.
	ModelID string
	// storageClassName of the volume; empty uses the runtime config, then the cluster default.
	StorageClassName string
	// size of the weights; when absent or 0 a check-size job measures it.
	WeightsSize *Quantity
	// env of the download and check-size jobs, for example credentials.
	Env []corev1.EnvVar
	// modelDownloadImage overrides the downloader image.
	ModelDownloadImage string
	// imagePullSecrets for the downloader image.
	ImagePullSecrets []corev1.LocalObjectReference
	// runtimeConfigName is the runtime config to take defaults from.
	RuntimeConfigName string
}

// AIMDownloadProgress reports how much of an artifact is downloaded.
type AIMDownloadProgress struct {
	// totalBytes to download.
	TotalBytes int64
	// downloadedBytes so far.
	DownloadedBytes int64
	// percentage downloaded, 0 to 100.
	Percentage int32
	// displayPercentage is a display string such as "45 %".
	DisplayPercentage string
}

// AIMDownloadState is written by the downloader.
type AIMDownloadState struct {
	// protocol in use, for example XET or HTTP.
	Protocol string
	// attempt is the current attempt.
	Attempt int32
	// totalAttempts is the number of attempts allowed.
	TotalAttempts int32
	// protocolSequence is the order in which protocols are tried.
	ProtocolSequence string
	// message from the downloader.
	Message string
}

// AIMArtifactStatus is the observed state of an artifact.
type AIMArtifactStatus struct {
	// observedGeneration is the spec generation the status describes.
	ObservedGeneration int64
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	Status AIMStatus
	// conditions of the artifact.
	Conditions []metav1.Condition
	// progress of the download.
	Progress *AIMDownloadProgress
	// download state written by the downloader.
	Download *AIMDownloadState
	// displaySize is the model size for display, for example 15.3 GiB.
	DisplaySize string
	// lastUsed is not written by aim-apiserver (nor by aim-engine); kept for compatibility.
	LastUsed *metav1.Time
	// persistentVolumeClaim holding the weights.
	PersistentVolumeClaim string
	// mode is Shared or Dedicated.
	Mode AIMTemplateCacheMode
	// discoveredSizeBytes is the size measured by the check-size job.
	DiscoveredSizeBytes *int64
	// allocatedSize is the size of the volume.
	AllocatedSize *Quantity
	// headroomPercent is the extra space allocated over the model size.
	HeadroomPercent *int32
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMArtifact is one downloaded model (hf:// or s3://) on a volume.
type AIMArtifact struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the artifact.
	Spec AIMArtifactSpec
	// status is written by the controller and the downloader.
	Status AIMArtifactStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMArtifactList is a list of AIMArtifacts.
type AIMArtifactList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the artifacts.
	Items []AIMArtifact
}
