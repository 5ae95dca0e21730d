// Package aimclustermodel holds the registry policy of AIMClusterModel.
package aimclustermodel

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimmodel"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMClusterModel.
func Definition() resource.Definition[*aim.AIMClusterModel] {
	return resource.Definition[*aim.AIMClusterModel]{
		Kind:           "AIMClusterModel",
		Resource:       "aimclustermodels",
		Singular:       "aimclustermodel",
		ShortNames:     []string{"aimclmdl"},
		New:            func() *aim.AIMClusterModel { return &aim.AIMClusterModel{} },
		NewList:        func() runtime.Object { return &aim.AIMClusterModelList{} },
		Validate:       validation.ValidateAIMClusterModel,
		ValidateUpdate: validation.ValidateAIMClusterModelUpdate,
		ValidateStatus: func(o *aim.AIMClusterModel) field.ErrorList { return validation.ValidateAIMModelStatus(&o.Status) },
		Warnings:       func(o, _ *aim.AIMClusterModel) []string { return validation.ModelAdvice(&o.Spec) },
		References: func(o *aim.AIMClusterModel) []resource.Reference {
			return resource.RuntimeConfigReference(field.NewPath("spec", "runtimeConfigName"), o.Spec.RuntimeConfigName, "")
		},
		SelectableFields: func(o *aim.AIMClusterModel) fields.Set {
			return aimmodel.SelectableFields(&o.Spec, &o.Status)
		},
		Columns: aimmodel.Columns(func(o runtime.Object) (*aim.AIMModelSpec, *aim.AIMModelStatus) {
			m := o.(*aim.AIMClusterModel)
			return &m.Spec, &m.Status
		}),
	}
}
