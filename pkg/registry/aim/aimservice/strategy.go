// Package aimservice holds the registry policy of AIMService: validation, warnings, field selectors and columns.
package aimservice

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMService.
func Definition() resource.Definition[*aim.AIMService] {
	return resource.Definition[*aim.AIMService]{
		Kind:             "AIMService",
		Resource:         "aimservices",
		Singular:         "aimservice",
		NamespaceScoped:  true,
		ShortNames:       []string{"aimsvc"},
		New:              func() *aim.AIMService { return &aim.AIMService{} },
		NewList:          func() runtime.Object { return &aim.AIMServiceList{} },
		Validate:         validation.ValidateAIMService,
		ValidateUpdate:   validation.ValidateAIMServiceUpdate,
		ValidateStatus:   validation.ValidateAIMServiceStatus,
		Warnings:         warnings,
		References:       references,
		SelectableFields: func(o *aim.AIMService) fields.Set { return fields.Set{aim.FieldStatus: string(o.Status.Status)} },
		Columns:          columns,
	}
}

func warnings(obj, old *aim.AIMService) []string {
	w := validation.ServiceAdvice(&obj.Spec)
	if old != nil {
		w = append(w, validation.ServiceUpdateAdvice(&obj.Spec, &old.Spec)...)
	}
	return w
}

// references are the model, template and runtime config a service names.
func references(o *aim.AIMService) []resource.Reference {
	spec := field.NewPath("spec")
	var refs []resource.Reference
	if n := o.Spec.Model.Name; n != nil {
		refs = append(refs, resource.Reference{Field: spec.Child("model", "name"), Name: *n, Namespace: o.Namespace, Targets: resource.Models})
	}
	if t := o.Spec.Template; t != nil {
		refs = append(refs, resource.Reference{Field: spec.Child("template", "name"), Name: t.Name, Namespace: o.Namespace, Targets: resource.Templates})
	}
	return append(refs, resource.RuntimeConfigReference(spec.Child("runtimeConfigName"), o.Spec.RuntimeConfigName, o.Namespace)...)
}

func service(obj runtime.Object) *aim.AIMService { return obj.(*aim.AIMService) }

var columns = []resource.Column{
	resource.StringColumn("Status", "Overall state of the service.", false, func(o runtime.Object) string {
		return string(service(o).Status.Status)
	}),
	resource.StringColumn("Model", "The model the service runs.", false, func(o runtime.Object) string {
		return refName(service(o).Status.ResolvedModel)
	}),
	resource.StringColumn("Template", "The template the service runs.", false, func(o runtime.Object) string {
		return refName(service(o).Status.ResolvedTemplate)
	}),
	resource.StringColumn("Replicas", "Replicas: N, or current/desired (min-max) when autoscaling.", false, func(o runtime.Object) string {
		if r := service(o).Status.Runtime; r != nil {
			return r.Replicas
		}
		return ""
	}),
	resource.StringColumn("Endpoint", "Internal URL of the inference endpoint.", true, func(o runtime.Object) string {
		if e := service(o).Status.Endpoint; e != nil {
			return e.Internal
		}
		return ""
	}),
}

func refName(ref *aim.AIMResolvedReference) string {
	if ref == nil {
		return ""
	}
	return ref.Name
}
