// Package aimtemplatecache holds the registry policy of AIMTemplateCache.
package aimtemplatecache

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMTemplateCache.
func Definition() resource.Definition[*aim.AIMTemplateCache] {
	return resource.Definition[*aim.AIMTemplateCache]{
		Kind:            "AIMTemplateCache",
		Resource:        "aimtemplatecaches",
		Singular:        "aimtemplatecache",
		NamespaceScoped: true,
		ShortNames:      []string{"aimtc"},
		New:             func() *aim.AIMTemplateCache { return &aim.AIMTemplateCache{} },
		NewList:         func() runtime.Object { return &aim.AIMTemplateCacheList{} },
		Validate:        validation.ValidateAIMTemplateCache,
		ValidateUpdate:  validation.ValidateAIMTemplateCacheUpdate,
		ValidateStatus:  validation.ValidateAIMTemplateCacheStatus,
		References:      references,
		SelectableFields: func(o *aim.AIMTemplateCache) fields.Set {
			return fields.Set{aim.FieldTemplateName: o.Spec.TemplateName, aim.FieldStatus: string(o.Status.Status)}
		},
		Columns: columns,
	}
}

// references are the template and runtime config a cache names; its templateScope says which kind of template.
func references(o *aim.AIMTemplateCache) []resource.Reference {
	spec := field.NewPath("spec")
	templates := resource.Templates
	switch o.Spec.TemplateScope {
	case aim.AIMTemplateScopeNamespace:
		templates = resource.NamespaceTemplates
	case aim.AIMTemplateScopeCluster:
		templates = resource.ClusterTemplates
	}
	refs := []resource.Reference{{Field: spec.Child("templateName"), Name: o.Spec.TemplateName, Namespace: o.Namespace, Targets: templates}}
	return append(refs, resource.RuntimeConfigReference(spec.Child("runtimeConfigName"), o.Spec.RuntimeConfigName, o.Namespace)...)
}

func cache(o runtime.Object) *aim.AIMTemplateCache { return o.(*aim.AIMTemplateCache) }

var columns = []resource.Column{
	resource.StringColumn("Template", "The template whose sources are cached.", false, func(o runtime.Object) string { return cache(o).Spec.TemplateName }),
	resource.StringColumn("Mode", "Shared or Dedicated.", false, func(o runtime.Object) string { return string(cache(o).Spec.Mode) }),
	resource.StringColumn("Status", "Overall state of the cache.", false, func(o runtime.Object) string { return string(cache(o).Status.Status) }),
	resource.StringColumn("Kind", "Kind of the resolved template.", false, func(o runtime.Object) string { return cache(o).Status.ResolvedTemplateKind }),
}
