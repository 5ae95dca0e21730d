// Package aimclusterruntimeconfig holds the registry policy of AIMClusterRuntimeConfig.
package aimclusterruntimeconfig

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimruntimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMClusterRuntimeConfig.
func Definition() resource.Definition[*aim.AIMClusterRuntimeConfig] {
	return resource.Definition[*aim.AIMClusterRuntimeConfig]{
		Kind:           "AIMClusterRuntimeConfig",
		Resource:       "aimclusterruntimeconfigs",
		Singular:       "aimclusterruntimeconfig",
		ShortNames:     []string{"aimclrc"},
		New:            func() *aim.AIMClusterRuntimeConfig { return &aim.AIMClusterRuntimeConfig{} },
		NewList:        func() runtime.Object { return &aim.AIMClusterRuntimeConfigList{} },
		Validate:       validation.ValidateAIMClusterRuntimeConfig,
		ValidateUpdate: validation.ValidateAIMClusterRuntimeConfigUpdate,
		ValidateStatus: func(o *aim.AIMClusterRuntimeConfig) field.ErrorList {
			return validation.ValidateAIMRuntimeConfigStatus(&o.Status)
		},
		Warnings: func(o, _ *aim.AIMClusterRuntimeConfig) []string { return aimruntimeconfig.Warnings(&o.Spec) },
		SelectableFields: func(o *aim.AIMClusterRuntimeConfig) fields.Set {
			return fields.Set{aim.FieldStatus: string(o.Status.Status)}
		},
		Columns: aimruntimeconfig.Columns(func(o runtime.Object) *aim.AIMRuntimeConfigStatus {
			return &o.(*aim.AIMClusterRuntimeConfig).Status
		}),
	}
}
