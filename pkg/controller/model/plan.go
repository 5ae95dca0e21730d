// Package model reconciles AIMModels and AIMClusterModels: it takes the image metadata (from the spec or the
// image's labels), creates one template per recommended deployment and per custom template, and reports
// their states as ServiceTemplatesReady.
package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Labels on templates a model creates.
const (
	LabelModel  = "aim.eai.amd.com/model"
	LabelOrigin = "aim.eai.amd.com/origin"
	OriginAuto  = "auto-generated"
)

// Template is a template a model wants: name, the spec common to both template kinds, and the labels it
// inherits from the model.
type Template struct {
	Name   string
	Spec   aimv1.AIMServiceTemplateSpecCommon
	Labels map[string]string
}

// Desired returns the templates a model creates: one per recommended deployment of its metadata and one per
// custom template; a custom model (with modelSources) without custom templates gets one from custom.hardware.
func Desired(modelName string, spec aimv1.AIMModelSpec, metadata *aimv1.ImageMetadata) []Template {
	if spec.Discovery != nil && spec.Discovery.CreateServiceTemplates != nil && !*spec.Discovery.CreateServiceTemplates {
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
			t.Name = derivedName(modelName, []string{fmt.Sprintf("%dx", d.GPUCount), d.GPUModel, short(d.Metric), d.Precision}, d)
			out = append(out, t)
		}
	}
	customs := spec.CustomTemplates
	if len(customs) == 0 && len(spec.ModelSources) > 0 {
		customs = []aimv1.AIMCustomTemplate{{}} // a custom model serves its sources at least one way
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
		t.Spec.Hardware = c.Hardware
		if t.Spec.Hardware == nil && spec.Custom != nil {
			t.Spec.Hardware = spec.Custom.Hardware
		}
		if p := c.Profile; p != nil {
			t.Spec.Metric, t.Spec.Precision = p.Metric, p.Precision
		}
		t.Name = derivedName(modelName, []string{"custom", c.Name}, struct {
			Index int
			T     aimv1.AIMCustomTemplate
		}{i, c})
		out = append(out, t)
	}
	return out
}

func base(modelName string, spec aimv1.AIMModelSpec) aimv1.AIMServiceTemplateSpecCommon {
	return aimv1.AIMServiceTemplateSpecCommon{
		ModelName: modelName, RuntimeConfigName: spec.RuntimeConfigName,
		ImagePullSecrets: spec.ImagePullSecrets, ServiceAccountName: spec.ServiceAccountName,
	}
}

func short(metric string) string {
	switch strings.ToLower(metric) {
	case "latency":
		return "lat"
	case "throughput":
		return "thr"
	}
	return metric
}

// derivedName is "<model>-<parts>-<hash>" in DNS-label form; the hash of the inputs keeps names unique when
// parts are cut.
func derivedName(model string, parts []string, inputs any) string {
	data, _ := json.Marshal(inputs)
	sum := sha256.Sum256(append([]byte(model+"|"), data...))
	return naming.Name(naming.MaxLength, hex.EncodeToString(sum[:])[:6], append([]string{model}, parts...)...)
}

// TemplateState is what the model sees of one of its templates.
type TemplateState struct {
	Name   string
	Status aimv1.AIMStatus
}

// TemplatesComponent aggregates the templates' states: Ready when at least one is Ready and none is
// Failed/Degraded, NotAvailable when none has its GPU, Progressing while any is being prepared.
func TemplatesComponent(expected int, templates []TemplateState) state.Component {
	c := state.Component{Name: "ServiceTemplates", Dependency: state.DependencyDownstream}
	count := map[aimv1.AIMStatus]int{}
	for _, t := range templates {
		count[t.Status]++
	}
	switch {
	case expected == 0:
		c.Reason, c.Message = "NoTemplatesExpected", "the model creates no templates"
	case len(templates) < expected:
		c.State, c.Reason = aimv1.AIMStatusProgressing, "CreatingTemplates"
		c.Message = fmt.Sprintf("%d of %d templates exist", len(templates), expected)
	case count[aimv1.AIMStatusFailed] == len(templates):
		c.State, c.Reason, c.Message = aimv1.AIMStatusFailed, "AllTemplatesFailed", "every template failed"
	case count[aimv1.AIMStatusFailed]+count[aimv1.AIMStatusDegraded] > 0:
		c.State, c.Reason = aimv1.AIMStatusDegraded, "SomeTemplatesDegraded"
		c.Message = fmt.Sprintf("%d of %d templates failed or are degraded", count[aimv1.AIMStatusFailed]+count[aimv1.AIMStatusDegraded], len(templates))
	case count[aimv1.AIMStatusNotAvailable] == len(templates):
		c.State, c.Reason, c.Message = aimv1.AIMStatusNotAvailable, "NoTemplatesAvailable", "no template's GPU is in the cluster"
	case count[aimv1.AIMStatusReady] == 0:
		c.State, c.Reason = aimv1.AIMStatusProgressing, "TemplatesProgressing"
		c.Message = fmt.Sprintf("%d templates are being prepared", len(templates)-count[aimv1.AIMStatusNotAvailable])
	case count[aimv1.AIMStatusReady] == len(templates):
		c.Reason, c.Message = "AllTemplatesReady", fmt.Sprintf("%d templates are ready", len(templates))
	default:
		c.Reason = "SomeTemplatesReady"
		c.Message = fmt.Sprintf("%d of %d templates are ready", count[aimv1.AIMStatusReady], len(templates))
	}
	return c
}
