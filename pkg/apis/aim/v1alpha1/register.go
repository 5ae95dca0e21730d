package v1alpha1

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// GroupName is the API group of every AIM kind.
const GroupName = aim.GroupName

// SchemeGroupVersion is the group version of this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

var (
	// SchemeBuilder is exported for the generated client's fake scheme.
	SchemeBuilder      runtime.SchemeBuilder
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds the v1alpha1 types, their defaults, conversions and field labels to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func init() {
	// The generated conversion and defaulting functions register themselves through localSchemeBuilder.
	localSchemeBuilder.Register(addKnownTypes, addDefaultingFuncs, addFieldLabelConversionFuncs)
}

// Resource takes an unqualified resource and returns a group-qualified GroupResource.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&AIMService{}, &AIMServiceList{},
		&AIMServiceTemplate{}, &AIMServiceTemplateList{},
		&AIMClusterServiceTemplate{}, &AIMClusterServiceTemplateList{},
		&AIMModel{}, &AIMModelList{},
		&AIMClusterModel{}, &AIMClusterModelList{},
		&AIMRuntimeConfig{}, &AIMRuntimeConfigList{},
		&AIMClusterRuntimeConfig{}, &AIMClusterRuntimeConfigList{},
		&AIMTemplateCache{}, &AIMTemplateCacheList{},
		&AIMArtifact{}, &AIMArtifactList{},
		&AIMClusterModelSource{}, &AIMClusterModelSourceList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}

// addFieldLabelConversionFuncs lets list and watch requests select on the fields in aim.SelectableFields.
// Without it the scheme only accepts metadata.name and metadata.namespace.
func addFieldLabelConversionFuncs(scheme *runtime.Scheme) error {
	for gvk := range scheme.KnownTypes(SchemeGroupVersion) {
		kind := gvk
		allowed := map[string]bool{"metadata.name": true, "metadata.namespace": true}
		for _, f := range aim.SelectableFields(kind) {
			allowed[f] = true
		}
		err := scheme.AddFieldLabelConversionFunc(SchemeGroupVersion.WithKind(kind), func(label, value string) (string, string, error) {
			if allowed[label] {
				return label, value, nil
			}
			return "", "", fmt.Errorf("field label not supported for %s: %s", kind, label)
		})
		if err != nil {
			return fmt.Errorf("registering field selectors of %s: %w", kind, err)
		}
	}
	return nil
}
