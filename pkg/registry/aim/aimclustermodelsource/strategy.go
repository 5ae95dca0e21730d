// Package aimclustermodelsource holds the registry policy of AIMClusterModelSource.
package aimclustermodelsource

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMClusterModelSource.
func Definition() resource.Definition[*aim.AIMClusterModelSource] {
	return resource.Definition[*aim.AIMClusterModelSource]{
		Kind:           "AIMClusterModelSource",
		Resource:       "aimclustermodelsources",
		Singular:       "aimclustermodelsource",
		ShortNames:     []string{"aimclsrc"},
		New:            func() *aim.AIMClusterModelSource { return &aim.AIMClusterModelSource{} },
		NewList:        func() runtime.Object { return &aim.AIMClusterModelSourceList{} },
		Validate:       validation.ValidateAIMClusterModelSource,
		ValidateUpdate: validation.ValidateAIMClusterModelSourceUpdate,
		ValidateStatus: validation.ValidateAIMClusterModelSourceStatus,
		Warnings:       func(o, _ *aim.AIMClusterModelSource) []string { return validation.ModelSourceAdvice(&o.Spec) },
		SelectableFields: func(o *aim.AIMClusterModelSource) fields.Set {
			return fields.Set{aim.FieldStatus: string(o.Status.Status)}
		},
		Columns: columns,
	}
}

func source(o runtime.Object) *aim.AIMClusterModelSource { return o.(*aim.AIMClusterModelSource) }

var columns = []resource.Column{
	resource.StringColumn("Status", "Overall state of the source.", false, func(o runtime.Object) string { return string(source(o).Status.Status) }),
	resource.IntegerColumn("Models", "Models created by this source.", func(o runtime.Object) int64 { return int64(source(o).Status.DiscoveredModels) }),
	resource.TimeColumn("LastSync", "When the registry was last listed.", func(o runtime.Object) *metav1.Time { return source(o).Status.LastSyncTime }),
}
