package model

import "github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"

// Component names of AIMModels and AIMClusterModels; each reports a <Name>Ready condition. The templates are
// ServiceTemplatesReady on models and ClusterServiceTemplatesReady on cluster models, as aim-engine names them.
const (
	ComponentRuntimeConfig           = runtimeconfig.ComponentName
	ComponentImageMetadata           = "ImageMetadata"
	ComponentServiceTemplates        = "ServiceTemplates"
	ComponentClusterServiceTemplates = "ClusterServiceTemplates"
)

// Reasons of ImageMetadataReady; errors reading the registry or the pull secrets have imagemeta's reasons.
const (
	ReasonImageMetadataFound = "ImageMetadataFound"
	ReasonImageFound         = "ImageFound"
	ReasonExtractionDisabled = "ExtractionDisabled"
	ReasonInvalidImageLabels = "InvalidImageLabels"
)

// Reasons of (Cluster)ServiceTemplatesReady (TemplatesComponent, awaitingMetadata).
const (
	ReasonAwaitingMetadata      = "AwaitingMetadata"
	ReasonNoTemplatesExpected   = "NoTemplatesExpected"
	ReasonCreatingTemplates     = "CreatingTemplates"
	ReasonAllTemplatesFailed    = "AllTemplatesFailed"
	ReasonSomeTemplatesDegraded = "SomeTemplatesDegraded"
	ReasonNoTemplatesAvailable  = "NoTemplatesAvailable"
	ReasonTemplatesProgressing  = "TemplatesProgressing"
	ReasonAllTemplatesReady     = "AllTemplatesReady"
	ReasonSomeTemplatesReady    = "SomeTemplatesReady"
)
