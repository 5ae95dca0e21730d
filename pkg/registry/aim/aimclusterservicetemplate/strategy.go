// Package aimclusterservicetemplate holds the registry policy of AIMClusterServiceTemplate.
package aimclusterservicetemplate

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimservicetemplate"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMClusterServiceTemplate.
func Definition() resource.Definition[*aim.AIMClusterServiceTemplate] {
	return resource.Definition[*aim.AIMClusterServiceTemplate]{
		Kind:           "AIMClusterServiceTemplate",
		Resource:       "aimclusterservicetemplates",
		Singular:       "aimclusterservicetemplate",
		ShortNames:     []string{"aimcltpl"},
		New:            func() *aim.AIMClusterServiceTemplate { return &aim.AIMClusterServiceTemplate{} },
		NewList:        func() runtime.Object { return &aim.AIMClusterServiceTemplateList{} },
		Validate:       validation.ValidateAIMClusterServiceTemplate,
		ValidateUpdate: validation.ValidateAIMClusterServiceTemplateUpdate,
		ValidateStatus: func(o *aim.AIMClusterServiceTemplate) field.ErrorList {
			return validation.ValidateAIMServiceTemplateStatus(&o.Status)
		},
		Warnings: func(o, _ *aim.AIMClusterServiceTemplate) []string {
			return aimservicetemplate.Warnings(&o.Spec.AIMServiceTemplateSpecCommon)
		},
		References: func(o *aim.AIMClusterServiceTemplate) []resource.Reference {
			return aimservicetemplate.References(&o.Spec.AIMServiceTemplateSpecCommon, "")
		},
		SelectableFields: func(o *aim.AIMClusterServiceTemplate) fields.Set {
			return aimservicetemplate.SelectableFields(&o.Spec.AIMServiceTemplateSpecCommon, &o.Status)
		},
		Columns: aimservicetemplate.Columns(func(o runtime.Object) (*aim.AIMServiceTemplateSpecCommon, *aim.AIMServiceTemplateStatus) {
			t := o.(*aim.AIMClusterServiceTemplate)
			return &t.Spec.AIMServiceTemplateSpecCommon, &t.Status
		}),
		// As aim-engine's CRD, which declares its columns without AGE.
		NoAge: true,
	}
}
