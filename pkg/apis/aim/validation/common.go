// Package validation checks AIM objects and returns every problem as a field.Error, which the API server turns
// into a 422 whose message names the field path. Functions take the internal types and a *field.Path so that
// shared types validate the same way wherever they appear.
package validation

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

const (
	maxGPUModelLength   = 64
	immutableMsg        = "field is immutable"
	immutableOnceSetMsg = "field is immutable once set"
)

var (
	modelIDPattern   = regexp.MustCompile(`^[a-zA-Z0-9_-]+/[a-zA-Z0-9._-]+$`)
	sourceURIPattern = regexp.MustCompile(`^(hf|s3)://[^ \t\r\n]+$`)

	metrics    = sets.New(string(aim.AIMMetricLatency), string(aim.AIMMetricThroughput))
	precisions = sets.New(
		string(aim.AIMPrecisionAuto), string(aim.AIMPrecisionFP4), string(aim.AIMPrecisionFP8),
		string(aim.AIMPrecisionFP16), string(aim.AIMPrecisionFP32), string(aim.AIMPrecisionBF16),
		string(aim.AIMPrecisionInt4), string(aim.AIMPrecisionInt8))
	profileTypes = sets.New(
		string(aim.AIMProfileTypeOptimized), string(aim.AIMProfileTypePreview), string(aim.AIMProfileTypeUnoptimized))
	accessModes = sets.New(
		string(corev1.ReadWriteOnce), string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOncePod))
)

// ValidateObjectMeta checks names the way the API server checks CRD objects: DNS-1123 subdomains. On update
// the registry runs the generic metadata checks (immutable name, namespace, uid) itself, so the Update
// functions below validate only the spec and its immutable fields.
func ValidateObjectMeta(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return apimachineryvalidation.ValidateObjectMeta(meta, namespaced,
		apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

func validateObjectName(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}

func validateOptionalName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return nil
	}
	return validateObjectName(name, fldPath)
}

func validateRequiredName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return validateObjectName(name, fldPath)
}

func validateEnum(value string, allowed sets.Set[string], fldPath *field.Path) field.ErrorList {
	if !allowed.Has(value) {
		return field.ErrorList{field.NotSupported(fldPath, value, sets.List(allowed))}
	}
	return nil
}

func validateImage(image string, fldPath *field.Path) field.ErrorList {
	switch {
	case strings.TrimSpace(image) == "":
		return field.ErrorList{field.Required(fldPath, "an image reference such as registry/repository:tag")}
	case strings.ContainsAny(image, " \t\r\n"):
		return field.ErrorList{field.Invalid(fldPath, image, "must not contain whitespace")}
	}
	return nil
}

// validateQuantity checks that a quantity's text is one: JSON decoding refuses any other, a protobuf body does not.
func validateQuantity(q aim.Quantity, fldPath *field.Path) field.ErrorList {
	if _, err := resource.ParseQuantity(q.Text); err != nil && q.Text != "" {
		return field.ErrorList{field.Invalid(fldPath, q.Text, resource.ErrFormatWrong.Error())}
	}
	return nil
}

func validateNonNegativeQuantity(q aim.Quantity, fldPath *field.Path) field.ErrorList {
	if errs := validateQuantity(q, fldPath); len(errs) > 0 {
		return errs
	}
	if v := q.Amount(); v.Sign() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.Text, "must be greater than or equal to 0")}
	}
	return nil
}

func validateNonNegative(v int64, fldPath *field.Path) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(fldPath, v, "must be greater than or equal to 0")}
	}
	return nil
}

// validateRuntimeParameters checks metric, precision and hardware wherever they appear.
func validateRuntimeParameters(p *aim.AIMRuntimeParameters, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p.Metric != nil {
		errs = append(errs, validateEnum(string(*p.Metric), metrics, fldPath.Child("metric"))...)
	}
	if p.Precision != nil {
		errs = append(errs, validateEnum(string(*p.Precision), precisions, fldPath.Child("precision"))...)
	}
	if p.Hardware != nil {
		errs = append(errs, validateHardware(p.Hardware, fldPath.Child("hardware"))...)
	}
	return errs
}

// validateRuntimeParametersUpdate enforces "immutable once set": a field absent before may be added.
func validateRuntimeParametersUpdate(p, old *aim.AIMRuntimeParameters, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if old.Metric != nil && !aim.Semantic.DeepEqual(p.Metric, old.Metric) {
		errs = append(errs, field.Invalid(fldPath.Child("metric"), p.Metric, immutableOnceSetMsg))
	}
	if old.Precision != nil && !aim.Semantic.DeepEqual(p.Precision, old.Precision) {
		errs = append(errs, field.Invalid(fldPath.Child("precision"), p.Precision, immutableOnceSetMsg))
	}
	if old.Hardware != nil && !aim.Semantic.DeepEqual(p.Hardware, old.Hardware) {
		errs = append(errs, field.Invalid(fldPath.Child("hardware"), "", immutableOnceSetMsg))
	}
	return errs
}

func validateHardware(hw *aim.AIMHardwareRequirements, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if hw.GPU == nil && hw.CPU == nil {
		errs = append(errs, field.Required(fldPath, "at least one of gpu and cpu is required"))
	}
	if gpu := hw.GPU; gpu != nil {
		p := fldPath.Child("gpu")
		errs = append(errs, validateNonNegative(int64(gpu.Requests), p.Child("requests"))...)
		errs = append(errs, validateMaxLength(gpu.Model, maxGPUModelLength, p.Child("model"))...)
		if gpu.MinVRAM != nil {
			if gpu.Model != "" {
				errs = append(errs, field.Forbidden(p.Child("minVram"), "may not be set together with model"))
			}
			// 0 asks for nothing, as in aim-engine, which reads it as unset.
			if v := gpu.MinVRAM.Amount(); v.Sign() < 0 {
				errs = append(errs, field.Invalid(p.Child("minVram"), gpu.MinVRAM.Text, "must not be negative"))
			}
			errs = append(errs, validateQuantity(*gpu.MinVRAM, p.Child("minVram"))...)
		}
		if gpu.ResourceName != "" {
			for _, msg := range utilvalidation.IsQualifiedName(gpu.ResourceName) {
				errs = append(errs, field.Invalid(p.Child("resourceName"), gpu.ResourceName, msg))
			}
		}
	}
	if cpu := hw.CPU; cpu != nil {
		p := fldPath.Child("cpu")
		// Required, as in aim-engine; 0 is taken there too. A quantity keeps its text (D17), so 0 is not absent.
		if cpu.Requests.Text == "" {
			errs = append(errs, field.Required(p.Child("requests"), "the CPU per replica, for example 4 or 500m"))
		}
		errs = append(errs, validateNonNegativeQuantity(cpu.Requests, p.Child("requests"))...)
		if cpu.Limits != nil {
			errs = append(errs, validateQuantity(*cpu.Limits, p.Child("limits"))...)
		}
	}
	return errs
}

func validateModelSources(sources []aim.AIMModelSource, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i := range sources {
		p := fldPath.Index(i)
		errs = append(errs, validateModelSource(&sources[i], p)...)
		if id := sources[i].ModelID; id != "" {
			if seen.Has(id) {
				errs = append(errs, field.Duplicate(p.Child("modelId"), id))
			}
			seen.Insert(id)
		}
	}
	return errs
}

func validateModelSource(src *aim.AIMModelSource, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateModelID(src.ModelID, true, fldPath.Child("modelId"))...)
	errs = append(errs, validateSourceURI(src.SourceURI, fldPath.Child("sourceUri"))...)
	if src.WeightsSize != nil {
		errs = append(errs, validateNonNegativeQuantity(*src.WeightsSize, fldPath.Child("size"))...)
	}
	errs = append(errs, validateEnv(src.Env, fldPath.Child("env"))...)
	return errs
}

func validateModelID(id string, required bool, fldPath *field.Path) field.ErrorList {
	switch {
	case id == "" && required:
		return field.ErrorList{field.Required(fldPath, "an org/name model id such as meta-llama/Llama-3.1-8B")}
	case id != "" && !modelIDPattern.MatchString(id):
		return field.ErrorList{field.Invalid(fldPath, id, "must be org/name, matching "+modelIDPattern.String())}
	}
	return nil
}

func validateSourceURI(uri string, fldPath *field.Path) field.ErrorList {
	switch {
	case uri == "":
		return field.ErrorList{field.Required(fldPath, "an hf:// or s3:// URI")}
	case !sourceURIPattern.MatchString(uri):
		return field.ErrorList{field.Invalid(fldPath, uri, "must be an hf:// or s3:// URI without whitespace")}
	}
	return nil
}

// validateEnv checks a list-map of env vars: SSA merges them by name, so names must be present and unique.
func validateEnv(env []corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, ev := range env {
		p := fldPath.Index(i)
		switch {
		case ev.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case seen.Has(ev.Name):
			errs = append(errs, field.Duplicate(p.Child("name"), ev.Name))
		default:
			for _, msg := range utilvalidation.IsEnvVarName(ev.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), ev.Name, msg))
			}
		}
		seen.Insert(ev.Name)
		if ev.ValueFrom != nil {
			if ev.Value != "" {
				errs = append(errs, field.Invalid(p.Child("valueFrom"), "", "may not be specified when value is not empty"))
			}
			errs = append(errs, validateEnvVarSource(ev.ValueFrom, p.Child("valueFrom"))...)
		}
	}
	return errs
}

func validateEnvVarSource(src *corev1.EnvVarSource, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	if src.FieldRef != nil {
		n++
		if src.FieldRef.FieldPath == "" {
			errs = append(errs, field.Required(fldPath.Child("fieldRef", "fieldPath"), ""))
		}
	}
	if src.ResourceFieldRef != nil {
		n++
		if src.ResourceFieldRef.Resource == "" {
			errs = append(errs, field.Required(fldPath.Child("resourceFieldRef", "resource"), ""))
		}
	}
	if src.ConfigMapKeyRef != nil {
		n++
		errs = append(errs, validateKeyRef(src.ConfigMapKeyRef.Name, src.ConfigMapKeyRef.Key, fldPath.Child("configMapKeyRef"))...)
	}
	if src.SecretKeyRef != nil {
		n++
		errs = append(errs, validateKeyRef(src.SecretKeyRef.Name, src.SecretKeyRef.Key, fldPath.Child("secretKeyRef"))...)
	}
	if f := src.FileKeyRef; f != nil {
		n++
		fp := fldPath.Child("fileKeyRef")
		for name, v := range map[string]string{"volumeName": f.VolumeName, "path": f.Path, "key": f.Key} {
			if v == "" {
				errs = append(errs, field.Required(fp.Child(name), ""))
			}
		}
	}
	if n != 1 {
		errs = append(errs, field.Invalid(fldPath, "", "must set exactly one of fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef or fileKeyRef"))
	}
	return errs
}

func validateKeyRef(name, key string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateRequiredName(name, fldPath.Child("name"))...)
	if key == "" {
		errs = append(errs, field.Required(fldPath.Child("key"), ""))
	}
	return errs
}

// validateResources checks quantities are non-negative. Requests above limits are advice (adviseResources):
// aim-engine's schema accepts them.
func validateResources(r *aim.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	for name, q := range r.Limits {
		errs = append(errs, validateResourceName(name, fldPath.Child("limits").Key(string(name)))...)
		errs = append(errs, validateNonNegativeQuantity(q, fldPath.Child("limits").Key(string(name)))...)
	}
	for name, q := range r.Requests {
		p := fldPath.Child("requests").Key(string(name))
		errs = append(errs, validateResourceName(name, p)...)
		errs = append(errs, validateNonNegativeQuantity(q, p)...)
	}
	// claims is a list-map keyed by name.
	seen := sets.New[string]()
	for i, c := range r.Claims {
		p := fldPath.Child("claims").Index(i).Child("name")
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(p, ""))
		case seen.Has(c.Name):
			errs = append(errs, field.Duplicate(p, c.Name))
		}
		seen.Insert(c.Name)
	}
	return errs
}

func validateResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(fldPath, string(name), msg))
	}
	return errs
}

func validatePullSecrets(refs []corev1.LocalObjectReference, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ref := range refs {
		errs = append(errs, validateRequiredName(ref.Name, fldPath.Index(i).Child("name"))...)
	}
	return errs
}

func validateStorage(s *aim.AIMStorageConfig, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.DefaultStorageClassName != nil {
		errs = append(errs, validateOptionalName(*s.DefaultStorageClassName, fldPath.Child("defaultStorageClassName"))...)
	}
	if s.PVCHeadroomPercent != nil {
		errs = append(errs, validateNonNegative(int64(*s.PVCHeadroomPercent), fldPath.Child("pvcHeadroomPercent"))...)
	}
	for i, m := range s.AccessModes {
		errs = append(errs, validateEnum(string(m), accessModes, fldPath.Child("accessModes").Index(i))...)
	}
	return errs
}

func validateRouting(r *aim.AIMRuntimeRoutingConfig, fldPath *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if g := r.GatewayRef; g != nil {
		p := fldPath.Child("gatewayRef")
		errs = append(errs, validateRequiredName(g.Name, p.Child("name"))...)
		if g.Namespace != nil {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(*g.Namespace, false) {
				errs = append(errs, field.Invalid(p.Child("namespace"), *g.Namespace, msg))
			}
		}
		if g.Port != nil && (*g.Port < 1 || *g.Port > 65535) {
			errs = append(errs, field.Invalid(p.Child("port"), *g.Port, "must be between 1 and 65535"))
		}
		// The Gateway API's own constraints on a ParentReference.
		if g.Group != nil && *g.Group != "" {
			errs = append(errs, validatePattern(*g.Group, gatewayGroupPattern, 253, p.Child("group"))...)
		}
		if g.Kind != nil {
			errs = append(errs, validatePattern(*g.Kind, gatewayKindPattern, 63, p.Child("kind"))...)
		}
		if g.SectionName != nil {
			errs = append(errs, validatePattern(*g.SectionName, gatewaySectionPattern, 253, p.Child("sectionName"))...)
		}
	}
	if r.PathTemplate != nil && strings.TrimSpace(*r.PathTemplate) == "" {
		errs = append(errs, field.Invalid(fldPath.Child("pathTemplate"), *r.PathTemplate, "must not be empty when set"))
	}
	// 0s is aim-engine's and the Gateway API's "no timeout" (long streamed answers); a negative one no route takes.
	if r.RequestTimeout != nil && r.RequestTimeout.Duration < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("requestTimeout"), r.RequestTimeout.Duration.String(), "must not be negative (0s disables the timeout)"))
	}
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(r.Annotations, fldPath.Child("annotations"))...)
	return errs
}

// The Gateway API's patterns of a ParentReference's group, kind and sectionName.
var (
	gatewayGroupPattern   = regexp.MustCompile(`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	gatewayKindPattern    = regexp.MustCompile(`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`)
	gatewaySectionPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// longerThan is the schema's maxLength rule, which counts characters (as aim-engine's CRD validation does), not
// bytes.
func longerThan(v string, maxLen int) bool { return utf8.RuneCountInString(v) > maxLen }

// tooLong is the error of a value longerThan maxLen, in the same unit (field.TooLong says bytes).
func tooLong(fldPath *field.Path, maxLen int) *field.Error {
	e := field.TooLong(fldPath, "", maxLen)
	e.Detail = fmt.Sprintf("may not be more than %d characters", maxLen)
	return e
}

// validateMaxLength checks a string against the maxLength the schema publishes for it.
func validateMaxLength(v string, maxLen int, fldPath *field.Path) field.ErrorList {
	if longerThan(v, maxLen) {
		return field.ErrorList{tooLong(fldPath, maxLen)}
	}
	return nil
}

// validatePattern checks a string against a pattern and a maximum length.
func validatePattern(v string, pattern *regexp.Regexp, maxLen int, fldPath *field.Path) field.ErrorList {
	errs := validateMaxLength(v, maxLen, fldPath)
	if !pattern.MatchString(v) {
		errs = append(errs, field.Invalid(fldPath, v, "must match "+pattern.String()))
	}
	return errs
}

func validateLabelSelectorMap(m map[string]string, fldPath *field.Path) field.ErrorList {
	return metav1validation.ValidateLabels(m, fldPath)
}

// statusValues are the status values each kind may report.
var (
	serviceStatuses = sets.New(
		string(aim.AIMStatusPending), string(aim.AIMStatusStarting), string(aim.AIMStatusRunning),
		string(aim.AIMStatusDegraded), string(aim.AIMStatusFailed), string(aim.AIMStatusNotAvailable))
	componentStatuses = sets.New(
		string(aim.AIMStatusPending), string(aim.AIMStatusProgressing), string(aim.AIMStatusReady),
		string(aim.AIMStatusDegraded), string(aim.AIMStatusFailed), string(aim.AIMStatusNotAvailable))
)

// validateStatusCommon checks the fields every status has.
func validateStatusCommon(status aim.AIMStatus, allowed sets.Set[string], observedGeneration int64, conditions []metav1.Condition, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if status != "" {
		errs = append(errs, validateEnum(string(status), allowed, fldPath.Child("status"))...)
	}
	errs = append(errs, validateNonNegative(observedGeneration, fldPath.Child("observedGeneration"))...)
	errs = append(errs, metav1validation.ValidateConditions(conditions, fldPath.Child("conditions"))...)
	return errs
}

func validateResolvedReference(ref *aim.AIMResolvedReference, fldPath *field.Path) field.ErrorList {
	if ref == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateRequiredName(ref.Name, fldPath.Child("name"))...)
	return append(errs, validateResolutionScope(ref.Scope, fldPath.Child("scope"))...)
}

// resolutionScopes are the values of AIMResolutionScope, which the schema publishes as its enum.
var resolutionScopes = sets.New(
	string(aim.AIMResolutionScopeNamespace), string(aim.AIMResolutionScopeCluster),
	string(aim.AIMResolutionScopeMerged), string(aim.AIMResolutionScopeUnknown))

func validateResolutionScope(scope aim.AIMResolutionScope, fldPath *field.Path) field.ErrorList {
	if scope == "" {
		return nil
	}
	return validateEnum(string(scope), resolutionScopes, fldPath)
}
