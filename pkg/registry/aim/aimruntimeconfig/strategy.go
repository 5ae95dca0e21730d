// Package aimruntimeconfig holds the registry policy of AIMRuntimeConfig, and the columns and warnings both
// runtime config kinds share.
package aimruntimeconfig

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMRuntimeConfig.
func Definition() resource.Definition[*aim.AIMRuntimeConfig] {
	return resource.Definition[*aim.AIMRuntimeConfig]{
		Kind:            "AIMRuntimeConfig",
		Resource:        "aimruntimeconfigs",
		Singular:        "aimruntimeconfig",
		NamespaceScoped: true,
		ShortNames:      []string{"aimrc"},
		New:             func() *aim.AIMRuntimeConfig { return &aim.AIMRuntimeConfig{} },
		NewList:         func() runtime.Object { return &aim.AIMRuntimeConfigList{} },
		Validate:        validation.ValidateAIMRuntimeConfig,
		ValidateUpdate:  validation.ValidateAIMRuntimeConfigUpdate,
		ValidateStatus: func(o *aim.AIMRuntimeConfig) field.ErrorList {
			return validation.ValidateAIMRuntimeConfigStatus(&o.Status)
		},
		Warnings: func(o, _ *aim.AIMRuntimeConfig) []string { return Warnings(&o.Spec) },
		SelectableFields: func(o *aim.AIMRuntimeConfig) fields.Set {
			return fields.Set{aim.FieldStatus: string(o.Status.Status)}
		},
		Columns: Columns(func(o runtime.Object) *aim.AIMRuntimeConfigStatus { return &o.(*aim.AIMRuntimeConfig).Status }),
	}
}

// Warnings point users of the legacy top-level fields to their replacements.
func Warnings(spec *aim.AIMRuntimeConfigSpec) []string {
	var w []string
	if spec.DefaultStorageClassName != "" {
		w = append(w, "spec.defaultStorageClassName: deprecated; use spec.storage.defaultStorageClassName")
	}
	if spec.PVCHeadroomPercent != nil {
		w = append(w, "spec.pvcHeadroomPercent: deprecated; use spec.storage.pvcHeadroomPercent")
	}
	if spec.Model != nil && spec.Model.AutoDiscovery != nil {
		w = append(w, "spec.model.autoDiscovery: has no effect")
	}
	if r := spec.Routing; r != nil && r.Enabled != nil && *r.Enabled && r.GatewayRef == nil {
		w = append(w, "spec.routing.gatewayRef: routing is enabled but this config names no gateway: services that set none in "+
			"spec.routing.gatewayRef report GatewayNotConfigured unless the runtime config of the same name in the other scope names one")
	}
	return w
}

// Columns are the columns of both runtime config kinds.
func Columns(status func(runtime.Object) *aim.AIMRuntimeConfigStatus) []resource.Column {
	return []resource.Column{
		resource.StringColumn("Status", "Ready when the config is valid.", false, func(o runtime.Object) string { return string(status(o).Status) }),
		resource.IntegerColumn("Consumers", "AIM objects that take defaults from this config.", func(o runtime.Object) int64 { return int64(status(o).Consumers) }),
	}
}
