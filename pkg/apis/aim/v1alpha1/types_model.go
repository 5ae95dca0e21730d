package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AIMModelSpec is the desired state of a model, namespaced or cluster.
type AIMModelSpec struct {
	// image is the AIM container image that serves the model, for example amdenterpriseai/aim-qwen-qwen3-32b:0.8.5.
	// +required
	// +k8s:validation:minLength=1
	// +k8s:validation:pattern="^[^ \\t\\r\\n]*[^\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^ \\t\\r\\n]*$"
	Image string `json:"image" protobuf:"bytes,1,opt,name=image"`
	// discovery controls reading the image's labels and creating templates from them.
	// +optional
	Discovery *AIMModelDiscoveryConfig `json:"discovery,omitempty" protobuf:"bytes,2,opt,name=discovery"`
	// defaultServiceTemplate is the template automatic selection prefers for services of this model.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	DefaultServiceTemplate string `json:"defaultServiceTemplate,omitempty" protobuf:"bytes,3,opt,name=defaultServiceTemplate"`
	// custom holds defaults for custom templates.
	// +optional
	Custom *AIMModelCustomConfig `json:"custom,omitempty" protobuf:"bytes,4,opt,name=custom"`
	// customTemplates each create a template of the model (at most 16).
	// +optional
	// +listType=atomic
	// +k8s:validation:maxItems=16
	CustomTemplates []AIMCustomTemplate `json:"customTemplates,omitempty" protobuf:"bytes,5,rep,name=customTemplates"`
	// modelSources makes this a custom model serving these weights (at most one). With customTemplates, each
	// needs hardware of its own or custom.hardware; without them, a model without custom.hardware gets a template
	// that requests no GPU (stored with a warning).
	// +optional
	// +listType=atomic
	// +k8s:validation:maxItems=1
	ModelSources []AIMModelSource `json:"modelSources,omitempty" protobuf:"bytes,6,rep,name=modelSources"`
	// runtimeConfigName is the runtime config to take defaults from. Empty or "default" resolves the configs
	// named default, which may be absent; any other name must exist.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	RuntimeConfigName string `json:"runtimeConfigName,omitempty" protobuf:"bytes,7,opt,name=runtimeConfigName"`
	// imagePullSecrets for reading the image from its registry (an AIMClusterModel's: in the controller's
	// namespace); copied to the model's templates.
	// +optional
	// +listType=atomic
	// +k8s:validation:items:properties:name:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +k8s:validation:items:properties:name:maxLength=253
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,8,rep,name=imagePullSecrets"`
	// env is merged by name under each custom template's env (the template's wins; AIM_ENGINE_ARGS merge as JSON).
	// Not used by an AIMClusterModel, whose templates take their env from runtime configs.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,9,rep,name=env"`
	// serviceAccountName is copied into the model's templates and runs discovery, unless the template or the
	// runtime config's discovery.serviceAccountName names another.
	// +optional
	// +k8s:validation:pattern="^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"
	// +k8s:validation:maxLength=253
	ServiceAccountName string `json:"serviceAccountName,omitempty" protobuf:"bytes,10,opt,name=serviceAccountName"`
	// resources is accepted for compatibility and not used, as in aim-engine: set resources on templates or
	// services.
	// +optional
	Resources *ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,11,opt,name=resources"`
	// imageMetadata supplied by the user (for air-gapped clusters); when set the registry is not contacted.
	// +optional
	ImageMetadata *ImageMetadata `json:"imageMetadata,omitempty" protobuf:"bytes,12,opt,name=imageMetadata"`
}

// AIMModelDiscoveryConfig controls what the controller derives from a model image.
type AIMModelDiscoveryConfig struct {
	// extractMetadata reads the image's labels from its registry. Defaults to true; not read while spec.imageMetadata
	// is set.
	// +optional
	// +default=true
	ExtractMetadata *bool `json:"extractMetadata,omitempty" protobuf:"varint,1,opt,name=extractMetadata"`
	// createServiceTemplates creates one template per recommended deployment. Defaults to true. When false the
	// model creates no templates (custom ones included) and leaves those that exist alone.
	// +optional
	// +default=true
	CreateServiceTemplates *bool `json:"createServiceTemplates,omitempty" protobuf:"varint,2,opt,name=createServiceTemplates"`
}

// AIMModelCustomConfig holds defaults for the custom templates of a model.
type AIMModelCustomConfig struct {
	// hardware of custom templates, under which each template's own hardware is merged field by field (the
	// template's fields win; gpu model and minVram replace each other).
	// +optional
	Hardware *AIMHardwareRequirements `json:"hardware,omitempty" protobuf:"bytes,1,opt,name=hardware"`
	// type of the template made for modelSources when there are no customTemplates (listed custom templates
	// default to unoptimized themselves). Defaults to unoptimized.
	// +optional
	Type *AIMProfileType `json:"type,omitempty" protobuf:"bytes,2,opt,name=type,casttype=AIMProfileType"`
}

// AIMCustomTemplate describes a template the model creates.
type AIMCustomTemplate struct {
	// name is an alias used in the template's name (at most 63 characters).
	// +optional
	// +k8s:validation:maxLength=63
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// type of the profile. Defaults to unoptimized.
	// +optional
	// +default="unoptimized"
	Type *AIMProfileType `json:"type,omitempty" protobuf:"bytes,2,opt,name=type,casttype=AIMProfileType"`
	// env of the template (at most 64 entries).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:maxItems=64
	// +k8s:validation:items:properties:name:pattern="^([-_a-zA-Z][-._a-zA-Z0-9]*|\\.[-_a-zA-Z0-9][-._a-zA-Z0-9]*)$"
	Env []corev1.EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,3,rep,name=env"`
	// hardware of the template, merged field by field over the model's custom.hardware (its fields win).
	// +optional
	Hardware *AIMHardwareRequirements `json:"hardware,omitempty" protobuf:"bytes,4,opt,name=hardware"`
	// profile selects metric and precision.
	// +optional
	Profile *AIMCustomTemplateProfile `json:"profile,omitempty" protobuf:"bytes,5,opt,name=profile"`
}

// AIMCustomTemplateProfile selects metric and precision of a custom template.
type AIMCustomTemplateProfile struct {
	// metric is latency or throughput.
	// +optional
	Metric *AIMMetric `json:"metric,omitempty" protobuf:"bytes,1,opt,name=metric,casttype=AIMMetric"`
	// precision of the template.
	// +optional
	Precision *AIMPrecision `json:"precision,omitempty" protobuf:"bytes,2,opt,name=precision,casttype=AIMPrecision"`
}

// ImageMetadata is what the controller knows about a model image, from its labels or from the user.
type ImageMetadata struct {
	// model metadata from the com.amd.aim.* labels.
	// +optional
	Model *ModelMetadata `json:"model,omitempty" protobuf:"bytes,1,opt,name=model"`
	// oci metadata from the org.opencontainers.image.* labels.
	// +optional
	OCI *OCIMetadata `json:"oci,omitempty" protobuf:"bytes,2,opt,name=oci"`
	// originalLabels are the image labels as read.
	// +optional
	OriginalLabels map[string]string `json:"originalLabels,omitempty" protobuf:"bytes,3,rep,name=originalLabels"`
}

// ModelMetadata describes the model an AIM image serves.
type ModelMetadata struct {
	// canonicalName of the model, for example Qwen/Qwen3-32B.
	// +optional
	CanonicalName string `json:"canonicalName,omitempty" protobuf:"bytes,1,opt,name=canonicalName"`
	// source of the model weights.
	// +optional
	Source string `json:"source,omitempty" protobuf:"bytes,2,opt,name=source"`
	// tags of the model.
	// +optional
	// +listType=atomic
	Tags []string `json:"tags,omitempty" protobuf:"bytes,3,rep,name=tags"`
	// versions of the model.
	// +optional
	// +listType=atomic
	Versions []string `json:"versions,omitempty" protobuf:"bytes,4,rep,name=versions"`
	// variants of the model.
	// +optional
	// +listType=atomic
	Variants []string `json:"variants,omitempty" protobuf:"bytes,5,rep,name=variants"`
	// hfTokenRequired is true when downloading the weights needs a Hugging Face token.
	// +optional
	HFTokenRequired bool `json:"hfTokenRequired,omitempty" protobuf:"varint,6,opt,name=hfTokenRequired"`
	// title of the model.
	// +optional
	Title string `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	// descriptionFull is the long description.
	// +optional
	DescriptionFull string `json:"descriptionFull,omitempty" protobuf:"bytes,8,opt,name=descriptionFull"`
	// releaseNotes of the image.
	// +optional
	ReleaseNotes string `json:"releaseNotes,omitempty" protobuf:"bytes,9,opt,name=releaseNotes"`
	// recommendedDeployments are the GPU configurations the image is tuned for; each yields a template.
	// +optional
	// +listType=atomic
	RecommendedDeployments []RecommendedDeployment `json:"recommendedDeployments,omitempty" protobuf:"bytes,10,rep,name=recommendedDeployments"`
}

// RecommendedDeployment is a GPU configuration an AIM image is tuned for.
type RecommendedDeployment struct {
	// gpuModel, for example MI300X.
	// +optional
	// +k8s:validation:maxLength=64
	GPUModel string `json:"gpuModel,omitempty" protobuf:"bytes,1,opt,name=gpuModel"`
	// gpuCount per replica.
	// +optional
	// +k8s:validation:minimum=0
	GPUCount int32 `json:"gpuCount,omitempty" protobuf:"varint,2,opt,name=gpuCount"`
	// precision of the profile.
	// +optional
	// +k8s:validation:pattern="^(auto|fp4|fp8|fp16|fp32|bf16|int4|int8)?$"
	Precision string `json:"precision,omitempty" protobuf:"bytes,3,opt,name=precision"`
	// metric of the profile.
	// +optional
	// +k8s:validation:pattern="^(latency|throughput)?$"
	Metric string `json:"metric,omitempty" protobuf:"bytes,4,opt,name=metric"`
	// profileId of the profile inside the image.
	// +optional
	ProfileID string `json:"profileId,omitempty" protobuf:"bytes,5,opt,name=profileId"`
	// description of the deployment.
	// +optional
	Description string `json:"description,omitempty" protobuf:"bytes,6,opt,name=description"`
}

// OCIMetadata holds the standard org.opencontainers.image.* labels.
type OCIMetadata struct {
	// title of the image.
	// +optional
	Title string `json:"title,omitempty" protobuf:"bytes,1,opt,name=title"`
	// description of the image.
	// +optional
	Description string `json:"description,omitempty" protobuf:"bytes,2,opt,name=description"`
	// licenses of the image contents (SPDX).
	// +optional
	Licenses string `json:"licenses,omitempty" protobuf:"bytes,3,opt,name=licenses"`
	// vendor of the image.
	// +optional
	Vendor string `json:"vendor,omitempty" protobuf:"bytes,4,opt,name=vendor"`
	// authors of the image.
	// +optional
	Authors string `json:"authors,omitempty" protobuf:"bytes,5,opt,name=authors"`
	// source is the URL of the image's source code.
	// +optional
	Source string `json:"source,omitempty" protobuf:"bytes,6,opt,name=source"`
	// documentation URL.
	// +optional
	Documentation string `json:"documentation,omitempty" protobuf:"bytes,7,opt,name=documentation"`
	// created is when the image was built (RFC 3339).
	// +optional
	Created string `json:"created,omitempty" protobuf:"bytes,8,opt,name=created"`
	// revision of the source the image was built from.
	// +optional
	Revision string `json:"revision,omitempty" protobuf:"bytes,9,opt,name=revision"`
	// version of the packaged software.
	// +optional
	Version string `json:"version,omitempty" protobuf:"bytes,10,opt,name=version"`
}

// AIMModelSourceType says where a model's weights come from.
// +enum
type AIMModelSourceType string

const (
	// AIMModelSourceTypeImage: the weights are described by the image.
	AIMModelSourceTypeImage AIMModelSourceType = "Image"
	// AIMModelSourceTypeCustom: the weights are listed in spec.modelSources.
	AIMModelSourceTypeCustom AIMModelSourceType = "Custom"
)

// AIMModelStatus is the observed state of a model, namespaced or cluster.
type AIMModelStatus struct {
	// observedGeneration is the spec generation the status describes.
	// +optional
	// +k8s:validation:minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	// +optional
	// +k8s:validation:pattern="^(Pending|Progressing|Ready|Degraded|Failed|NotAvailable)?$"
	// +default="Pending"
	Status AIMStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status,casttype=AIMStatus"`
	// conditions: RuntimeConfigReady, ImageMetadataReady, ServiceTemplatesReady (ClusterServiceTemplatesReady on
	// an AIMClusterModel), ConfigValid, AuthValid, DependenciesReachable, Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,3,rep,name=conditions"`
	// resolvedRuntimeConfig is the runtime config the model's defaults came from.
	// +optional
	ResolvedRuntimeConfig *AIMResolvedReference `json:"resolvedRuntimeConfig,omitempty" protobuf:"bytes,4,opt,name=resolvedRuntimeConfig"`
	// imageMetadata read from the image or copied from the spec.
	// +optional
	ImageMetadata *ImageMetadata `json:"imageMetadata,omitempty" protobuf:"bytes,5,opt,name=imageMetadata"`
	// sourceType is Image or Custom.
	// +optional
	SourceType AIMModelSourceType `json:"sourceType,omitempty" protobuf:"bytes,6,opt,name=sourceType,casttype=AIMModelSourceType"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMModel is a catalog entry in a namespace: a model name mapped to the AIM image that serves it.
type AIMModel struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the model.
	Spec AIMModelSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMModelStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMModelList is a list of AIMModels.
type AIMModelList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the models.
	Items []AIMModel `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModel is a cluster-wide catalog entry.
type AIMClusterModel struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec of the model.
	Spec AIMModelSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// status is written by the controller.
	// +optional
	Status AIMModelStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelList is a list of AIMClusterModels.
type AIMClusterModelList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// items are the models.
	Items []AIMClusterModel `json:"items" protobuf:"bytes,2,rep,name=items"`
}
