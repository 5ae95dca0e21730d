package service

import (
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// Component names of an AIMService; each reports a <Name>Ready condition. HPA is reported for autoscaled
// services only (KEDA's HorizontalPodAutoscaler), with health.Autoscaler's reasons.
const (
	ComponentModel         = "Model"
	ComponentTemplate      = "Template"
	ComponentRuntimeConfig = runtimeconfig.ComponentName
	ComponentISVC          = "InferenceService"
	ComponentPods          = "InferenceServicePods"
	ComponentCache         = "Cache"
	ComponentRoute         = "HTTPRoute"
	ComponentHPA           = "HPA"
)

// Reasons of ModelReady.
const (
	ReasonModelNotFound         = "ModelNotFound"
	ReasonInvalidImageReference = "InvalidImageReference"
	ReasonCreatingModel         = "CreatingModel"
	ReasonAmbiguousModelImage   = "AmbiguousModelImage"
	ReasonInvalidModelSpec      = "InvalidModelSpec"
	ReasonModelResolved         = "ModelResolved"
	ReasonModelNotReady         = "ModelNotReady"
	// ReasonModelConflict: another AIMModel holds the name of the model to create for spec.model.image or
	// .custom (ModelReady, Failed).
	ReasonModelConflict = "ModelConflict"
)

// Reasons of TemplateReady.
const (
	ReasonTemplateNotFound = "TemplateNotFound"
	ReasonAwaitingModel    = "AwaitingModel"
	// ReasonTemplateUnready is the Template component's reason for a template that is not Ready, whatever the
	// state it is in (the reference's TemplateNotReady).
	ReasonTemplateUnready = "TemplateNotReady"
	// ReasonAmbiguous is a tie of the selection (F3), in TemplateReady and in the tied candidates' verdicts.
	ReasonAmbiguous               = "TemplateSelectionAmbiguous"
	ReasonTemplateResolved        = "Resolved"
	ReasonCreatingDerivedTemplate = "CreatingDerivedTemplate"
	// ReasonDerivedTemplateConflict: another object holds the name of the template derived for spec.overrides
	// (TemplateReady, Failed).
	ReasonDerivedTemplateConflict = "DerivedTemplateConflict"
)

// Reasons of CacheReady.
const (
	ReasonCacheCreating = "CacheCreating"
	ReasonCacheReady    = "CacheReady"
	ReasonCacheFailed   = "CacheFailed"
	ReasonCacheNotReady = "CacheNotReady"
	ReasonCacheLost     = "CacheLost"
	// ReasonCacheConflict: another template's cache holds the name of the service's shared cache.
	ReasonCacheConflict = "CacheConflict"
)

// Reasons of InferenceServiceReady besides health.InferenceService's (CreatingRuntime, RuntimeReady, and KServe's
// InternalError and ServerlessModeRejected, the reasons of the Warning events that fail an InferenceService).
const ReasonKServeNotInstalled = "KServeNotInstalled"

// Reasons of HTTPRouteReady; a gateway that rejects the route gives its own reason.
const (
	ReasonGatewayNotConfigured   = "GatewayNotConfigured"
	ReasonPathTemplateInvalid    = "PathTemplateInvalid"
	ReasonHTTPRouteCreating      = "HTTPRouteCreating"
	ReasonHTTPRouteAccepted      = gateway.ReasonAccepted
	ReasonHTTPRouteRejected      = "HTTPRouteRejected"
	ReasonHTTPRoutePending       = "HTTPRoutePending"
	ReasonGatewayAPINotInstalled = "GatewayAPINotInstalled"
)
