package apiserver

import (
	"fmt"

	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/kube-openapi/pkg/builder3"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	generatedopenapi "github.com/aim-apiserver/aim-apiserver/pkg/generated/openapi"
)

// OpenAPITitle is the info.title of the OpenAPI documents aim-apiserver serves; migrate tells them by it from
// the CRDs' that kube-apiserver served for the group before.
const OpenAPITitle = "aim-apiserver"

// OpenAPIConfig is the configuration of the server's /openapi/v2: the definitions (openAPIDefinitions), named
// after the scheme's kinds.
func OpenAPIConfig() *openapicommon.Config {
	c := genericapiserver.DefaultOpenAPIConfig(openAPIDefinitions, openapinamer.NewDefinitionNamer(Scheme))
	c.Info.Title = OpenAPITitle
	c.Info.Version = v1alpha1.SchemeGroupVersion.Version
	return c
}

// OpenAPIV3Config is the configuration of the server's /openapi/v3, from the same definitions.
func OpenAPIV3Config() *openapicommon.OpenAPIV3Config {
	c := genericapiserver.DefaultOpenAPIV3Config(openAPIDefinitions, openapinamer.NewDefinitionNamer(Scheme))
	c.Info.Title = OpenAPITitle
	c.Info.Version = v1alpha1.SchemeGroupVersion.Version
	return c
}

// openAPIDefinitions are the generated definitions (pkg/generated/openapi) with the one default that Go code
// applies and no marker can publish: a service's storage.pvcHeadroomPercent, defaulted by
// SetDefaults_AIMServiceSpec. The type, AIMStorageConfig, is shared with runtime configs, which take no
// defaults (F13), so the default is added where a service's spec uses it, as aim-engine's schema has it.
func openAPIDefinitions(ref openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
	defs := generatedopenapi.GetOpenAPIDefinitions(ref)
	name := util.GetCanonicalTypeName(&v1alpha1.AIMServiceSpec{})
	def, ok := defs[name]
	if !ok {
		panic("no OpenAPI definition of " + name)
	}
	storage := def.Schema.Properties["storage"]
	if storage.Ref.String() == "" {
		panic("the OpenAPI definition of " + name + " has no storage reference")
	}
	headroom := spec.Schema{SchemaProps: spec.SchemaProps{Default: v1alpha1.DefaultPVCHeadroomPercent}}
	// The reference moves into allOf beside the default, as kube-openapi writes a reference with siblings.
	storage.AllOf = []spec.Schema{
		{SchemaProps: spec.SchemaProps{Ref: storage.Ref}},
		{SchemaProps: spec.SchemaProps{Properties: map[string]spec.Schema{"pvcHeadroomPercent": headroom}}},
	}
	storage.Ref = spec.Ref{}
	def.Schema.Properties["storage"] = storage
	defs[name] = def
	return defs
}

// OpenAPIV3Schemas builds, without serving them, the components of /openapi/v3/apis/aim.eai.amd.com/v1alpha1
// that the schemas of the kinds reference: OpenAPIV3Config and kube-openapi's builder, as the server builds the
// document from its routes. The keys are the components' names; a kind's schema carries its
// x-kubernetes-group-version-kind. The served document has in addition the List kinds and the meta types of the
// operations.
func OpenAPIV3Schemas() (map[string]*spec.Schema, error) {
	var names []string
	for _, r := range Resources() {
		obj, err := Scheme.New(v1alpha1.SchemeGroupVersion.WithKind(r.KindName()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.KindName(), err)
		}
		names = append(names, util.GetCanonicalTypeName(obj))
	}
	return builder3.BuildOpenAPIDefinitionsForResources(OpenAPIV3Config(), names...)
}
