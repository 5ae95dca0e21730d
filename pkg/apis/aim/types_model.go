package aim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AIMModelSpec is the desired state of a model, namespaced or cluster.
type AIMModelSpec struct {
	// image is the AIM container image that serves the model, for example amdenterpriseai/aim-qwen-qwen3-32b:0.8.5.
	Image string
	// discovery controls reading the image's labels and creating templates from them.
	Discovery *AIMModelDiscoveryConfig
	// defaultServiceTemplate is the template automatic selection prefers for services of this model.
	DefaultServiceTemplate string
	// custom holds defaults for custom templates.
	Custom *AIMModelCustomConfig
	// customTemplates each create a template of the model (at most 16).
	CustomTemplates []AIMCustomTemplate
	// modelSources makes this a custom model serving these weights (at most one). With customTemplates, each
	// needs hardware of its own or custom.hardware; without them, a model without custom.hardware gets a template
	// that requests no GPU (stored with a warning).
	ModelSources []AIMModelSource
	// runtimeConfigName is the runtime config to take defaults from. Empty or "default" resolves the configs
	// named default, which may be absent; any other name must exist.
	RuntimeConfigName string
	// imagePullSecrets for reading the image from its registry (an AIMClusterModel's: in the controller's
	// namespace); copied to the model's templates.
	ImagePullSecrets []corev1.LocalObjectReference
	// env is merged by name under each custom template's env (the template's wins; AIM_ENGINE_ARGS merge as JSON).
	// Not used by an AIMClusterModel, whose templates take their env from runtime configs.
	Env []corev1.EnvVar
	// serviceAccountName is copied into the model's templates and runs discovery, unless the template or the
	// runtime config's discovery.serviceAccountName names another.
	ServiceAccountName string
	// resources is accepted for compatibility and not used, as in aim-engine: set resources on templates or
	// services.
	Resources *ResourceRequirements
	// imageMetadata supplied by the user (for air-gapped clusters); when set the registry is not contacted.
	ImageMetadata *ImageMetadata
}

// AIMModelDiscoveryConfig controls what the controller derives from a model image.
type AIMModelDiscoveryConfig struct {
	// extractMetadata reads the image's labels from its registry. Defaults to true.
	ExtractMetadata *bool
	// createServiceTemplates creates one template per recommended deployment. Defaults to true. When false the
	// model creates no templates (custom ones included) and leaves those that exist alone.
	CreateServiceTemplates *bool
}

// AIMModelCustomConfig holds defaults for the custom templates of a model.
type AIMModelCustomConfig struct {
	// hardware of custom templates, under which each template's own hardware is merged field by field (the
	// template's fields win; gpu model and minVram replace each other).
	Hardware *AIMHardwareRequirements
	// type of the template made for modelSources when there are no customTemplates (listed custom templates
	// default to unoptimized themselves). Defaults to unoptimized.
	Type *AIMProfileType
}

// AIMCustomTemplate describes a template the model creates.
type AIMCustomTemplate struct {
	// name is an alias used in the template's name (at most 63 characters).
	Name string
	// type of the profile. Defaults to unoptimized.
	Type *AIMProfileType
	// env of the template (at most 64 entries).
	Env []corev1.EnvVar
	// hardware of the template, merged field by field over the model's custom.hardware (its fields win).
	Hardware *AIMHardwareRequirements
	// profile selects metric and precision.
	Profile *AIMCustomTemplateProfile
}

// AIMCustomTemplateProfile selects metric and precision of a custom template.
type AIMCustomTemplateProfile struct {
	// metric is latency or throughput.
	Metric *AIMMetric
	// precision of the template.
	Precision *AIMPrecision
}

// ImageMetadata is what the controller knows about a model image, from its labels or from the user.
type ImageMetadata struct {
	// model metadata from the com.amd.aim.* labels.
	Model *ModelMetadata
	// oci metadata from the org.opencontainers.image.* labels.
	OCI *OCIMetadata
	// originalLabels are the image labels as read.
	OriginalLabels map[string]string
}

// ModelMetadata describes the model an AIM image serves.
type ModelMetadata struct {
	// canonicalName of the model, for example Qwen/Qwen3-32B.
	CanonicalName string
	// source of the model weights.
	Source string
	// tags of the model.
	Tags []string
	// versions of the model.
	Versions []string
	// variants of the model.
	Variants []string
	// hfTokenRequired is true when downloading the weights needs a Hugging Face token.
	HFTokenRequired bool
	// title of the model.
	Title string
	// descriptionFull is the long description.
	DescriptionFull string
	// releaseNotes of the image.
	ReleaseNotes string
	// recommendedDeployments are the GPU configurations the image is tuned for; each yields a template.
	RecommendedDeployments []RecommendedDeployment
}

// RecommendedDeployment is a GPU configuration an AIM image is tuned for.
type RecommendedDeployment struct {
	// gpuModel, for example MI300X.
	GPUModel string
	// gpuCount per replica.
	GPUCount int32
	// precision of the profile.
	Precision string
	// metric of the profile.
	Metric string
	// profileId of the profile inside the image.
	ProfileID string
	// description of the deployment.
	Description string
}

// OCIMetadata holds the standard org.opencontainers.image.* labels.
type OCIMetadata struct {
	// title of the image.
	Title string
	// description of the image.
	Description string
	// licenses of the image contents (SPDX).
	Licenses string
	// vendor of the image.
	Vendor string
	// authors of the image.
	Authors string
	// source is the URL of the image's source code.
	Source string
	// documentation URL.
	Documentation string
	// created is when the image was built (RFC 3339).
	Created string
	// revision of the source the image was built from.
	Revision string
	// version of the packaged software.
	Version string
}

// AIMModelSourceType says where a model's weights come from.
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
	ObservedGeneration int64
	// status is Pending, Progressing, Ready, Degraded, Failed or NotAvailable.
	Status AIMStatus
	// conditions: RuntimeConfigReady, ImageMetadataReady, ServiceTemplatesReady (ClusterServiceTemplatesReady on
	// an AIMClusterModel), ConfigValid, AuthValid, DependenciesReachable, Ready.
	Conditions []metav1.Condition
	// resolvedRuntimeConfig is the runtime config the model's defaults came from.
	ResolvedRuntimeConfig *AIMResolvedReference
	// imageMetadata read from the image or copied from the spec.
	ImageMetadata *ImageMetadata
	// sourceType is Image or Custom.
	SourceType AIMModelSourceType
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMModel is a catalog entry in a namespace: a model name mapped to the AIM image that serves it.
type AIMModel struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the model.
	Spec AIMModelSpec
	// status is written by the controller.
	Status AIMModelStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMModelList is a list of AIMModels.
type AIMModelList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the models.
	Items []AIMModel
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModel is a cluster-wide catalog entry.
type AIMClusterModel struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// spec of the model.
	Spec AIMModelSpec
	// status is written by the controller.
	Status AIMModelStatus
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// AIMClusterModelList is a list of AIMClusterModels.
type AIMClusterModelList struct {
	metav1.TypeMeta
	metav1.ListMeta
	// items are the models.
	Items []AIMClusterModel
}
