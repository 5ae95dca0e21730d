package templatecache

import "github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"

// Component names of AIMTemplateCaches; each reports a <Name>Ready condition.
const (
	ComponentRuntimeConfig = runtimeconfig.ComponentName
	ComponentTemplate      = "ServiceTemplate"
	ComponentArtifacts     = "Artifacts"
)

// Reasons of ServiceTemplateReady. A template that is not Ready lends the cache its Ready reason when it has
// one (TemplateNotReady when not); a Ready template lends its Ready reason too (ResourceFound without one).
const (
	// ReasonTemplateNotFound is the reason of a template that does not exist (in the cache's scope).
	ReasonTemplateNotFound = "ReferenceNotFound"
	ReasonTemplateNotReady = "TemplateNotReady"
	ReasonTemplateFound    = "TemplateFound"
	ReasonResourceFound    = "ResourceFound"
)

// MessageNoReadyCondition is aim-engine's message of ResourceFound (reconcile.go:98).
const MessageNoReadyCondition = "Resource found but no Ready condition present"

// Reasons of ArtifactsReady. An artifact that is not Ready lends the cache its Ready reason when it has one.
const (
	ReasonNoCaches         = "NoCaches"
	ReasonCreatingCaches   = "CreatingCaches"
	ReasonAllCachesReady   = "AllCachesReady"
	ReasonCachesNotReady   = "CachesNotReady"
	ReasonArtifactConflict = "ArtifactConflict"
)
