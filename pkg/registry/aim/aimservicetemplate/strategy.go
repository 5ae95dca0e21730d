// Package aimservicetemplate holds the registry policy of AIMServiceTemplate, and the columns both template
// kinds print.
package aimservicetemplate

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMServiceTemplate.
func Definition() resource.Definition[*aim.AIMServiceTemplate] {
	return resource.Definition[*aim.AIMServiceTemplate]{
		Kind:            "AIMServiceTemplate",
		Resource:        "aimservicetemplates",
		Singular:        "aimservicetemplate",
		NamespaceScoped: true,
		ShortNames:      []string{"aimtpl"},
		New:             func() *aim.AIMServiceTemplate { return &aim.AIMServiceTemplate{} },
		NewList:         func() runtime.Object { return &aim.AIMServiceTemplateList{} },
		Validate:        validation.ValidateAIMServiceTemplate,
		ValidateUpdate:  validation.ValidateAIMServiceTemplateUpdate,
		ValidateStatus: func(o *aim.AIMServiceTemplate) field.ErrorList {
			return validation.ValidateAIMServiceTemplateStatus(&o.Status)
		},
		Warnings: func(o, _ *aim.AIMServiceTemplate) []string { return Warnings(&o.Spec.AIMServiceTemplateSpecCommon) },
		References: func(o *aim.AIMServiceTemplate) []resource.Reference {
			return References(&o.Spec.AIMServiceTemplateSpecCommon, o.Namespace)
		},
		SelectableFields: func(o *aim.AIMServiceTemplate) fields.Set {
			return SelectableFields(&o.Spec.AIMServiceTemplateSpecCommon, &o.Status)
		},
		Columns: Columns(func(o runtime.Object) (*aim.AIMServiceTemplateSpecCommon, *aim.AIMServiceTemplateStatus) {
			t := o.(*aim.AIMServiceTemplate)
			return &t.Spec.AIMServiceTemplateSpecCommon, &t.Status
		}),
		// As aim-engine's CRD, which declares its columns without AGE.
		NoAge: true,
	}
}

// SelectableFields are the field selectors of both template kinds.
func SelectableFields(spec *aim.AIMServiceTemplateSpecCommon, status *aim.AIMServiceTemplateStatus) fields.Set {
	return fields.Set{aim.FieldModelName: spec.ModelName, aim.FieldStatus: string(status.Status)}
}

// Warnings are the warnings of both template kinds.
func Warnings(spec *aim.AIMServiceTemplateSpecCommon) []string {
	w := validation.TemplateAdvice(spec)
	if spec.Type != nil && len(spec.ModelSources) == 0 {
		w = append(w, "spec.type: only used for templates with inline modelSources; discovery reports the profile type")
	}
	return w
}

// Columns are the columns of both template kinds.
func Columns(get func(runtime.Object) (*aim.AIMServiceTemplateSpecCommon, *aim.AIMServiceTemplateStatus)) []resource.Column {
	spec := func(o runtime.Object) *aim.AIMServiceTemplateSpecCommon { s, _ := get(o); return s }
	status := func(o runtime.Object) *aim.AIMServiceTemplateStatus { _, s := get(o); return s }
	profile := func(o runtime.Object) aim.AIMProfileMetadata {
		if p := status(o).Profile; p != nil {
			return p.Metadata
		}
		return aim.AIMProfileMetadata{}
	}
	return []resource.Column{
		resource.StringColumn("Model", "The model the template runs.", false, func(o runtime.Object) string { return spec(o).ModelName }),
		resource.StringColumn("Status", "Overall state of the template.", false, func(o runtime.Object) string { return string(status(o).Status) }),
		resource.StringColumn("Hardware", "GPUs per replica, for example 1 x MI300X.", false, func(o runtime.Object) string { return status(o).HardwareSummary }),
		resource.StringColumn("Metric", "Optimisation goal of the discovered profile.", false, func(o runtime.Object) string { return string(profile(o).Metric) }),
		resource.StringColumn("Precision", "Precision of the discovered profile.", false, func(o runtime.Object) string { return string(profile(o).Precision) }),
	}
}

// References are the model and runtime config a template names: in namespace, then the cluster's; a cluster
// template ("" namespace) the cluster's only.
func References(spec *aim.AIMServiceTemplateSpecCommon, namespace string) []resource.Reference {
	path := field.NewPath("spec")
	models := resource.Models
	if namespace == "" {
		models = resource.ClusterModels
	}
	refs := []resource.Reference{{Field: path.Child("modelName"), Name: spec.ModelName, Namespace: namespace, Targets: models}}
	return append(refs, resource.RuntimeConfigReference(path.Child("runtimeConfigName"), spec.RuntimeConfigName, namespace)...)
}
