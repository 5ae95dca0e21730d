// Package model reconciles AIMModels and AIMClusterModels: it takes the image metadata (from the spec or the
// image's labels), creates one template per recommended deployment and per custom template, and reports
// their states as ServiceTemplatesReady.
package model

import (
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/keyed"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Labels on templates a model creates.
const (
	// LabelTemplateAlias carries a custom template's name, which users select templates by (aim-engine's
	// short-hand alias).
	LabelTemplateAlias = "aim.eai.amd.com/template.alias"
)

// Template is a template a model wants: name, the spec common to both template kinds, and its own labels
// (the alias of a custom template), to which the model's propagated labels are added.
type Template struct {
	Name   string
	Spec   aimv1.AIMServiceTemplateSpecCommon
	Labels map[string]string
}

// Desired returns the templates a model creates: one per recommended deployment of its metadata and one per
// custom template; a custom model (with modelSources) without custom templates gets one from custom.hardware.
// They are named as aim-engine names them, so that a model migrated from it keeps its templates instead of
// getting a second, equal set (which would make template selection ambiguous).
func Desired(modelName string, spec aimv1.AIMModelSpec, metadata *aimv1.ImageMetadata) []Template {
	if !spec.ShouldCreateTemplates() {
		return nil
	}
	var out []Template
	if metadata != nil && metadata.Model != nil && len(spec.ModelSources) == 0 {
		for _, d := range metadata.Model.RecommendedDeployments {
			t := Template{Spec: base(modelName, spec)}
			if d.Metric != "" {
				t.Spec.Metric = ptr.To(aimv1.AIMMetric(strings.ToLower(d.Metric)))
			}
			if d.Precision != "" {
				t.Spec.Precision = ptr.To(aimv1.AIMPrecision(strings.ToLower(d.Precision)))
			}
			if d.GPUModel != "" && d.GPUCount > 0 {
				t.Spec.Hardware = &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{
					Requests: d.GPUCount, Model: d.GPUModel, ResourceName: aimv1.DefaultGPUResourceName}}
			}
			t.Spec.ProfileID = d.ProfileID
			t.Name = recommendedTemplateName(modelName, spec.Image, d)
			out = append(out, t)
		}
	}
	customs, auto := spec.CustomTemplates, false
	if len(customs) == 0 && len(spec.ModelSources) > 0 {
		// A custom model serves its sources at least one way.
		customs, auto = []aimv1.AIMCustomTemplate{{}}, true
	}
	for i, c := range customs {
		t := Template{Spec: base(modelName, spec)}
		t.Spec.ModelSources = append([]aimv1.AIMModelSource(nil), spec.ModelSources...)
		t.Spec.Env = env.Merge(spec.Env, c.Env)
		t.Spec.Type = c.Type
		if t.Spec.Type == nil && spec.Custom != nil {
			t.Spec.Type = spec.Custom.Type
		}
		if t.Spec.Type == nil {
			t.Spec.Type = ptr.To(aimv1.AIMProfileTypeUnoptimized)
		}
		if spec.Custom != nil {
			t.Spec.Hardware = MergeHardware(spec.Custom.Hardware, c.Hardware)
		} else {
			t.Spec.Hardware = c.Hardware
		}
		if hw := t.Spec.Hardware; hw != nil && hw.CPU != nil {
			// The pod's cpu comes from the template's resources (as aim-engine builds the InferenceService).
			t.Spec.Resources = &aimv1.ResourceRequirements{Requests: aimv1.ResourceList{corev1.ResourceCPU: hw.CPU.Requests}}
			if hw.CPU.Limits != nil {
				t.Spec.Resources.Limits = aimv1.ResourceList{corev1.ResourceCPU: *hw.CPU.Limits}
			}
		}
		if c.Name != "" {
			t.Labels = map[string]string{LabelTemplateAlias: naming.LabelValue(c.Name)}
		}
		if p := c.Profile; p != nil {
			t.Spec.Metric, t.Spec.Precision = p.Metric, p.Precision
		}
		if auto {
			t.Name = autoCustomTemplateName(modelName)
		} else {
			t.Name = customTemplateName(modelName, c, i)
		}
		out = append(out, t)
	}
	for i := range out {
		out[i].Spec = canonicalQuantities(out[i].Spec)
	}
	// Two recommended deployments that differ only in what the name leaves out (profileId) name one template;
	// aim-engine applies both in turn, so the last one's spec is what stays. Counting both would wait forever
	// for a second template.
	return keyed.Merge(out, func(t Template) string { return t.Name }, nil)
}

// canonicalQuantities is a template's spec with its quantities in the canonical form (cpu 2000m as 2), as
// aim-engine's controller writes them through resource.Quantity: the template is the controller's, not a
// manifest whose spelling must read back (D17). A copy: the spec's pointers are the model's, from the cache.
func canonicalQuantities(spec aimv1.AIMServiceTemplateSpecCommon) aimv1.AIMServiceTemplateSpecCommon {
	out := *spec.DeepCopy()
	CanonicalHardware(out.Hardware)
	if r := out.Resources; r != nil {
		for _, list := range []aimv1.ResourceList{r.Requests, r.Limits} {
			for name, q := range list {
				list[name] = canonical(q)
			}
		}
	}
	CanonicalSources(out.ModelSources)
	return out
}

// CanonicalHardware writes hardware's quantities (CPU, minimum VRAM) in the canonical form, in place: what a
// controller derives from a spec it writes as aim-engine's controllers do, through resource.Quantity.
func CanonicalHardware(hw *aimv1.AIMHardwareRequirements) {
	if hw == nil {
		return
	}
	if hw.CPU != nil {
		hw.CPU.Requests = canonical(hw.CPU.Requests)
		if hw.CPU.Limits != nil {
			*hw.CPU.Limits = canonical(*hw.CPU.Limits)
		}
	}
	if hw.GPU != nil && hw.GPU.MinVRAM != nil {
		*hw.GPU.MinVRAM = canonical(*hw.GPU.MinVRAM)
	}
}

// CanonicalSources writes the sources' sizes in the canonical form, in place (CanonicalHardware).
func CanonicalSources(sources []aimv1.AIMModelSource) {
	for i := range sources {
		if q := sources[i].WeightsSize; q != nil {
			*q = canonical(*q)
		}
	}
}

// canonical is q in resource.Quantity's canonical form (2000m as 2, the number 10737418240 as "10Gi"); unset
// stays unset.
func canonical(q aimv1.Quantity) aimv1.Quantity {
	if q.Text == "" {
		return q
	}
	return aimv1.NewQuantity(q.Amount())
}

// templatesKnown reports whether the model's templates can be planned: a model with createServiceTemplates false
// makes none, a custom model's sources say which, an image's metadata does (its custom templates add to those, as
// in aim-engine's ExpectsTemplates, which is "unknown" without metadata, and false first when templates are not
// created), and its runtime config resolved (its label propagation labels them). Otherwise nothing is applied or
// deleted and the templates that exist stay as they are, as aim-engine skips its applies then: labels that cannot
// be read or parsed for a new image must not take the templates of the old one away.
func templatesKnown(spec aimv1.AIMModelSpec, metadata *aimv1.ImageMetadata, rcErr error) bool {
	return rcErr == nil && (!spec.ShouldCreateTemplates() || metadata != nil || len(spec.ModelSources) > 0)
}

// awaitingMetadata is the templates component of a model whose templates are not known because the image's labels,
// which say which ones it makes, are still to be read (after templatesKnown): Progressing, in aim-engine's words
// (ExpectsTemplates unknown). None while the runtime config is missing (nothing is planned then), nor when
// extraction is off: no read will come, and aim-engine's model would wait for good (design.md R9.12).
func awaitingMetadata(spec aimv1.AIMModelSpec, rcErr error) (state.Component, bool) {
	if rcErr != nil || !spec.ShouldExtractMetadata() {
		return state.Component{}, false
	}
	return state.Component{Name: ComponentServiceTemplates, Dependency: state.DependencyDownstream, State: aimv1.AIMStatusProgressing,
		Reason: ReasonAwaitingMetadata, Message: "Waiting for the model to fetch metadata"}, true
}

// TemplateLabels are the labels of a model's template, through childlabels.For (the template's own labels, the
// model's propagated ones, the framework label of controller and managed-by): the model's name and the
// auto-generated origin, which lookups select by. Label values hold at most 63 characters; a longer model name
// is shortened with a hash, as every child label naming a parent is (naming.LabelValue).
func TemplateLabels(controller string, model metav1.Object, rc runtimeconfig.Resolved, own map[string]string) map[string]string {
	labels := map[string]string{aimv1.LabelModel: naming.LabelValue(model.GetName()), aimv1.LabelOrigin: aimv1.OriginAutoGenerated}
	maps.Copy(labels, own)
	return childlabels.For(controller, model, rc, labels)
}

// MergeHardware is a custom template's hardware over the model's spec.custom.hardware: aim.MergeHardware, the one
// rule, which admission advice reads too.
func MergeHardware(model, template *aimv1.AIMHardwareRequirements) *aimv1.AIMHardwareRequirements {
	merged := aim.MergeHardware(internalHardware(model), internalHardware(template))
	if merged == nil {
		return nil
	}
	out := &aimv1.AIMHardwareRequirements{}
	_ = aimv1.Convert_aim_AIMHardwareRequirements_To_v1alpha1_AIMHardwareRequirements(merged, out, nil) // field by field, no error path
	return out
}

func internalHardware(h *aimv1.AIMHardwareRequirements) *aim.AIMHardwareRequirements {
	if h == nil {
		return nil
	}
	out := &aim.AIMHardwareRequirements{}
	_ = aimv1.Convert_v1alpha1_AIMHardwareRequirements_To_aim_AIMHardwareRequirements(h, out, nil)
	return out
}

// base is what every template of a model carries from it. Not its runtimeConfigName: aim-engine's templates
// resolve the runtime config of their own (default) one.
func base(modelName string, spec aimv1.AIMModelSpec) aimv1.AIMServiceTemplateSpecCommon {
	return aimv1.AIMServiceTemplateSpecCommon{
		ModelName: modelName, ImagePullSecrets: spec.ImagePullSecrets, ServiceAccountName: spec.ServiceAccountName,
	}
}

// recommendedHashLength is the number of hex digits of the hash in the name of a recommended deployment's
// template.
const recommendedHashLength = 4

// recommendedTemplateName is the template of a recommended deployment: the model's image reference and
// "<count>x-<gpu>-<metric>-<precision>" (each part only when set, the metric shortened), with a hash of the
// model's name, the image and the deployment's values, which keeps apart the templates of different models
// of one image.
func recommendedTemplateName(modelName, image string, d aimv1.RecommendedDeployment) string {
	var suffix []string
	switch {
	case d.GPUCount > 0 && d.GPUModel != "":
		suffix = append(suffix, fmt.Sprintf("%dx-%s", d.GPUCount, d.GPUModel))
	case d.GPUModel != "":
		suffix = append(suffix, d.GPUModel)
	case d.GPUCount > 0:
		suffix = append(suffix, fmt.Sprintf("x%d", d.GPUCount))
	}
	hashed := modelName + "-" + image
	if d.GPUModel != "" {
		hashed += "-" + d.GPUModel
	}
	if d.GPUCount > 0 {
		hashed += fmt.Sprintf("-x%d", d.GPUCount)
	}
	if d.Metric != "" {
		suffix = append(suffix, metricInName(d.Metric))
		hashed += "-" + d.Metric
	}
	if d.Precision != "" {
		suffix = append(suffix, d.Precision)
		hashed += "-" + d.Precision
	}
	return naming.DerivedName([]string{image, strings.Join(suffix, "-")}, recommendedHashLength, naming.MaxLength, hashed)
}

// metricInName is how a template name spells a metric: latency and throughput (exactly so) are shortened.
func metricInName(metric string) string {
	switch metric {
	case string(aimv1.AIMMetricLatency):
		return "lat"
	case string(aimv1.AIMMetricThroughput):
		return "thr"
	}
	return metric
}

// customTemplateName is the template of the model's custom template at index: the model's name, "custom", and
// the custom template's name, precision and GPU model when set, with a hash of these, the index and the
// metric and GPU count.
func customTemplateName(modelName string, c aimv1.AIMCustomTemplate, index int) string {
	parts, inputs := []string{modelName, "custom"}, []any{modelName, index, c.Name}
	if c.Name != "" {
		parts = append(parts, c.Name)
	}
	if p := c.Profile; p != nil {
		precision := string(ptr.Deref(p.Precision, ""))
		if precision != "" {
			parts = append(parts, precision)
		}
		inputs = append(inputs, precision, string(ptr.Deref(p.Metric, "")))
	}
	if c.Hardware != nil && c.Hardware.GPU != nil {
		g := c.Hardware.GPU
		if g.Model != "" {
			parts = append(parts, g.Model)
		}
		inputs = append(inputs, g.Requests, g.Model)
	}
	return naming.DerivedName(parts, naming.HashLength, naming.MaxLength, inputs...)
}

// autoCustomTemplateName is the one template of a custom model without custom templates.
func autoCustomTemplateName(modelName string) string {
	return naming.DerivedName([]string{modelName, "custom"}, naming.HashLength, naming.MaxLength, modelName, 0)
}

// TemplateState is what the model sees of one of its templates.
type TemplateState struct {
	Name   string
	Status aimv1.AIMStatus
}

// TemplatesComponent aggregates the templates' states: Ready when at least one is Ready and none is
// Failed/Degraded, Failed when all are, NotAvailable when none has its GPU, Progressing while any is being prepared.
func TemplatesComponent(expected int, templates []TemplateState) state.Component {
	c := state.Component{Name: ComponentServiceTemplates, Dependency: state.DependencyDownstream}
	count := map[aimv1.AIMStatus]int{}
	for _, t := range templates {
		count[t.Status]++
	}
	broken := count[aimv1.AIMStatusFailed] + count[aimv1.AIMStatusDegraded]
	switch {
	case expected == 0:
		c.Reason, c.Message = ReasonNoTemplatesExpected, "the model creates no templates"
	case len(templates) < expected:
		c.State, c.Reason = aimv1.AIMStatusProgressing, ReasonCreatingTemplates
		c.Message = fmt.Sprintf("%d of %d templates exist", len(templates), expected)
	case broken == len(templates):
		// Degraded ones count as failed, as in aim-engine (reconcile.go:255): no template serves as it should.
		c.State, c.Reason, c.Message = aimv1.AIMStatusFailed, ReasonAllTemplatesFailed, "every template failed or is degraded"
	case broken > 0:
		c.State, c.Reason = aimv1.AIMStatusDegraded, ReasonSomeTemplatesDegraded
		c.Message = fmt.Sprintf("%d of %d templates failed or are degraded", broken, len(templates))
	case count[aimv1.AIMStatusNotAvailable] == len(templates):
		c.State, c.Reason, c.Message = aimv1.AIMStatusNotAvailable, ReasonNoTemplatesAvailable, "no template's GPU is in the cluster"
	case count[aimv1.AIMStatusReady] == 0:
		c.State, c.Reason = aimv1.AIMStatusProgressing, ReasonTemplatesProgressing
		c.Message = fmt.Sprintf("%d templates are being prepared", len(templates)-count[aimv1.AIMStatusNotAvailable])
	case count[aimv1.AIMStatusReady] == len(templates):
		c.Reason, c.Message = ReasonAllTemplatesReady, fmt.Sprintf("%d templates are ready", len(templates))
	default:
		c.Reason = ReasonSomeTemplatesReady
		c.Message = fmt.Sprintf("%d of %d templates are ready", count[aimv1.AIMStatusReady], len(templates))
	}
	return c
}

// templatesOfKind is the templates component as aim-engine reports it for the model's kind: named after the
// kind of templates (ClusterServiceTemplatesReady on cluster models), and on a cluster model an upstream
// (its ToUpstreamComponentHealth), so that while the templates are prepared a cluster model is Pending and a
// namespaced one Progressing. A failed apply stays the controller's own (downstream) error.
func templatesOfKind(c state.Component, cluster bool) state.Component {
	c.Name = ComponentServiceTemplates
	if cluster {
		c.Name = ComponentClusterServiceTemplates
		if len(c.Errors) == 0 {
			c.Dependency = state.DependencyUpstream
		}
	}
	return c
}
