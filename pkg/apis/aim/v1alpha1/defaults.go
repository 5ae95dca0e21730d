package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// Defaults written into stored objects. Runtime configs deliberately have none: a stored default would count
// as "set" and override the cluster config (see AIMRuntimeConfigSpec).
const (
	DefaultReplicas           int32 = 1
	DefaultPVCHeadroomPercent int32 = 10
	DefaultMetricsBackend           = "opentelemetry"
	DefaultRegistry                 = "docker.io"
	DefaultSyncInterval             = time.Hour
	DefaultMaxModels          int32 = 100
)

func addDefaultingFuncs(scheme *runtime.Scheme) error {
	return RegisterDefaults(scheme)
}

func SetDefaults_AIMServiceSpec(obj *AIMServiceSpec) {
	if obj.Replicas == nil {
		obj.Replicas = ptr.To(DefaultReplicas)
	}
	if obj.Caching == nil {
		obj.Caching = &AIMServiceCaching{}
	}
	if obj.Caching.Mode == "" {
		obj.Caching.Mode = AIMCachingModeShared
	}
	if obj.Storage != nil && obj.Storage.PVCHeadroomPercent == nil {
		obj.Storage.PVCHeadroomPercent = ptr.To(DefaultPVCHeadroomPercent)
	}
}

func SetDefaults_AIMServicePodMetric(obj *AIMServicePodMetric) {
	if obj.Backend == "" {
		obj.Backend = DefaultMetricsBackend
	}
}

func SetDefaults_AIMGpuRequirements(obj *AIMGpuRequirements) {
	if obj.ResourceName == "" {
		obj.ResourceName = DefaultGPUResourceName
	}
}

func SetDefaults_AIMModelDiscoveryConfig(obj *AIMModelDiscoveryConfig) {
	if obj.ExtractMetadata == nil {
		obj.ExtractMetadata = ptr.To(true)
	}
	if obj.CreateServiceTemplates == nil {
		obj.CreateServiceTemplates = ptr.To(true)
	}
}

func SetDefaults_AIMCustomTemplate(obj *AIMCustomTemplate) {
	if obj.Type == nil {
		obj.Type = ptr.To(AIMProfileTypeUnoptimized)
	}
}

func SetDefaults_AIMTemplateCacheSpec(obj *AIMTemplateCacheSpec) {
	if obj.Mode == "" {
		obj.Mode = AIMTemplateCacheModeShared
	}
}

func SetDefaults_AIMClusterModelSourceSpec(obj *AIMClusterModelSourceSpec) {
	if obj.Registry == "" {
		obj.Registry = DefaultRegistry
	}
	if obj.SyncInterval == nil {
		obj.SyncInterval = &metav1.Duration{Duration: DefaultSyncInterval}
	}
	if obj.MaxModels == nil {
		obj.MaxModels = ptr.To(DefaultMaxModels)
	}
}

// Every status starts Pending until the controller has looked at the object.

func SetDefaults_AIMServiceStatus(obj *AIMServiceStatus)                 { defaultStatus(&obj.Status) }
func SetDefaults_AIMServiceTemplateStatus(obj *AIMServiceTemplateStatus) { defaultStatus(&obj.Status) }
func SetDefaults_AIMModelStatus(obj *AIMModelStatus)                     { defaultStatus(&obj.Status) }
func SetDefaults_AIMRuntimeConfigStatus(obj *AIMRuntimeConfigStatus)     { defaultStatus(&obj.Status) }
func SetDefaults_AIMTemplateCacheStatus(obj *AIMTemplateCacheStatus)     { defaultStatus(&obj.Status) }
func SetDefaults_AIMArtifactStatus(obj *AIMArtifactStatus)               { defaultStatus(&obj.Status) }
func SetDefaults_AIMClusterModelSourceStatus(obj *AIMClusterModelSourceStatus) {
	defaultStatus(&obj.Status)
}

func defaultStatus(s *AIMStatus) {
	if *s == "" {
		*s = AIMStatusPending
	}
}
