package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// The accessors of aim-engine's API types, with its names and meanings, so that Go code written against
// aim-engine's package ports unchanged. The controller derives and writes every status through them
// (pkg/controller/reconcile), and reads a service's caching mode and whether a model makes templates through
// them. The runtime configs' GetStatus is ours: aim-engine has none there.

// ShouldCreateTemplates reports whether the model makes and keeps its templates: unless
// spec.discovery.createServiceTemplates is false.
func (s *AIMModelSpec) ShouldCreateTemplates() bool {
	return s.Discovery == nil || s.Discovery.CreateServiceTemplates == nil || *s.Discovery.CreateServiceTemplates
}

// ShouldExtractMetadata reports whether the model reads its image's labels from the registry: unless
// spec.discovery.extractMetadata is false.
func (s *AIMModelSpec) ShouldExtractMetadata() bool {
	return s.Discovery == nil || s.Discovery.ExtractMetadata == nil || *s.Discovery.ExtractMetadata
}

// GetCachingMode returns the caching mode a service's spec means: the internal type's rule (the legacy Never is
// Dedicated; Auto, Always and an absent mode are Shared), which the API's warnings read too.
func (spec *AIMServiceSpec) GetCachingMode() AIMCachingMode {
	var internal aim.AIMServiceSpec
	if c := spec.Caching; c != nil {
		internal.Caching = &aim.AIMServiceCaching{Mode: aim.AIMCachingMode(c.Mode)}
	}
	return AIMCachingMode(internal.GetCachingMode())
}

// Autoscaled reports whether KEDA scales the service: the internal type's rule (any of autoScaling, minReplicas
// and maxReplicas set), which the API's warnings read too.
func (spec *AIMServiceSpec) Autoscaled() bool {
	internal := aim.AIMServiceSpec{MinReplicas: spec.MinReplicas, MaxReplicas: spec.MaxReplicas}
	if spec.AutoScaling != nil {
		internal.AutoScaling = &aim.AIMServiceAutoScaling{}
	}
	return internal.Autoscaled()
}

// GetStatus returns the model's status, to read or set in place.
func (m *AIMModel) GetStatus() *AIMModelStatus { return &m.Status }

// GetStatus returns the cluster model's status, to read or set in place.
func (m *AIMClusterModel) GetStatus() *AIMModelStatus { return &m.Status }

// GetStatus returns the template's status, to read or set in place.
func (t *AIMServiceTemplate) GetStatus() *AIMServiceTemplateStatus { return &t.Status }

// GetStatus returns the cluster template's status, to read or set in place.
func (t *AIMClusterServiceTemplate) GetStatus() *AIMServiceTemplateStatus { return &t.Status }

// GetStatus returns the service's status, to read or set in place.
func (s *AIMService) GetStatus() *AIMServiceStatus { return &s.Status }

// GetStatus returns the template cache's status, to read or set in place.
func (c *AIMTemplateCache) GetStatus() *AIMTemplateCacheStatus { return &c.Status }

// GetStatus returns the artifact's status, to read or set in place.
func (a *AIMArtifact) GetStatus() *AIMArtifactStatus { return &a.Status }

// GetStatus returns the model source's status, to read or set in place.
func (s *AIMClusterModelSource) GetStatus() *AIMClusterModelSourceStatus { return &s.Status }

// GetStatus returns the runtime config's status, to read or set in place.
func (c *AIMRuntimeConfig) GetStatus() *AIMRuntimeConfigStatus { return &c.Status }

// GetStatus returns the cluster runtime config's status, to read or set in place.
func (c *AIMClusterRuntimeConfig) GetStatus() *AIMRuntimeConfigStatus { return &c.Status }

// GetConditions returns the model's conditions.
func (s *AIMModelStatus) GetConditions() []metav1.Condition { return s.Conditions }

// SetConditions replaces the model's conditions.
func (s *AIMModelStatus) SetConditions(conditions []metav1.Condition) { s.Conditions = conditions }

// SetStatus sets the model's summary status.
func (s *AIMModelStatus) SetStatus(status string) { s.Status = AIMStatus(status) }

// GetAIMStatus returns the model's summary status.
func (s *AIMModelStatus) GetAIMStatus() AIMStatus { return s.Status }

// GetConditions returns the template's conditions.
func (s *AIMServiceTemplateStatus) GetConditions() []metav1.Condition { return s.Conditions }

// SetConditions replaces the template's conditions.
func (s *AIMServiceTemplateStatus) SetConditions(conditions []metav1.Condition) {
	s.Conditions = conditions
}

// SetStatus sets the template's summary status.
func (s *AIMServiceTemplateStatus) SetStatus(status string) { s.Status = AIMStatus(status) }

// GetAIMStatus returns the template's summary status.
func (s *AIMServiceTemplateStatus) GetAIMStatus() AIMStatus { return s.Status }

// GetConditions returns the service's conditions.
func (s *AIMServiceStatus) GetConditions() []metav1.Condition { return s.Conditions }

// SetConditions replaces the service's conditions.
func (s *AIMServiceStatus) SetConditions(conditions []metav1.Condition) { s.Conditions = conditions }

// SetStatus sets the service's summary status in a service's words: what every other kind calls Progressing is
// Starting here, and Ready is Running.
func (s *AIMServiceStatus) SetStatus(status string) {
	switch AIMStatus(status) {
	case AIMStatusProgressing:
		s.Status = AIMStatusStarting
	case AIMStatusReady:
		s.Status = AIMStatusRunning
	default:
		s.Status = AIMStatus(status)
	}
}

// GetAIMStatus returns the service's summary status.
func (s *AIMServiceStatus) GetAIMStatus() AIMStatus { return s.Status }

// GetConditions returns the template cache's conditions.
func (s *AIMTemplateCacheStatus) GetConditions() []metav1.Condition { return s.Conditions }

// SetConditions replaces the template cache's conditions.
func (s *AIMTemplateCacheStatus) SetConditions(conditions []metav1.Condition) {
	s.Conditions = conditions
}

// SetStatus sets the template cache's summary status.
func (s *AIMTemplateCacheStatus) SetStatus(status string) { s.Status = AIMStatus(status) }

// GetAIMStatus returns the template cache's summary status.
func (s *AIMTemplateCacheStatus) GetAIMStatus() AIMStatus { return s.Status }

// GetConditions returns the artifact's conditions.
func (s *AIMArtifactStatus) GetConditions() []metav1.Condition { return s.Conditions }

// SetConditions replaces the artifact's conditions.
func (s *AIMArtifactStatus) SetConditions(conditions []metav1.Condition) { s.Conditions = conditions }

// SetStatus sets the artifact's summary status.
func (s *AIMArtifactStatus) SetStatus(status string) { s.Status = AIMStatus(status) }

// GetAIMStatus returns the artifact's summary status.
func (s *AIMArtifactStatus) GetAIMStatus() AIMStatus { return s.Status }

// GetConditions returns the model source's conditions.
func (s *AIMClusterModelSourceStatus) GetConditions() []metav1.Condition { return s.Conditions }

// SetConditions replaces the model source's conditions.
func (s *AIMClusterModelSourceStatus) SetConditions(conditions []metav1.Condition) {
	s.Conditions = conditions
}

// SetStatus sets the model source's summary status.
func (s *AIMClusterModelSourceStatus) SetStatus(status string) { s.Status = AIMStatus(status) }
