package aim

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of every AIM kind.
const GroupName = "aim.eai.amd.com"

// SchemeGroupVersion is the internal version of the group.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}

var (
	// SchemeBuilder registers the internal types.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the internal types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind takes an unqualified kind and returns a group-qualified GroupKind.
func Kind(kind string) schema.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}

// Resource takes an unqualified resource and returns a group-qualified GroupResource.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

// KnownTypes returns one new empty object and list of every kind of the group, in a fixed order.
func KnownTypes() []runtime.Object {
	return []runtime.Object{
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
	}
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, KnownTypes()...)
	return nil
}
