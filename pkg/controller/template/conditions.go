package template

import (
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Component names of AIMServiceTemplates and AIMClusterServiceTemplates; each reports a <Name>Ready condition.
// The model is ModelReady on templates and ClusterModelReady on cluster templates, as aim-engine names them;
// DiscoveryPods is reported while the discovery Job runs, TemplateCache only when applying the cache fails.
const (
	ComponentRuntimeConfig = runtimeconfig.ComponentName
	ComponentModel         = "Model"
	ComponentClusterModel  = "ClusterModel"
	ComponentGPU           = "GPU"
	ComponentDiscoveryJob  = "DiscoveryJob"
	ComponentDiscoveryPods = "DiscoveryPods"
	ComponentTemplateCache = "TemplateCache"
)

// ConditionDiscovered is the informational condition that says whether the template has its model sources.
const ConditionDiscovered = "Discovered"

// Reasons of Discovered.
const (
	ReasonDiscoveryComplete  = "DiscoveryComplete"
	ReasonInlineModelSources = "InlineModelSources"
	ReasonAwaitingDiscovery  = "AwaitingDiscovery"
)

// Reasons of (Cluster)ModelReady; the GPU's are gpu's, the discovery pods' health's. A model that does not exist
// is ReferenceNotFound, as aim-engine's fetch of an upstream reports it.
const (
	ReasonModelNotFound      = state.ReasonReferenceNotFound
	ReasonModelFound         = "ModelFound"
	ReasonClusterModelFound  = "ClusterModelFound"
	ReasonModelFailed        = "ModelFailed"
	ReasonClusterModelFailed = "ClusterModelFailed"
)

// Reasons of DiscoveryJobReady; a completed Job is DiscoveryComplete, a failed one keeps the reason it failed
// with (status.discovery.lastFailureReason) while the retry waits.
const (
	ReasonJobCreated             = "JobCreated"
	ReasonWaitingForSlot         = "WaitingForDiscoverySlot"
	ReasonJobRunning             = health.ReasonJobRunning
	ReasonJobFailed              = health.ReasonJobFailed
	ReasonDiscoveryOutputInvalid = "DiscoveryOutputInvalid"
	ReasonDiscoveryPodNotFound   = "DiscoveryPodNotFound"
)

// ReasonTemplateCacheConflict is TemplateCacheReady's reason when the template's cache name is taken.
const ReasonTemplateCacheConflict = "TemplateCacheConflict"
