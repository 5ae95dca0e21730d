// Package aimmodel holds the registry policy of AIMModel, and the columns both model kinds print.
package aimmodel

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMModel.
func Definition() resource.Definition[*aim.AIMModel] {
	return resource.Definition[*aim.AIMModel]{
		Kind:            "AIMModel",
		Resource:        "aimmodels",
		Singular:        "aimmodel",
		NamespaceScoped: true,
		ShortNames:      []string{"aimmdl"},
		New:             func() *aim.AIMModel { return &aim.AIMModel{} },
		NewList:         func() runtime.Object { return &aim.AIMModelList{} },
		Validate:        validation.ValidateAIMModel,
		ValidateUpdate:  validation.ValidateAIMModelUpdate,
		ValidateStatus:  func(o *aim.AIMModel) field.ErrorList { return validation.ValidateAIMModelStatus(&o.Status) },
		Warnings:        func(o, _ *aim.AIMModel) []string { return validation.ModelAdvice(&o.Spec) },
		References: func(o *aim.AIMModel) []resource.Reference {
			return resource.RuntimeConfigReference(field.NewPath("spec", "runtimeConfigName"), o.Spec.RuntimeConfigName, o.Namespace)
		},
		SelectableFields: func(o *aim.AIMModel) fields.Set {
			return SelectableFields(&o.Spec, &o.Status)
		},
		Columns: Columns(func(o runtime.Object) (*aim.AIMModelSpec, *aim.AIMModelStatus) {
			m := o.(*aim.AIMModel)
			return &m.Spec, &m.Status
		}),
	}
}

// SelectableFields are the field selectors of both model kinds.
func SelectableFields(spec *aim.AIMModelSpec, status *aim.AIMModelStatus) fields.Set {
	return fields.Set{aim.FieldImage: spec.Image, aim.FieldStatus: string(status.Status)}
}

// Columns are the columns of both model kinds.
func Columns(get func(runtime.Object) (*aim.AIMModelSpec, *aim.AIMModelStatus)) []resource.Column {
	spec := func(o runtime.Object) *aim.AIMModelSpec { s, _ := get(o); return s }
	status := func(o runtime.Object) *aim.AIMModelStatus { _, s := get(o); return s }
	return []resource.Column{
		resource.StringColumn("Status", "Overall state of the model.", false, func(o runtime.Object) string { return string(status(o).Status) }),
		resource.StringColumn("Source", "Image or Custom.", false, func(o runtime.Object) string { return string(status(o).SourceType) }),
		resource.StringColumn("Image", "The AIM image serving the model.", false, func(o runtime.Object) string { return spec(o).Image }),
		resource.StringColumn("Model", "Canonical model name from the image labels.", false, func(o runtime.Object) string {
			if m := status(o).ImageMetadata; m != nil && m.Model != nil {
				return m.Model.CanonicalName
			}
			return ""
		}),
	}
}
