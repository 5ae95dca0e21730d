// Package aimartifact holds the registry policy of AIMArtifact.
package aimartifact

import (
	"strconv"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Definition is the registry policy of AIMArtifact.
func Definition() resource.Definition[*aim.AIMArtifact] {
	return resource.Definition[*aim.AIMArtifact]{
		Kind:            "AIMArtifact",
		Resource:        "aimartifacts",
		Singular:        "aimartifact",
		NamespaceScoped: true,
		ShortNames:      []string{"aimart"},
		New:             func() *aim.AIMArtifact { return &aim.AIMArtifact{} },
		NewList:         func() runtime.Object { return &aim.AIMArtifactList{} },
		Validate:        validation.ValidateAIMArtifact,
		ValidateUpdate:  validation.ValidateAIMArtifactUpdate,
		ValidateStatus:  validation.ValidateAIMArtifactStatus,
		References: func(o *aim.AIMArtifact) []resource.Reference {
			return resource.RuntimeConfigReference(field.NewPath("spec", "runtimeConfigName"), o.Spec.RuntimeConfigName, o.Namespace)
		},
		SelectableFields: func(o *aim.AIMArtifact) fields.Set {
			return fields.Set{aim.FieldSourceURI: o.Spec.SourceURI, aim.FieldStatus: string(o.Status.Status)}
		},
		Columns: columns,
	}
}

func artifact(o runtime.Object) *aim.AIMArtifact { return o.(*aim.AIMArtifact) }

var columns = []resource.Column{
	resource.StringColumn("Status", "Overall state of the artifact.", false, func(o runtime.Object) string { return string(artifact(o).Status.Status) }),
	resource.StringColumn("Mode", "Shared or Dedicated.", false, func(o runtime.Object) string { return string(artifact(o).Status.Mode) }),
	resource.StringColumn("Model Size", "Size of the model weights.", false, func(o runtime.Object) string { return artifact(o).Status.DisplaySize }),
	resource.StringColumn("Progress", "Download progress.", false, func(o runtime.Object) string {
		if p := artifact(o).Status.Progress; p != nil {
			return p.DisplayPercentage
		}
		return ""
	}),
	resource.StringColumn("Protocol", "Download protocol in use.", true, func(o runtime.Object) string {
		if d := artifact(o).Status.Download; d != nil {
			return d.Protocol
		}
		return ""
	}),
	resource.StringColumn("Attempt", "Download attempt.", true, func(o runtime.Object) string {
		if d := artifact(o).Status.Download; d != nil && d.Attempt > 0 {
			return strconv.Itoa(int(d.Attempt))
		}
		return ""
	}),
}
