package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// AIMTemplateScope says which kind of template a cache refers to.
// +enum
type AIMTemplateScope string

const (
	AIMTemplateScopeNamespace AIMTemplateScope = "Namespace"
	AIMTemplateScopeCluster   AIMTemplateScope = "Cluster"
	// AIMTemplateScopeUnknown looks for a namespaced template first, then a cluster template.
	AIMTemplateScopeUnknown AIMTemplateScope = "Unknown"
)

// AIMTemplateCacheMode says who owns the artifacts of a cache.
// +enum
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
	// +required
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:minLength=1
	// +k8s:validation:maxLength=253
	TemplateName string `json:"templateName" protobuf:"bytes,1,opt,name=templateName"`
	// templateScope says whether templateName is an AIMServiceTemplate (Namespace) or an
	// AIMClusterServiceTemplate (Cluster); Unknown looks for the namespaced template first, then the cluster one.
	// Required on create, as in aim-engine; the controller never writes it.
	// +optional
	TemplateScope AIMTemplateScope `json:"templateScope,omitempty" protobuf:"bytes,2,opt,name=templateScope,casttype=AIMTemplateScope"`
	// env is passed to the download jobs; a source's own env wins on name clashes.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,3,rep,name=env"`
	// imagePullSecrets for the downloader image.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,4,rep,name=imagePullSecrets"`
	// storageClassName of the cache volumes; empty uses the runtime config, then the cluster default.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	StorageClassName string `json:"storageClassName,omitempty" protobuf:"bytes,5,opt,name=storageClassName"`
	// downloadImage overrides the downloader image.
	// +optional
	// +k8s:validation:pattern="^([^ \\t\\r\\n]*[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^ \\t\\r\\n]*)?$"
	DownloadImage string `json:"downloadImage,omitempty" protobuf:"bytes,6,opt,name=downloadImage"`
	// modelSources, when set, are cached instead of the template's, without waiting for the template to be Ready.
	// +optional
	// +listType=atomic
	ModelSources []AIMModelSource `json:"modelSources,omitempty" protobuf:"bytes,7,rep,name=modelSources"`
	// runtimeConfigName is the runtime config to take defaults from.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	RuntimeConfigName string `json:"runtimeConfigName,omitempty" protobuf:"bytes,8,opt,name=runtimeConfigName"`
	// mode is Shared (default) or Dedicated.
	// +optional
	// +default="Shared"
	Mode AIMTemplateCacheMode `json:"mode,omitempty" protobuf:"bytes,9,opt,name=mode,casttype=AIMTemplateCacheMode"`
}

// AIMTemplateCacheArtifactStatus is the state of one artifact of a cache.
type AIMTemplateCacheArtifactStatus struct {
	// uid of the AIMArtifact.
	// +required
	// +k8s:validation:minLength=1
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// name of the AIMArtifact.
	// +required
	// +k8s:validation:minLength=1
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// model is the modelId the artifact holds.
	// +required
	// +k8s:validation:minLength=1
	Model string `json:"model,omitempty" protobuf:"bytes,3,opt,name=model"`
	// status of the artifact.
	// +required
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)$"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,4,opt,name=status,casttype=AIMStatus"`
	// persistentVolumeClaim holding the artifact.
	// +optional
	PersistentVolumeClaim string `json:"persistentVolumeClaim,omitempty" protobuf:"bytes,5,opt,name=persistentVolumeClaim"`
	// mountPoint is not written (as in aim-engine); services mount an artifact under its model id.
	// +optional
	MountPoint string `json:"mountPoint,omitempty" protobuf:"bytes,6,opt,name=mountPoint"`
}

// AIMTemplateCacheStatus is the observed state of a template cache.
type AIMTemplateCacheStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status,casttype=AIMStatus"`
	// conditions: RuntimeConfigReady, ServiceTemplateReady, ArtifactsReady, ConfigValid, AuthValid,
	// DependenciesReachable, Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,3,rep,name=conditions"`
	// resolvedTemplateKind is AIMServiceTemplate or AIMClusterServiceTemplate.
	// +optional
	ResolvedTemplateKind string `json:"resolvedTemplateKind,omitempty" protobuf:"bytes,4,opt,name=resolvedTemplateKind"`
	// resolvedRuntimeConfig is the runtime config the cache's defaults came from.
	// +optional
	ResolvedRuntimeConfig *AIMResolvedReference `json:"resolvedRuntimeConfig,omitempty" protobuf:"bytes,5,opt,name=resolvedRuntimeConfig"`
	// artifacts of the cache, by artifact name.
	// +optional
	Artifacts map[string]AIMTemplateCacheArtifactStatus `json:"artifacts,omitempty" protobuf:"bytes,6,rep,name=artifacts"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMTemplateCache pre-downloads every model source of a template into its namespace.
type AIMTemplateCache struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the cache.
	Spec AIMTemplateCacheSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMTemplateCacheStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMTemplateCacheList is a list of AIMTemplateCaches.
type AIMTemplateCacheList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the caches.
	Items []AIMTemplateCache `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// AIMArtifactSpec is the desired state of an artifact.
type AIMArtifactSpec struct {
	// sourceUri is where the weights come from: hf://org/name or s3://bucket/path. Immutable.
	// +required
	// +k8s:validation:pattern="^(hf|s3)://[^ \\t\\r\\n]+$"
	// +k8s:validation:minLength=1
	SourceURI string `json:"sourceUri" protobuf:"bytes,1,opt,name=sourceUri"`
	// modelId identifies the model as org/name.
	// +optional
	// +k8s:validation:pattern="^([a-zA-Z0-9_-]+/[a-zA-Z0-9._-]+)?$"
	ModelID string `json:"modelId,omitempty" protobuf:"bytes,2,opt,name=modelId"`
	// storageClassName of the volume; empty uses the runtime config, then the cluster default.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	StorageClassName string `json:"storageClassName,omitempty" protobuf:"bytes,3,opt,name=storageClassName"`
	// size of the weights; when absent or 0 a check-size job measures it.
	// +optional
	WeightsSize *Quantity `json:"size,omitempty" protobuf:"bytes,4,opt,name=size"`
	// env of the download and check-size jobs, for example credentials.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,5,rep,name=env"`
	// modelDownloadImage is the image of the check-size and download Jobs. Defaults to
	// ghcr.io/silogen/aim-artifact-downloader:0.2.0.
	// +optional
	// +k8s:validation:pattern="^([^ \\t\\r\\n]*[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^ \\t\\r\\n]*)?$"
	// +default="ghcr.io/silogen/aim-artifact-downloader:0.2.0"
	ModelDownloadImage string `json:"modelDownloadImage,omitempty" protobuf:"bytes,6,opt,name=modelDownloadImage"`
	// imagePullSecrets for the downloader image.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,7,rep,name=imagePullSecrets"`
	// runtimeConfigName is the runtime config to take defaults from.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	RuntimeConfigName string `json:"runtimeConfigName,omitempty" protobuf:"bytes,8,opt,name=runtimeConfigName"`
}

// AIMDownloadProgress reports how much of an artifact is downloaded.
type AIMDownloadProgress struct {
	// totalBytes to download.
	// +optional
	// +k8s:validation:minimum=0
	TotalBytes int64 `json:"totalBytes,omitempty" protobuf:"varint,1,opt,name=totalBytes"`
	// downloadedBytes so far.
	// +optional
	// +k8s:validation:minimum=0
	DownloadedBytes int64 `json:"downloadedBytes,omitempty" protobuf:"varint,2,opt,name=downloadedBytes"`
	// percentage downloaded, 0 to 100.
	// +optional
	// +k8s:validation:minimum=0
	// +k8s:validation:maximum=100
	Percentage int32 `json:"percentage,omitempty" protobuf:"varint,3,opt,name=percentage"`
	// displayPercentage is a display string such as "45 %".
	// +optional
	DisplayPercentage string `json:"displayPercentage,omitempty" protobuf:"bytes,4,opt,name=displayPercentage"`
}

// AIMDownloadState is written by the downloader.
type AIMDownloadState struct {
	// protocol in use, for example XET or HTTP.
	// +optional
	Protocol string `json:"protocol,omitempty" protobuf:"bytes,1,opt,name=protocol"`
	// attempt is the current attempt.
	// +optional
	Attempt int32 `json:"attempt,omitempty" protobuf:"varint,2,opt,name=attempt"`
	// totalAttempts is the number of attempts allowed.
	// +optional
	TotalAttempts int32 `json:"totalAttempts,omitempty" protobuf:"varint,3,opt,name=totalAttempts"`
	// protocolSequence is the order in which protocols are tried.
	// +optional
	ProtocolSequence string `json:"protocolSequence,omitempty" protobuf:"bytes,4,opt,name=protocolSequence"`
	// message from the downloader.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// AIMArtifactStatus is the observed state of an artifact.
type AIMArtifactStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status,casttype=AIMStatus"`
	// conditions of the artifact.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,3,rep,name=conditions"`
	// progress of the download.
	// +optional
	Progress *AIMDownloadProgress `json:"progress,omitempty" protobuf:"bytes,4,opt,name=progress"`
	// download state written by the downloader.
	// +optional
	Download *AIMDownloadState `json:"download,omitempty" protobuf:"bytes,5,opt,name=download"`
	// displaySize is the model size for display, for example 15.3 GiB.
	// +optional
	DisplaySize string `json:"displaySize,omitempty" protobuf:"bytes,6,opt,name=displaySize"`
	// lastUsed is not written by aim-apiserver (nor by aim-engine); kept for compatibility.
	// +optional
	LastUsed *metav1.Time `json:"lastUsed,omitempty" protobuf:"bytes,7,opt,name=lastUsed"`
	// persistentVolumeClaim holding the weights.
	// +optional
	PersistentVolumeClaim string `json:"persistentVolumeClaim,omitempty" protobuf:"bytes,8,opt,name=persistentVolumeClaim"`
	// mode is Shared or Dedicated.
	// +optional
	Mode AIMTemplateCacheMode `json:"mode,omitempty" protobuf:"bytes,9,opt,name=mode,casttype=AIMTemplateCacheMode"`
	// discoveredSizeBytes is the size measured by the check-size job.
	// +optional
	// +k8s:validation:minimum=0
	DiscoveredSizeBytes *int64 `json:"discoveredSizeBytes,omitempty" protobuf:"varint,10,opt,name=discoveredSizeBytes"`
	// allocatedSize is the size of the volume.
	// +optional
	AllocatedSize *Quantity `json:"allocatedSize,omitempty" protobuf:"bytes,11,opt,name=allocatedSize"`
	// headroomPercent is the extra space allocated over the model size.
	// +optional
	HeadroomPercent *int32 `json:"headroomPercent,omitempty" protobuf:"varint,12,opt,name=headroomPercent"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMArtifact is one downloaded model (hf:// or s3://) on a volume.
type AIMArtifact struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the artifact.
	Spec AIMArtifactSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller and the downloader.
	// +optional
	Status AIMArtifactStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMArtifactList is a list of AIMArtifacts.
type AIMArtifactList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the artifacts.
	Items []AIMArtifact `json:"items" protobuf:"bytes,2,rep,name=items"`
}
