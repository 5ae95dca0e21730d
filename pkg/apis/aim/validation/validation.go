package validation

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

const (
	maxCustomTemplates       = 16
	maxCustomTemplateName    = 63
	maxCustomTemplateEnv     = 64
	maxModelSourcesPerModel  = 1
	maxModelSourceFilters    = 100
	maxFilterImageLength     = 512
	minMaxModels             = 1
	maxMaxModels             = 10000
	podMetricType            = "PodMetric"
	openTelemetryBackend     = "opentelemetry"
	routingPathTemplateLimit = 1024
)

var (
	cachingModes = sets.New(
		string(aim.AIMCachingModeShared), string(aim.AIMCachingModeDedicated), string(aim.AIMCachingModeNever),
		string(aim.AIMCachingModeAuto), string(aim.AIMCachingModeAlways))
	cacheModes = sets.New(string(aim.AIMTemplateCacheModeShared), string(aim.AIMTemplateCacheModeDedicated))
	// nodeSelectorOperators are the operators of a node selector requirement.
	nodeSelectorOperators = sets.New(string(corev1.NodeSelectorOpIn), string(corev1.NodeSelectorOpNotIn),
		string(corev1.NodeSelectorOpExists), string(corev1.NodeSelectorOpDoesNotExist),
		string(corev1.NodeSelectorOpGt), string(corev1.NodeSelectorOpLt))
	scopes = sets.New(
		string(aim.AIMTemplateScopeNamespace), string(aim.AIMTemplateScopeCluster), string(aim.AIMTemplateScopeUnknown))
	metricTargetTypes = sets.New("Value", "AverageValue", "Utilization")
	tolerationOps     = sets.New(string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists))
	taintEffects      = sets.New(
		string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute))
	// A repository with optional registry host and port, * wildcards, and an optional :tag.
	filterImagePattern = regexp.MustCompile(`^([a-zA-Z0-9.-]+(:[0-9]+)?/)?[a-z0-9*._/-]+(:[a-zA-Z0-9*._-]+)?$`)
	registryPattern    = regexp.MustCompile(`^[a-zA-Z0-9.-]+(:[0-9]+)?(/[a-z0-9._/-]+)?$`)
)

var specPath = field.NewPath("spec")
var statusPath = field.NewPath("status")

// ---- AIMService -------------------------------------------------------------------------------------------

// ValidateAIMService validates a service on create.
func ValidateAIMService(obj *aim.AIMService) field.ErrorList {
	errs := ValidateObjectMeta(&obj.ObjectMeta, true)
	return append(errs, validateServiceSpec(&obj.Spec, specPath)...)
}

// ValidateAIMServiceSpec validates a service's spec as a create does.
func ValidateAIMServiceSpec(spec *aim.AIMServiceSpec) field.ErrorList {
	return validateServiceSpec(spec, specPath)
}

// ValidateAIMServiceUpdate validates a service update: the spec as on create plus immutable fields.
func ValidateAIMServiceUpdate(obj, old *aim.AIMService) field.ErrorList {
	errs := validateServiceSpec(&obj.Spec, specPath)
	errs = append(errs, immutable(modelByKeys(obj.Spec.Model), modelByKeys(old.Spec.Model), specPath.Child("model"))...)
	// As aim-engine's transition rules (self == oldSelf on the field's type), which apply only when both the old
	// and the new object have the field: adding or removing template or caching is allowed, changing either is not.
	if obj.Spec.Template != nil && old.Spec.Template != nil {
		errs = append(errs, immutable(obj.Spec.Template, old.Spec.Template, specPath.Child("template"))...)
	}
	if obj.Spec.Caching != nil && old.Spec.Caching != nil {
		errs = append(errs, immutable(obj.Spec.Caching, old.Spec.Caching, specPath.Child("caching"))...)
	}
	if obj.Spec.Overrides != nil && old.Spec.Overrides != nil {
		errs = append(errs, validateRuntimeParametersUpdate(obj.Spec.Overrides, old.Spec.Overrides, specPath.Child("overrides"))...)
	} else if old.Spec.Overrides != nil && *old.Spec.Overrides != (aim.AIMRuntimeParameters{}) {
		// Removing overrides that set nothing ({}) changes nothing; removing any other does.
		errs = append(errs, field.Invalid(specPath.Child("overrides"), "", immutableOnceSetMsg))
	}
	return errs
}

// ValidateAIMServiceStatus validates a status write.
func ValidateAIMServiceStatus(obj *aim.AIMService) field.ErrorList {
	s := &obj.Status
	errs := validateStatusCommon(s.Status, serviceStatuses, s.ObservedGeneration, s.Conditions, statusPath)
	errs = append(errs, validateResolvedReference(s.ResolvedModel, statusPath.Child("resolvedModel"))...)
	errs = append(errs, validateResolvedReference(s.ResolvedTemplate, statusPath.Child("resolvedTemplate"))...)
	errs = append(errs, validateResolvedReference(s.ResolvedRuntimeConfig, statusPath.Child("resolvedRuntimeConfig"))...)
	if s.Cache != nil {
		errs = append(errs, validateResolvedReference(s.Cache.TemplateCacheRef, statusPath.Child("cache", "templateCacheRef"))...)
	}
	if s.TemplateMatching != nil {
		for i, c := range s.TemplateMatching.Candidates {
			p := statusPath.Child("templateMatching", "candidates").Index(i)
			errs = append(errs, validateRequiredName(c.Name, p.Child("name"))...)
			errs = append(errs, validateResolutionScope(c.Scope, p.Child("scope"))...)
			errs = append(errs, validateEnum(c.Status, sets.New("chosen", "rejected"), p.Child("status"))...)
		}
	}
	return errs
}

func validateServiceSpec(spec *aim.AIMServiceSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateServiceModel(&spec.Model, fldPath.Child("model"))...)
	if spec.Template != nil {
		errs = append(errs, validateOptionalName(spec.Template.Name, fldPath.Child("template", "name"))...)
	}
	if spec.Caching != nil && spec.Caching.Mode != "" {
		errs = append(errs, validateEnum(string(spec.Caching.Mode), cachingModes, fldPath.Child("caching", "mode"))...)
	}
	if spec.Replicas != nil {
		errs = append(errs, validateNonNegative(int64(*spec.Replicas), fldPath.Child("replicas"))...)
	}
	if spec.MinReplicas != nil && *spec.MinReplicas < 1 {
		errs = append(errs, field.Invalid(fldPath.Child("minReplicas"), *spec.MinReplicas, "must be greater than or equal to 1"))
	}
	if spec.MaxReplicas != nil && *spec.MaxReplicas < 1 {
		errs = append(errs, field.Invalid(fldPath.Child("maxReplicas"), *spec.MaxReplicas, "must be greater than or equal to 1"))
	}
	if spec.AutoScaling != nil {
		errs = append(errs, validateAutoScaling(spec.AutoScaling, fldPath.Child("autoScaling"))...)
	}
	errs = append(errs, validateOptionalName(spec.RuntimeConfigName, fldPath.Child("runtimeConfigName"))...)
	errs = append(errs, validateStorage(spec.Storage, fldPath.Child("storage"))...)
	errs = append(errs, validateRouting(spec.Routing, fldPath.Child("routing"))...)
	errs = append(errs, validateEnv(spec.Env, fldPath.Child("env"))...)
	errs = append(errs, validateResources(spec.Resources, fldPath.Child("resources"))...)
	if spec.Overrides != nil {
		errs = append(errs, validateRuntimeParameters(spec.Overrides, fldPath.Child("overrides"))...)
	}
	errs = append(errs, validatePullSecrets(spec.ImagePullSecrets, fldPath.Child("imagePullSecrets"))...)
	errs = append(errs, validateOptionalName(spec.ServiceAccountName, fldPath.Child("serviceAccountName"))...)
	return errs
}

func validateServiceModel(m *aim.AIMServiceModel, fldPath *field.Path) field.ErrorList {
	var set []string
	if m.Name != nil {
		set = append(set, "name")
	}
	if m.Image != nil {
		set = append(set, "image")
	}
	if m.Custom != nil {
		set = append(set, "custom")
	}
	switch len(set) {
	case 0:
		return field.ErrorList{field.Required(fldPath, "exactly one of name, image or custom is required")}
	case 1:
	default:
		return field.ErrorList{field.Invalid(fldPath, strings.Join(set, ", "), "exactly one of name, image or custom may be set")}
	}
	var errs field.ErrorList
	if m.Name != nil {
		errs = append(errs, validateRequiredName(*m.Name, fldPath.Child("name"))...)
	}
	if m.Image != nil {
		errs = append(errs, validateImage(*m.Image, fldPath.Child("image"))...)
	}
	if c := m.Custom; c != nil {
		p := fldPath.Child("custom")
		errs = append(errs, validateImage(c.BaseImage, p.Child("baseImage"))...)
		if len(c.ModelSources) != 1 {
			errs = append(errs, field.Invalid(p.Child("modelSources"), len(c.ModelSources), "must have exactly 1 item"))
		}
		errs = append(errs, validateModelSources(c.ModelSources, p.Child("modelSources"))...)
		errs = append(errs, validateHardware(&c.Hardware, p.Child("hardware"))...)
	}
	return errs
}

func validateAutoScaling(a *aim.AIMServiceAutoScaling, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, m := range a.Metrics {
		p := fldPath.Child("metrics").Index(i)
		errs = append(errs, validateEnum(m.Type, sets.New(podMetricType), p.Child("type"))...)
		if m.PodMetric == nil {
			if m.Type == podMetricType {
				errs = append(errs, field.Required(p.Child("podmetric"), "required when type is PodMetric"))
			}
			continue
		}
		pm := p.Child("podmetric")
		if m.PodMetric.Metric == nil {
			errs = append(errs, field.Required(pm.Child("metric"), "the metric to scale on, for example metricNames and query"))
		} else if b := m.PodMetric.Metric.Backend; b != "" {
			errs = append(errs, validateEnum(b, sets.New(openTelemetryBackend), pm.Child("metric", "backend"))...)
		}
		t := m.PodMetric.Target
		tp := pm.Child("target")
		errs = append(errs, validateEnum(t.Type, metricTargetTypes, tp.Child("type"))...)
		errs = append(errs, validateQuantityString(t.Value, tp.Child("value"))...)
		errs = append(errs, validateQuantityString(t.AverageValue, tp.Child("averageValue"))...)
		switch t.Type {
		case "Value":
			if t.Value == "" {
				errs = append(errs, field.Required(tp.Child("value"), "required when type is Value"))
			}
		case "AverageValue":
			if t.AverageValue == "" {
				errs = append(errs, field.Required(tp.Child("averageValue"), "required when type is AverageValue"))
			}
		case "Utilization":
			if t.AverageUtilization == nil {
				errs = append(errs, field.Required(tp.Child("averageUtilization"), "required when type is Utilization"))
			}
		}
		if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
			errs = append(errs, field.Invalid(tp.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
		}
	}
	return errs
}

func validateQuantityString(s string, fldPath *field.Path) field.ErrorList {
	if s == "" {
		return nil
	}
	if _, err := resource.ParseQuantity(s); err != nil {
		return field.ErrorList{field.Invalid(fldPath, s, "must be a quantity such as 10, 500m or 1Gi")}
	}
	return nil
}

// ---- AIMServiceTemplate / AIMClusterServiceTemplate ---------------------------------------------------------

// ValidateAIMServiceTemplate validates a namespaced template on create.
func ValidateAIMServiceTemplate(obj *aim.AIMServiceTemplate) field.ErrorList {
	return append(ValidateObjectMeta(&obj.ObjectMeta, true), validateServiceTemplateSpec(&obj.Spec)...)
}

func validateServiceTemplateSpec(spec *aim.AIMServiceTemplateSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateTemplateSpecCommon(&spec.AIMServiceTemplateSpecCommon, specPath)...)
	if c := spec.Caching; c != nil {
		errs = append(errs, validateEnv(c.Env, specPath.Child("caching", "env"))...)
	}
	return errs
}

// ValidateAIMServiceTemplateUpdate validates a namespaced template update.
func ValidateAIMServiceTemplateUpdate(obj, old *aim.AIMServiceTemplate) field.ErrorList {
	errs := validateServiceTemplateSpec(&obj.Spec)
	return append(errs, validateTemplateSpecCommonUpdate(&obj.Spec.AIMServiceTemplateSpecCommon, &old.Spec.AIMServiceTemplateSpecCommon)...)
}

// ValidateAIMClusterServiceTemplate validates a cluster template on create.
func ValidateAIMClusterServiceTemplate(obj *aim.AIMClusterServiceTemplate) field.ErrorList {
	errs := ValidateObjectMeta(&obj.ObjectMeta, false)
	return append(errs, validateTemplateSpecCommon(&obj.Spec.AIMServiceTemplateSpecCommon, specPath)...)
}

// ValidateAIMClusterServiceTemplateUpdate validates a cluster template update.
func ValidateAIMClusterServiceTemplateUpdate(obj, old *aim.AIMClusterServiceTemplate) field.ErrorList {
	errs := validateTemplateSpecCommon(&obj.Spec.AIMServiceTemplateSpecCommon, specPath)
	return append(errs, validateTemplateSpecCommonUpdate(&obj.Spec.AIMServiceTemplateSpecCommon, &old.Spec.AIMServiceTemplateSpecCommon)...)
}

// ValidateAIMServiceTemplateStatus validates a status write of either template kind.
func ValidateAIMServiceTemplateStatus(s *aim.AIMServiceTemplateStatus) field.ErrorList {
	errs := validateStatusCommon(s.Status, componentStatuses, s.ObservedGeneration, s.Conditions, statusPath)
	errs = append(errs, validateResolvedReference(s.ResolvedModel, statusPath.Child("resolvedModel"))...)
	errs = append(errs, validateResolvedReference(s.ResolvedRuntimeConfig, statusPath.Child("resolvedRuntimeConfig"))...)
	errs = append(errs, validateResolvedReference(s.ResolvedCache, statusPath.Child("resolvedCache"))...)
	errs = append(errs, validateResolvedReference(s.DiscoveryJob, statusPath.Child("discoveryJob"))...)
	if s.ResolvedHardware != nil {
		errs = append(errs, validateHardware(s.ResolvedHardware, statusPath.Child("resolvedHardware"))...)
	}
	errs = append(errs, validateModelSources(s.ModelSources, statusPath.Child("modelSources"))...)
	if d := s.Discovery; d != nil {
		errs = append(errs, validateNonNegative(int64(d.Attempts), statusPath.Child("discovery", "attempts"))...)
	}
	errs = append(errs, validateNodeAffinity(s.ResolvedNodeAffinity, statusPath.Child("resolvedNodeAffinity"))...)
	if pr := s.Profile; pr != nil {
		mp := statusPath.Child("profile", "metadata")
		if m := pr.Metadata.Metric; m != "" {
			errs = append(errs, validateEnum(string(m), metrics, mp.Child("metric"))...)
		}
		if v := pr.Metadata.Precision; v != "" {
			errs = append(errs, validateEnum(string(v), precisions, mp.Child("precision"))...)
		}
		if v := pr.Metadata.Type; v != "" {
			errs = append(errs, validateEnum(string(v), profileTypes, mp.Child("type"))...)
		}
		errs = append(errs, validateNonNegative(int64(pr.Metadata.GPUCount), mp.Child("gpuCount"))...)
	}
	return errs
}

// validateNodeAffinity checks what the schema of a NodeAffinity requires: terms, and in each requirement a key
// and a known operator; a preferred term needs a weight of 1 to 100 and its preference.
func validateNodeAffinity(a *corev1.NodeAffinity, fldPath *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	requirements := func(reqs []corev1.NodeSelectorRequirement, p *field.Path) {
		for i, r := range reqs {
			rp := p.Index(i)
			if r.Key == "" {
				errs = append(errs, field.Required(rp.Child("key"), ""))
			}
			errs = append(errs, validateEnum(string(r.Operator), nodeSelectorOperators, rp.Child("operator"))...)
		}
	}
	term := func(t corev1.NodeSelectorTerm, p *field.Path) {
		requirements(t.MatchExpressions, p.Child("matchExpressions"))
		requirements(t.MatchFields, p.Child("matchFields"))
	}
	if r := a.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		p := fldPath.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
		if r.NodeSelectorTerms == nil {
			errs = append(errs, field.Required(p, ""))
		}
		for i, t := range r.NodeSelectorTerms {
			term(t, p.Index(i))
		}
	}
	for i, pt := range a.PreferredDuringSchedulingIgnoredDuringExecution {
		p := fldPath.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if pt.Weight < 1 || pt.Weight > 100 {
			errs = append(errs, field.Invalid(p.Child("weight"), pt.Weight, "must be between 1 and 100"))
		}
		term(pt.Preference, p.Child("preference"))
	}
	return errs
}

func validateTemplateSpecCommon(spec *aim.AIMServiceTemplateSpecCommon, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateRequiredName(spec.ModelName, fldPath.Child("modelName"))...)
	errs = append(errs, validateRuntimeParameters(&spec.AIMRuntimeParameters, fldPath)...)
	errs = append(errs, validateOptionalName(spec.RuntimeConfigName, fldPath.Child("runtimeConfigName"))...)
	errs = append(errs, validatePullSecrets(spec.ImagePullSecrets, fldPath.Child("imagePullSecrets"))...)
	errs = append(errs, validateOptionalName(spec.ServiceAccountName, fldPath.Child("serviceAccountName"))...)
	errs = append(errs, validateResources(spec.Resources, fldPath.Child("resources"))...)
	errs = append(errs, validateModelSources(spec.ModelSources, fldPath.Child("modelSources"))...)
	if spec.Type != nil {
		errs = append(errs, validateEnum(string(*spec.Type), profileTypes, fldPath.Child("type"))...)
	}
	errs = append(errs, validateEnv(spec.Env, fldPath.Child("env"))...)
	return errs
}

func validateTemplateSpecCommonUpdate(spec, old *aim.AIMServiceTemplateSpecCommon) field.ErrorList {
	errs := immutable(spec.ModelName, old.ModelName, specPath.Child("modelName"))
	return append(errs, validateRuntimeParametersUpdate(&spec.AIMRuntimeParameters, &old.AIMRuntimeParameters, specPath)...)
}

// ---- AIMModel / AIMClusterModel -----------------------------------------------------------------------------

// ValidateAIMModel validates a namespaced model.
func ValidateAIMModel(obj *aim.AIMModel) field.ErrorList {
	errs := ValidateObjectMeta(&obj.ObjectMeta, true)
	return append(errs, validateModelSpec(&obj.Spec, specPath)...)
}

// ValidateAIMModelUpdate validates a namespaced model update.
func ValidateAIMModelUpdate(obj, old *aim.AIMModel) field.ErrorList {
	return validateModelSpec(&obj.Spec, specPath)
}

// ValidateAIMClusterModel validates a cluster model.
func ValidateAIMClusterModel(obj *aim.AIMClusterModel) field.ErrorList {
	errs := ValidateObjectMeta(&obj.ObjectMeta, false)
	return append(errs, validateModelSpec(&obj.Spec, specPath)...)
}

// ValidateAIMClusterModelUpdate validates a cluster model update.
func ValidateAIMClusterModelUpdate(obj, old *aim.AIMClusterModel) field.ErrorList {
	return validateModelSpec(&obj.Spec, specPath)
}

// ValidateAIMModelStatus validates a status write of either model kind.
func ValidateAIMModelStatus(s *aim.AIMModelStatus) field.ErrorList {
	errs := validateStatusCommon(s.Status, componentStatuses, s.ObservedGeneration, s.Conditions, statusPath)
	errs = append(errs, validateResolvedReference(s.ResolvedRuntimeConfig, statusPath.Child("resolvedRuntimeConfig"))...)
	if s.SourceType != "" {
		errs = append(errs, validateEnum(string(s.SourceType), sets.New(
			string(aim.AIMModelSourceTypeImage), string(aim.AIMModelSourceTypeCustom)), statusPath.Child("sourceType"))...)
	}
	if s.ImageMetadata != nil {
		errs = append(errs, ValidateImageMetadata(s.ImageMetadata, statusPath.Child("imageMetadata"))...)
	}
	return errs
}

func validateModelSpec(spec *aim.AIMModelSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateImage(spec.Image, fldPath.Child("image"))...)
	errs = append(errs, validateOptionalName(spec.DefaultServiceTemplate, fldPath.Child("defaultServiceTemplate"))...)
	if c := spec.Custom; c != nil {
		if c.Hardware != nil {
			errs = append(errs, validateHardware(c.Hardware, fldPath.Child("custom", "hardware"))...)
		}
		if c.Type != nil {
			errs = append(errs, validateEnum(string(*c.Type), profileTypes, fldPath.Child("custom", "type"))...)
		}
	}
	if len(spec.CustomTemplates) > maxCustomTemplates {
		errs = append(errs, field.TooMany(fldPath.Child("customTemplates"), len(spec.CustomTemplates), maxCustomTemplates))
	}
	for i := range spec.CustomTemplates {
		errs = append(errs, validateCustomTemplate(&spec.CustomTemplates[i], fldPath.Child("customTemplates").Index(i))...)
	}
	if len(spec.ModelSources) > maxModelSourcesPerModel {
		errs = append(errs, field.TooMany(fldPath.Child("modelSources"), len(spec.ModelSources), maxModelSourcesPerModel))
	}
	errs = append(errs, validateModelSources(spec.ModelSources, fldPath.Child("modelSources"))...)
	// aim-engine's rule: custom templates without hardware need custom.hardware. Without custom templates a
	// model with modelSources may have no hardware at all (advice: ModelAdvice).
	if len(spec.ModelSources) > 0 && len(spec.CustomTemplates) > 0 && !customModelHasHardware(spec) {
		errs = append(errs, field.Required(fldPath.Child("custom", "hardware"),
			"when using modelSources, hardware must be specified: set custom.hardware (inherited by all templates) or hardware on each template"))
	}
	errs = append(errs, validateOptionalName(spec.RuntimeConfigName, fldPath.Child("runtimeConfigName"))...)
	errs = append(errs, validatePullSecrets(spec.ImagePullSecrets, fldPath.Child("imagePullSecrets"))...)
	errs = append(errs, validateEnv(spec.Env, fldPath.Child("env"))...)
	errs = append(errs, validateOptionalName(spec.ServiceAccountName, fldPath.Child("serviceAccountName"))...)
	errs = append(errs, validateResources(spec.Resources, fldPath.Child("resources"))...)
	if spec.ImageMetadata != nil {
		errs = append(errs, ValidateImageMetadata(spec.ImageMetadata, fldPath.Child("imageMetadata"))...)
	}
	return errs
}

func customModelHasHardware(spec *aim.AIMModelSpec) bool {
	if spec.Custom != nil && spec.Custom.Hardware != nil {
		return true
	}
	if len(spec.CustomTemplates) == 0 {
		return false
	}
	for _, t := range spec.CustomTemplates {
		if t.Hardware == nil {
			return false
		}
	}
	return true
}

func validateCustomTemplate(t *aim.AIMCustomTemplate, fldPath *field.Path) field.ErrorList {
	errs := validateMaxLength(t.Name, maxCustomTemplateName, fldPath.Child("name"))
	if t.Type != nil {
		errs = append(errs, validateEnum(string(*t.Type), profileTypes, fldPath.Child("type"))...)
	}
	if len(t.Env) > maxCustomTemplateEnv {
		errs = append(errs, field.TooMany(fldPath.Child("env"), len(t.Env), maxCustomTemplateEnv))
	}
	errs = append(errs, validateEnv(t.Env, fldPath.Child("env"))...)
	if t.Hardware != nil {
		errs = append(errs, validateHardware(t.Hardware, fldPath.Child("hardware"))...)
	}
	if p := t.Profile; p != nil {
		errs = append(errs, validateRuntimeParameters(&aim.AIMRuntimeParameters{Metric: p.Metric, Precision: p.Precision}, fldPath.Child("profile"))...)
	}
	return errs
}

// ValidateImageMetadata checks an image's metadata, in a model's spec or status: the controller also checks what
// it reads from an image's labels with it, before it writes them to a status.
func ValidateImageMetadata(m *aim.ImageMetadata, fldPath *field.Path) field.ErrorList {
	if m.Model == nil {
		return nil
	}
	var errs field.ErrorList
	for i, d := range m.Model.RecommendedDeployments {
		p := fldPath.Child("model", "recommendedDeployments").Index(i)
		errs = append(errs, validateNonNegative(int64(d.GPUCount), p.Child("gpuCount"))...)
		errs = append(errs, validateMaxLength(d.GPUModel, maxGPUModelLength, p.Child("gpuModel"))...)
		if d.Metric != "" {
			errs = append(errs, validateEnum(d.Metric, metrics, p.Child("metric"))...)
		}
		if d.Precision != "" {
			errs = append(errs, validateEnum(d.Precision, precisions, p.Child("precision"))...)
		}
	}
	return errs
}

// ---- AIMRuntimeConfig / AIMClusterRuntimeConfig ------------------------------------------------------------

// ValidateAIMRuntimeConfig validates a namespaced runtime config.
func ValidateAIMRuntimeConfig(obj *aim.AIMRuntimeConfig) field.ErrorList {
	errs := ValidateObjectMeta(&obj.ObjectMeta, true)
	return append(errs, ValidateRuntimeConfigSpec(&obj.Spec, specPath)...)
}

// ValidateAIMRuntimeConfigUpdate validates a namespaced runtime config update.
func ValidateAIMRuntimeConfigUpdate(obj, old *aim.AIMRuntimeConfig) field.ErrorList {
	return ValidateRuntimeConfigSpec(&obj.Spec, specPath)
}

// ValidateAIMClusterRuntimeConfig validates a cluster runtime config.
func ValidateAIMClusterRuntimeConfig(obj *aim.AIMClusterRuntimeConfig) field.ErrorList {
	errs := ValidateObjectMeta(&obj.ObjectMeta, false)
	return append(errs, ValidateRuntimeConfigSpec(&obj.Spec, specPath)...)
}

// ValidateAIMClusterRuntimeConfigUpdate validates a cluster runtime config update.
func ValidateAIMClusterRuntimeConfigUpdate(obj, old *aim.AIMClusterRuntimeConfig) field.ErrorList {
	return ValidateRuntimeConfigSpec(&obj.Spec, specPath)
}

// ValidateAIMRuntimeConfigStatus validates a status write of either runtime config kind.
func ValidateAIMRuntimeConfigStatus(s *aim.AIMRuntimeConfigStatus) field.ErrorList {
	errs := validateStatusCommon(s.Status, componentStatuses, s.ObservedGeneration, s.Conditions, statusPath)
	return append(errs, validateNonNegative(int64(s.Consumers), statusPath.Child("consumers"))...)
}

// ValidateRuntimeConfigSpec validates the spec shared by both runtime config kinds. The controller also uses it
// to report Valid on configs stored before a rule existed.
func ValidateRuntimeConfigSpec(spec *aim.AIMRuntimeConfigSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateStorage(spec.Storage, fldPath.Child("storage"))...)
	errs = append(errs, validateRouting(spec.Routing, fldPath.Child("routing"))...)
	errs = append(errs, validateEnv(spec.Env, fldPath.Child("env"))...)
	if lp := spec.LabelPropagation; lp != nil {
		for i, pattern := range lp.Match {
			p := fldPath.Child("labelPropagation", "match").Index(i)
			if pattern == "" {
				errs = append(errs, field.Required(p, "a glob on label keys"))
			} else if _, err := filepath.Match(pattern, ""); err != nil {
				errs = append(errs, field.Invalid(p, pattern, "must be a valid glob: "+err.Error()))
			}
		}
	}
	if s := spec.Scheduling; s != nil {
		p := fldPath.Child("scheduling")
		for i := range s.Tolerations {
			errs = append(errs, validateToleration(&s.Tolerations[i], p.Child("tolerations").Index(i))...)
		}
		errs = append(errs, validateLabelSelectorMap(s.NodeSelector, p.Child("nodeSelector"))...)
		if s.PriorityClassName != nil {
			errs = append(errs, validateRequiredName(*s.PriorityClassName, p.Child("priorityClassName"))...)
		}
	}
	if d := spec.Discovery; d != nil {
		p := fldPath.Child("discovery")
		if d.ServiceAccountName != nil {
			errs = append(errs, validateRequiredName(*d.ServiceAccountName, p.Child("serviceAccountName"))...)
		}
		if d.MaxConcurrentJobs != nil && *d.MaxConcurrentJobs < 1 {
			errs = append(errs, field.Invalid(p.Child("maxConcurrentJobs"), *d.MaxConcurrentJobs, "must be greater than or equal to 1"))
		}
	}
	errs = append(errs, validateOptionalName(spec.DefaultStorageClassName, fldPath.Child("defaultStorageClassName"))...)
	if spec.PVCHeadroomPercent != nil {
		errs = append(errs, validateNonNegative(int64(*spec.PVCHeadroomPercent), fldPath.Child("pvcHeadroomPercent"))...)
	}
	return errs
}

func validateToleration(t *corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Key != "" {
		for _, msg := range utilvalidation.IsQualifiedName(t.Key) {
			errs = append(errs, field.Invalid(fldPath.Child("key"), t.Key, msg))
		}
	}
	op := string(t.Operator)
	if op != "" {
		errs = append(errs, validateEnum(op, tolerationOps, fldPath.Child("operator"))...)
	}
	switch {
	case t.Key == "" && op != string(corev1.TolerationOpExists):
		errs = append(errs, field.Invalid(fldPath.Child("operator"), op, "must be Exists when key is empty"))
	case op == string(corev1.TolerationOpExists) && t.Value != "":
		errs = append(errs, field.Invalid(fldPath.Child("value"), t.Value, "must be empty when operator is Exists"))
	}
	if t.Effect != "" {
		errs = append(errs, validateEnum(string(t.Effect), taintEffects, fldPath.Child("effect"))...)
	}
	if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
		errs = append(errs, field.Invalid(fldPath.Child("effect"), string(t.Effect), "must be NoExecute when tolerationSeconds is set"))
	}
	return errs
}

// ---- AIMTemplateCache ---------------------------------------------------------------------------------------

// ValidateAIMTemplateCache validates a template cache.
func ValidateAIMTemplateCache(obj *aim.AIMTemplateCache) field.ErrorList {
	return append(ValidateObjectMeta(&obj.ObjectMeta, true), validateTemplateCacheSpec(&obj.Spec)...)
}

func validateTemplateCacheSpec(spec *aim.AIMTemplateCacheSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateRequiredName(spec.TemplateName, specPath.Child("templateName"))...)
	if spec.TemplateScope == "" {
		errs = append(errs, field.Required(specPath.Child("templateScope"), "Namespace or Cluster: where the template is"))
	} else {
		errs = append(errs, validateEnum(string(spec.TemplateScope), scopes, specPath.Child("templateScope"))...)
	}
	errs = append(errs, validateEnv(spec.Env, specPath.Child("env"))...)
	errs = append(errs, validatePullSecrets(spec.ImagePullSecrets, specPath.Child("imagePullSecrets"))...)
	errs = append(errs, validateOptionalName(spec.StorageClassName, specPath.Child("storageClassName"))...)
	if spec.DownloadImage != "" {
		errs = append(errs, validateImage(spec.DownloadImage, specPath.Child("downloadImage"))...)
	}
	errs = append(errs, validateModelSources(spec.ModelSources, specPath.Child("modelSources"))...)
	errs = append(errs, validateOptionalName(spec.RuntimeConfigName, specPath.Child("runtimeConfigName"))...)
	if spec.Mode != "" {
		errs = append(errs, validateEnum(string(spec.Mode), cacheModes, specPath.Child("mode"))...)
	}
	return errs
}

// ValidateAIMTemplateCacheUpdate validates a template cache update. A cache stored before templateScope was
// required may keep it empty (ratcheting), so that its finalizer can still be removed and it can be deleted.
func ValidateAIMTemplateCacheUpdate(obj, old *aim.AIMTemplateCache) field.ErrorList {
	errs := validateTemplateCacheSpec(&obj.Spec)
	if obj.Spec.TemplateScope == "" && old.Spec.TemplateScope == "" {
		errs = slices.DeleteFunc(errs, func(e *field.Error) bool {
			return e.Type == field.ErrorTypeRequired && e.Field == specPath.Child("templateScope").String()
		})
	}
	return errs
}

// ValidateAIMTemplateCacheStatus validates a status write.
func ValidateAIMTemplateCacheStatus(obj *aim.AIMTemplateCache) field.ErrorList {
	s := &obj.Status
	errs := validateStatusCommon(s.Status, componentStatuses, s.ObservedGeneration, s.Conditions, statusPath)
	errs = append(errs, validateResolvedReference(s.ResolvedRuntimeConfig, statusPath.Child("resolvedRuntimeConfig"))...)
	for name, a := range s.Artifacts {
		p := statusPath.Child("artifacts").Key(name)
		for f, v := range map[string]string{"uid": string(a.UID), "name": a.Name, "model": a.Model, "status": string(a.Status)} {
			if v == "" {
				errs = append(errs, field.Required(p.Child(f), ""))
			}
		}
		if a.Status != "" {
			errs = append(errs, validateEnum(string(a.Status), componentStatuses, p.Child("status"))...)
		}
	}
	return errs
}

// ---- AIMArtifact --------------------------------------------------------------------------------------------

// ValidateAIMArtifact validates an artifact.
func ValidateAIMArtifact(obj *aim.AIMArtifact) field.ErrorList {
	return append(ValidateObjectMeta(&obj.ObjectMeta, true), validateArtifactSpec(&obj.Spec)...)
}

func validateArtifactSpec(spec *aim.AIMArtifactSpec) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateSourceURI(spec.SourceURI, specPath.Child("sourceUri"))...)
	errs = append(errs, validateModelID(spec.ModelID, false, specPath.Child("modelId"))...)
	errs = append(errs, validateOptionalName(spec.StorageClassName, specPath.Child("storageClassName"))...)
	if spec.WeightsSize != nil {
		errs = append(errs, validateNonNegativeQuantity(*spec.WeightsSize, specPath.Child("size"))...)
	}
	errs = append(errs, validateEnv(spec.Env, specPath.Child("env"))...)
	if spec.ModelDownloadImage != "" {
		errs = append(errs, validateImage(spec.ModelDownloadImage, specPath.Child("modelDownloadImage"))...)
	}
	errs = append(errs, validatePullSecrets(spec.ImagePullSecrets, specPath.Child("imagePullSecrets"))...)
	errs = append(errs, validateOptionalName(spec.RuntimeConfigName, specPath.Child("runtimeConfigName"))...)
	return errs
}

// ValidateAIMArtifactUpdate validates an artifact update; sourceUri is immutable.
func ValidateAIMArtifactUpdate(obj, old *aim.AIMArtifact) field.ErrorList {
	errs := validateArtifactSpec(&obj.Spec)
	return append(errs, immutable(obj.Spec.SourceURI, old.Spec.SourceURI, specPath.Child("sourceUri"))...)
}

// ValidateAIMArtifactStatus validates a status write.
func ValidateAIMArtifactStatus(obj *aim.AIMArtifact) field.ErrorList {
	s := &obj.Status
	errs := validateStatusCommon(s.Status, componentStatuses, s.ObservedGeneration, s.Conditions, statusPath)
	if p := s.Progress; p != nil {
		pp := statusPath.Child("progress")
		errs = append(errs, validateNonNegative(p.TotalBytes, pp.Child("totalBytes"))...)
		errs = append(errs, validateNonNegative(p.DownloadedBytes, pp.Child("downloadedBytes"))...)
		if p.Percentage < 0 || p.Percentage > 100 {
			errs = append(errs, field.Invalid(pp.Child("percentage"), p.Percentage, "must be between 0 and 100"))
		}
	}
	if s.Mode != "" {
		errs = append(errs, validateEnum(string(s.Mode), cacheModes, statusPath.Child("mode"))...)
	}
	if s.DiscoveredSizeBytes != nil {
		errs = append(errs, validateNonNegative(*s.DiscoveredSizeBytes, statusPath.Child("discoveredSizeBytes"))...)
	}
	if s.AllocatedSize != nil {
		errs = append(errs, validateQuantity(*s.AllocatedSize, statusPath.Child("allocatedSize"))...)
	}
	return errs
}

// ---- AIMClusterModelSource ----------------------------------------------------------------------------------

// ValidateAIMClusterModelSource validates a model source.
func ValidateAIMClusterModelSource(obj *aim.AIMClusterModelSource) field.ErrorList {
	return append(ValidateObjectMeta(&obj.ObjectMeta, false), validateModelSourceSpec(&obj.Spec)...)
}

func validateModelSourceSpec(spec *aim.AIMClusterModelSourceSpec) field.ErrorList {
	var errs field.ErrorList
	if spec.Registry != "" && !registryPattern.MatchString(spec.Registry) {
		errs = append(errs, field.Invalid(specPath.Child("registry"), spec.Registry, "must be a registry host such as docker.io or ghcr.io, optionally with a port"))
	}
	errs = append(errs, validatePullSecrets(spec.ImagePullSecrets, specPath.Child("imagePullSecrets"))...)
	fp := specPath.Child("filters")
	switch n := len(spec.Filters); {
	case n == 0:
		errs = append(errs, field.Required(fp, "at least one filter is required"))
	case n > maxModelSourceFilters:
		errs = append(errs, field.TooMany(fp, n, maxModelSourceFilters))
	}
	for i, f := range spec.Filters {
		p := fp.Index(i)
		switch {
		case f.Image == "":
			errs = append(errs, field.Required(p.Child("image"), "a repository such as amdenterpriseai/aim-*"))
		case longerThan(f.Image, maxFilterImageLength):
			errs = append(errs, tooLong(p.Child("image"), maxFilterImageLength))
		case !filterImagePattern.MatchString(f.Image):
			errs = append(errs, field.Invalid(p.Child("image"), f.Image, "must be a repository with optional * wildcards and an optional :tag"))
		}
		for j, e := range f.Exclude {
			if e == "" {
				errs = append(errs, field.Required(p.Child("exclude").Index(j), ""))
			}
		}
	}
	// 0s is the default interval, as aim-engine's controller reads it.
	if spec.SyncInterval != nil && spec.SyncInterval.Duration < 0 {
		errs = append(errs, field.Invalid(specPath.Child("syncInterval"), spec.SyncInterval.Duration.String(), "must not be negative"))
	}
	if m := spec.MaxModels; m != nil && (*m < minMaxModels || *m > maxMaxModels) {
		errs = append(errs, field.Invalid(specPath.Child("maxModels"), *m, fmt.Sprintf("must be between %d and %d", minMaxModels, maxMaxModels)))
	}
	return errs
}

// ValidateAIMClusterModelSourceUpdate validates a model source update.
func ValidateAIMClusterModelSourceUpdate(obj, old *aim.AIMClusterModelSource) field.ErrorList {
	return validateModelSourceSpec(&obj.Spec)
}

// ValidateAIMClusterModelSourceStatus validates a status write.
func ValidateAIMClusterModelSourceStatus(obj *aim.AIMClusterModelSource) field.ErrorList {
	s := &obj.Status
	errs := validateStatusCommon(s.Status, componentStatuses, s.ObservedGeneration, s.Conditions, statusPath)
	errs = append(errs, validateNonNegative(int64(s.DiscoveredModels), statusPath.Child("discoveredModels"))...)
	return append(errs, validateNonNegative(int64(s.AvailableModels), statusPath.Child("availableModels"))...)
}

// VersionRange parses an entry of a model source's versions as aim-engine's controller does, so that the same
// tags pass: a version with exactly one dot gets a .0 patch (>=0.9 is >=0.9.0), and the result is a
// github.com/blang/semver/v4 range, which has no ~, ^ or comma (internal/aimclustermodelsource/filtering.go:274).
// aim-engine's schema accepts any string and its controller skips an entry that does not parse, applying the
// others; the API stores such an entry with a warning (ModelSourceAdvice).
func VersionRange(constraint string) (semver.Range, error) {
	return semver.ParseRange(normalizeVersionConstraint(constraint))
}

// normalizeVersionConstraint is aim-engine's normalizeConstraint: everything from the first digit counts as the
// version, so in ">=0.8 <1.0" (two dots) neither version gets its patch and the entry does not parse.
func normalizeVersionConstraint(constraint string) string {
	for i, c := range constraint {
		if c >= '0' && c <= '9' {
			version := strings.TrimSpace(constraint[i:])
			if strings.Count(version, ".") == 1 {
				version += ".0"
			}
			return constraint[:i] + version
		}
	}
	return constraint
}

// ---- helpers ------------------------------------------------------------------------------------------------

// modelByKeys is m with the env of its custom model's sources in name order, for the immutability of
// spec.model: aim-engine's schema keys that list by name (listType=map), and CEL's equality of a keyed list, as
// its rule self == oldSelf uses it, ignores the order. A reordered list is no change; the generation still moves
// with it, as a custom resource's does.
func modelByKeys(m aim.AIMServiceModel) aim.AIMServiceModel {
	if m.Custom == nil {
		return m
	}
	custom := *m.Custom
	custom.ModelSources = make([]aim.AIMModelSource, len(m.Custom.ModelSources))
	for i, src := range m.Custom.ModelSources {
		src.Env = slices.SortedStableFunc(slices.Values(src.Env), func(a, b corev1.EnvVar) int { return strings.Compare(a.Name, b.Name) })
		custom.ModelSources[i] = src
	}
	m.Custom = &custom
	return m
}

func immutable(newVal, oldVal any, fldPath *field.Path) field.ErrorList {
	if aim.Semantic.DeepEqual(newVal, oldVal) {
		return nil
	}
	// Report the new value only for scalars: a struct's Go formatting is no help to the user.
	switch v := newVal.(type) {
	case string:
		return field.ErrorList{field.Invalid(fldPath, v, immutableMsg)}
	default:
		return field.ErrorList{field.Forbidden(fldPath, immutableMsg)}
	}
}
