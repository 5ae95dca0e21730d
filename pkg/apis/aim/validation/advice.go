package validation

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// Advice is what a valid object may still get wrong: aim-engine's schemas accept it, so aim-apiserver stores it
// too (docs/compatibility.md, "Accepted as aim-engine accepts it"), but the pods or InferenceServices made from it
// would be refused, or it will not do what it says. The registry returns it as warnings on the response
// (kubectl prints them), each naming its field.

// ServiceAdvice is the advice of an AIMService spec.
func ServiceAdvice(spec *aim.AIMServiceSpec) []string {
	var out []string
	if spec.Model.Custom != nil {
		out = append(out, adviseHardware(&spec.Model.Custom.Hardware, specPath.Child("model", "custom", "hardware"))...)
	}
	if spec.Overrides != nil && spec.Overrides.Hardware != nil && spec.Overrides.Hardware.CPU != nil {
		// The derived template keeps the base template's resources, over which the service's are laid (F10), as
		// aim-engine's InferenceService is built: a CPU override places nothing.
		out = append(out, fmt.Sprintf("%s: not applied to the predictor's pods, which take their CPU from the template's "+
			"and the service's resources; set spec.resources.requests[cpu] and limits[cpu]", specPath.Child("overrides", "hardware", "cpu")))
	}
	out = append(out, adviseResources(spec.Resources, specPath.Child("resources"))...)
	if c := spec.Model.Custom; c != nil && c.Hardware.GPU != nil && (spec.Overrides == nil || spec.Overrides.Hardware == nil) {
		// The template made for a custom model has only its CPU as resources; with none, the predictor's pods have
		// the per-GPU defaults and the service's resources over them. Overridden hardware replaces the GPU count
		// (DerivedTemplate), and the template it is laid over is not known here: no advice then. (A model of the
		// same sources made for other hardware is used as it is, which is not known here either.)
		out = append(out, adviseGPUDefaults(int64(c.Hardware.GPU.Requests), c.Hardware.CPU == nil, spec.Resources, specPath.Child("resources"),
			"the predictor's pods")...)
	}
	out = append(out, adviseScaling(spec)...)
	if c := spec.Caching; c != nil && (c.Mode == aim.AIMCachingModeAuto || c.Mode == aim.AIMCachingModeAlways || c.Mode == aim.AIMCachingModeNever) {
		mode := spec.GetCachingMode()
		out = append(out, fmt.Sprintf("%s: %s is a legacy value that means %s; use %s", specPath.Child("caching", "mode"), c.Mode, mode, mode))
	}
	if spec.CacheModel != nil {
		out = append(out, fmt.Sprintf("%s: deprecated and ignored, as in aim-engine: every service reads its model through a "+
			"template cache, Shared or Dedicated (spec.caching.mode)", specPath.Child("cacheModel")))
	}
	return append(out, adviseServiceStorage(spec.Storage)...)
}

// adviseScaling says what the controller makes of the replica fields (kserve.ScaleOf, aim-engine's rule): any of
// autoScaling, minReplicas and maxReplicas makes KEDA scale the service, between minReplicas (else 1) and
// maxReplicas (else minReplicas), and replicas is then not read. Replicas is defaulted before advice is given:
// only another value than the default can be the user's.
func adviseScaling(spec *aim.AIMServiceSpec) []string {
	if !spec.Autoscaled() {
		return nil
	}
	var out []string
	if spec.MinReplicas == nil && spec.MaxReplicas == nil {
		out = append(out, fmt.Sprintf("%s: without minReplicas and maxReplicas, KEDA keeps the service at 1 replica; set them for a range",
			specPath.Child("autoScaling")))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas != nil && *spec.MinReplicas > *spec.MaxReplicas {
		out = append(out, fmt.Sprintf("%s: %d is less than minReplicas %d: KServe refuses an InferenceService like that, "+
			"and the service will report it", specPath.Child("maxReplicas"), *spec.MaxReplicas, *spec.MinReplicas))
	}
	if spec.Replicas != nil && *spec.Replicas != aim.DefaultReplicas {
		out = append(out, fmt.Sprintf("%s: not read while the service autoscales (autoScaling, minReplicas or maxReplicas set); "+
			"minReplicas is the least it runs", specPath.Child("replicas")))
	}
	return out
}

// adviseServiceStorage: of a service's storage, only defaultStorageClassName is read (as in aim-engine); the
// headroom, defaulted before advice is given, counts only when it is not the default.
func adviseServiceStorage(s *aim.AIMStorageConfig) []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.PVCHeadroomPercent != nil && *s.PVCHeadroomPercent != aim.DefaultPVCHeadroomPercent {
		out = append(out, fmt.Sprintf("%s: not read on a service: its caches take the runtime config's "+
			"(spec.storage.pvcHeadroomPercent there)", specPath.Child("storage", "pvcHeadroomPercent")))
	}
	if len(s.AccessModes) > 0 {
		out = append(out, fmt.Sprintf("%s: not read on a service: its caches take the runtime config's "+
			"(spec.storage.accessModes there)", specPath.Child("storage", "accessModes")))
	}
	return out
}

// ServiceUpdateAdvice is the advice of a change to an AIMService: template and caching may be added or removed
// after creation, as aim-engine allows, and that changes what runs.
func ServiceUpdateAdvice(spec, old *aim.AIMServiceSpec) []string {
	var out []string
	named := func(s *aim.AIMServiceSpec) bool { return s.Template != nil && s.Template.Name != "" }
	switch {
	case named(spec) && !named(old):
		out = append(out, fmt.Sprintf("%s: added after creation: the service moves to the template it names", specPath.Child("template", "name")))
	case !named(spec) && named(old):
		out = append(out, fmt.Sprintf("%s: removed after creation: the service moves to the template it selects automatically", specPath.Child("template", "name")))
	}
	if mode, was := spec.GetCachingMode(), old.GetCachingMode(); mode != was {
		out = append(out, fmt.Sprintf("%s: the caching mode changes from %s to %s after creation: the service moves to a cache of that mode",
			specPath.Child("caching"), was, mode))
	}
	return out
}

// ModelAdvice is the advice of an AIMModel or AIMClusterModel spec.
func ModelAdvice(spec *aim.AIMModelSpec) []string {
	var out []string
	var custom *aim.AIMHardwareRequirements
	if spec.Custom != nil {
		custom = spec.Custom.Hardware
		out = append(out, adviseHardware(custom, specPath.Child("custom", "hardware"))...)
	}
	for i := range spec.CustomTemplates {
		// The template's CPU as the controller merges it over custom.hardware (aim.MergeHardware): a request of
		// one and a limit of the other may not fit either. A template without CPU takes the model's, which is
		// advised on its own.
		if hw := spec.CustomTemplates[i].Hardware; hw != nil && hw.CPU != nil {
			merged := aim.MergeHardware(custom, hw)
			out = append(out, adviseHardware(&aim.AIMHardwareRequirements{CPU: merged.CPU},
				specPath.Child("customTemplates").Index(i).Child("hardware"))...)
		}
	}
	if r := spec.Resources; r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0) {
		out = append(out, fmt.Sprintf("%s: not applied to the model's templates or services, as in aim-engine; "+
			"set resources on the service or the template", specPath.Child("resources")))
	}
	if len(spec.ModelSources) > 0 && len(spec.CustomTemplates) == 0 && (spec.Custom == nil || spec.Custom.Hardware == nil) {
		out = append(out, fmt.Sprintf("%s: not set: the template made for the modelSources has no hardware requirements, "+
			"so it requests no GPU", specPath.Child("custom", "hardware")))
	}
	return out
}

// TemplateAdvice is the advice of a service template spec (namespaced or cluster).
func TemplateAdvice(spec *aim.AIMServiceTemplateSpecCommon) []string {
	out := adviseResources(spec.Resources, specPath.Child("resources"))
	if hw := spec.Hardware; hw != nil && hw.GPU != nil {
		out = append(out, adviseGPUDefaults(int64(hw.GPU.Requests), true, spec.Resources, specPath.Child("resources"),
			"the predictor pods of services on this template that do not set it")...)
	}
	if hw := spec.Hardware; hw != nil && hw.CPU != nil && !hasCPU(spec.Resources) {
		// A model copies its custom hardware's CPU into the resources of the templates it makes; a template
		// written by hand must say it there, as aim-engine builds the InferenceService from resources.
		out = append(out, fmt.Sprintf("%s: not applied to pods, which take their CPU from spec.resources; "+
			"set spec.resources.requests[cpu] and limits[cpu]", specPath.Child("hardware", "cpu")))
	}
	return out
}

// hasCPU reports whether resources request or limit CPU.
func hasCPU(r *aim.ResourceRequirements) bool {
	if r == nil {
		return false
	}
	_, requested := r.Requests[corev1.ResourceCPU]
	_, limited := r.Limits[corev1.ResourceCPU]
	return requested || limited
}

// ModelSourceAdvice is the advice of an AIMClusterModelSource spec: a versions entry that does not parse is
// ignored when tags are selected, as aim-engine ignores it, so the filter selects more tags than it says.
func ModelSourceAdvice(spec *aim.AIMClusterModelSourceSpec) []string {
	var out []string
	for i, f := range spec.Filters {
		out = append(out, adviseVersions(f.Versions, specPath.Child("filters").Index(i).Child("versions"))...)
	}
	return append(out, adviseVersions(spec.Versions, specPath.Child("versions"))...)
}

func adviseVersions(versions []string, fldPath *field.Path) []string {
	var out []string
	for i, v := range versions {
		// The entry as written: the parser's error would quote it completed (~0.8 as ~0.8.0).
		if _, err := VersionRange(v); err != nil {
			out = append(out, fmt.Sprintf("%s: %q is no version range and is ignored when tags are selected, as aim-engine "+
				"ignores it; write ranges as >=1.2.0 <1.3.0 (no ~, ^ or commas; || for alternatives)", fldPath.Index(i), v))
		}
	}
	return out
}

// adviseHardware: a CPU limit below the request.
func adviseHardware(hw *aim.AIMHardwareRequirements, fldPath *field.Path) []string {
	if hw == nil || hw.CPU == nil || hw.CPU.Limits == nil {
		return nil
	}
	if limit, request := hw.CPU.Limits.Amount(), hw.CPU.Requests.Amount(); limit.Cmp(request) < 0 {
		return []string{requestAboveLimit(fldPath.Child("cpu"), "requests", "limits", hw.CPU.Requests.Text, hw.CPU.Limits.Text)}
	}
	return nil
}

// adviseResources: requests above their limits, and requests of a resource that cannot be overcommitted (a GPU,
// hugepages) other than their limits.
func adviseResources(r *aim.ResourceRequirements, fldPath *field.Path) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(r.Requests)) {
		q := r.Requests[name]
		limit, ok := r.Limits[name]
		if !ok {
			continue
		}
		request, lim := q.Amount(), limit.Amount()
		switch {
		case request.Cmp(lim) > 0:
			out = append(out, requestAboveLimit(fldPath, fmt.Sprintf("requests[%s]", name), fmt.Sprintf("limits[%s]", name), q.Text, limit.Text))
		case request.Cmp(lim) != 0 && !overcommittable(string(name)):
			out = append(out, fmt.Sprintf("%s: %s is not limits[%s] %s: kube-apiserver refuses a pod whose request of a resource that "+
				"cannot be overcommitted differs from its limit, so the workload made from this will not start until they are equal",
				fldPath.Child("requests").Key(string(name)).String(), q.Text, name, limit.Text))
		}
	}
	return out
}

// adviseGPUDefaults: a limit below the request the per-GPU defaults (aim.GPUDefaults) put beside it, or a request
// above the limit they put beside it, in resources r laid over the defaults of gpus GPUs: kube-apiserver refuses
// the pods (whose pods: pods). Memory always, CPU only where nothing else lays a CPU request in between (withCPU).
func adviseGPUDefaults(gpus int64, withCPU bool, r *aim.ResourceRequirements, fldPath *field.Path, pods string) []string {
	requests, limits := aim.GPUDefaults(gpus)
	if r == nil || requests == nil {
		return nil
	}
	of := fmt.Sprintf("%d GPUs", gpus)
	if gpus == 1 {
		of = "1 GPU"
	}
	perGPU, perGPULimit := aim.GPUDefaults(1)
	rule := fmt.Sprintf("per GPU: %s CPUs and %s of memory requested, a %s memory limit", perGPU.Cpu(), perGPU.Memory(), perGPULimit.Memory())
	var out []string
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if name == corev1.ResourceCPU && !withCPU {
			continue
		}
		request, requested := r.Requests[name]
		limit, limited := r.Limits[name]
		requestField, limitField := fldPath.Child("requests").Key(string(name)), fldPath.Child("limits").Key(string(name))
		if d, ok := requests[name]; limited && !requested && ok && d.Cmp(limit.Amount()) > 0 {
			out = append(out, fmt.Sprintf("%s: %s is less than %s, the predictor's default requests[%s] for %s (%s): kube-apiserver refuses %s; "+
				"set %s as well", limitField, limit.Text, d.String(), name, of, rule, pods, requestField))
		}
		if d, ok := limits[name]; requested && !limited && ok && d.Cmp(request.Amount()) < 0 {
			out = append(out, fmt.Sprintf("%s: %s is more than %s, the predictor's default limits[%s] for %s (%s): kube-apiserver refuses %s; "+
				"set %s as well", requestField, request.Text, d.String(), name, of, rule, pods, limitField))
		}
	}
	return out
}

// overcommittable reports whether a pod may request less of a resource than its limit, as Kubernetes decides
// (IsOvercommitAllowed): native resources (no domain, or kubernetes.io's) but hugepages; not extended resources
// such as amd.com/gpu.
func overcommittable(name string) bool {
	if strings.HasPrefix(name, corev1.ResourceHugePagesPrefix) {
		return false
	}
	return !strings.Contains(name, "/") || strings.Contains(name, corev1.ResourceDefaultNamespacePrefix)
}

func requestAboveLimit(fldPath *field.Path, request, limit, requested, limited string) string {
	return fmt.Sprintf("%s.%s: %s is more than %s %s: kube-apiserver refuses a pod whose request exceeds its limit, so "+
		"the workload made from this will not start until one of them changes", fldPath, request, requested, limit, limited)
}
