package main

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
)

const twinTestGroup = "twin.aim.eai.amd.com"

// twinTestDoc builds the components of /openapi/v3/apis/aim.eai.amd.com/v1alpha1 the way the server does
// (apiserver.OpenAPIV3Schemas), without starting it. Checked once against a running server: every component the
// two share is identical; the server's has in addition the List kinds and the meta types of its operations, which
// no kind's schema references.
func twinTestDoc(t *testing.T) []byte {
	t.Helper()
	defs, err := apiserver.OpenAPIV3Schemas()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(map[string]any{"openapi": "3.0.0", "components": map[string]any{"schemas": defs}})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// twinTestResources describes the served kinds as the server registers them. Singular, scope and short names
// are fields of each kind's resource.Definition, which the Installer interface does not expose.
func twinTestResources(t *testing.T) []twinResource {
	t.Helper()
	clusterScoped := sets.New("AIMClusterServiceTemplate", "AIMClusterModel", "AIMClusterRuntimeConfig", "AIMClusterModelSource")
	var out []twinResource
	for _, r := range apiserver.Resources() {
		def := reflect.ValueOf(r)
		for _, f := range []string{"Singular", "NamespaceScoped", "ShortNames"} {
			if !def.FieldByName(f).IsValid() {
				t.Fatalf("%T has no field %s", r, f)
			}
		}
		res := twinResource{
			Plural: r.ResourceName(), Kind: r.KindName(),
			Singular:   def.FieldByName("Singular").String(),
			Namespaced: def.FieldByName("NamespaceScoped").Bool(),
			ShortNames: def.FieldByName("ShortNames").Interface().([]string),
		}
		if res.Namespaced == clusterScoped.Has(res.Kind) {
			t.Fatalf("%s: namespaced %v, unlike kubectl api-resources", res.Kind, res.Namespaced)
		}
		for _, f := range aim.SelectableFields(res.Kind) {
			res.SelectableFields = append(res.SelectableFields, "."+f)
		}
		out = append(out, res)
	}
	if len(out) != 10 {
		t.Fatalf("%d kinds, want 10", len(out))
	}
	return out
}

// twinTestCRDs returns the twin CRDs as the API server would decode them, by kind.
func twinTestCRDs(t *testing.T) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	resources := twinTestResources(t)
	crds, err := twinCRDs(twinTestDoc(t), twinTestGroup, resources)
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != len(resources) {
		t.Fatalf("%d CRDs for %d resources", len(crds), len(resources))
	}
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for i, u := range crds {
		raw, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(raw, crd); err != nil {
			t.Fatalf("%s: %v", resources[i].Kind, err)
		}
		// A keyword JSONSchemaProps lacks would be dropped by the API server: the typed spec must say it all.
		typed, err := json.Marshal(crd.Spec)
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		_ = json.Unmarshal(raw, &want)
		_ = json.Unmarshal(typed, &got)
		if !reflect.DeepEqual(want.(map[string]any)["spec"], got) {
			t.Errorf("%s: the spec changes through apiextensionsv1.CustomResourceDefinitionSpec", resources[i].Kind)
		}
		out[crd.Spec.Names.Kind] = crd
	}
	return out
}

func twinTestInternal(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
	t.Helper()
	scheme := runtime.NewScheme()
	install.Install(scheme)
	crd = crd.DeepCopy()
	scheme.Default(crd)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(crd, internal, nil); err != nil {
		t.Fatal(err)
	}
	return internal
}

// twinTestSchema is the internal schema: conversion moves a schema all versions share to spec.validation.
func twinTestSchema(crd *apiextensions.CustomResourceDefinition) *apiextensions.JSONSchemaProps {
	if crd.Spec.Validation != nil {
		return crd.Spec.Validation.OpenAPIV3Schema
	}
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

// TestTwinCRDsAreValid: each twin is a CRD the API server would accept, with the names, scope, subresource and
// selectable fields of its kind.
func TestTwinCRDsAreValid(t *testing.T) {
	crds := twinTestCRDs(t)
	for _, r := range twinTestResources(t) {
		crd := crds[r.Kind]
		if crd == nil {
			t.Fatalf("no CRD of %s", r.Kind)
		}
		t.Run(r.Kind, func(t *testing.T) {
			internal := twinTestInternal(t, crd)
			s, err := structuralschema.NewStructural(twinTestSchema(internal))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range structuralschema.ValidateStructural(nil, s) {
				t.Errorf("not structural: %v", e)
			}
			// What the API server checks on create, defaults included; it needs the status PrepareForCreate sets.
			internal.Status.StoredVersions = []string{twinVersion}
			for _, e := range crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal) {
				t.Errorf("invalid CRD: %v", e)
			}

			spec := crd.Spec
			if crd.Name != r.Plural+"."+twinTestGroup || spec.Group != twinTestGroup {
				t.Errorf("name %s, group %s", crd.Name, spec.Group)
			}
			wantNames := apiextensionsv1.CustomResourceDefinitionNames{Plural: r.Plural, Singular: r.Singular,
				Kind: r.Kind, ListKind: r.Kind + "List", ShortNames: r.ShortNames}
			if !reflect.DeepEqual(spec.Names, wantNames) {
				t.Errorf("names %+v, want %+v", spec.Names, wantNames)
			}
			if wantScope := map[bool]apiextensionsv1.ResourceScope{true: apiextensionsv1.NamespaceScoped,
				false: apiextensionsv1.ClusterScoped}[r.Namespaced]; spec.Scope != wantScope {
				t.Errorf("scope %s, want %s", spec.Scope, wantScope)
			}
			v := spec.Versions
			if len(v) != 1 || v[0].Name != "v1alpha1" || !v[0].Served || !v[0].Storage ||
				v[0].Subresources == nil || v[0].Subresources.Status == nil || v[0].Subresources.Scale != nil {
				t.Fatalf("versions %+v", v)
			}
			var paths []string
			for _, f := range v[0].SelectableFields {
				paths = append(paths, f.JSONPath)
			}
			if !reflect.DeepEqual(paths, r.SelectableFields) {
				t.Errorf("selectable fields %v, want %v", paths, r.SelectableFields)
			}
			if meta := v[0].Schema.OpenAPIV3Schema.Properties["metadata"]; !reflect.DeepEqual(meta, apiextensionsv1.JSONSchemaProps{Type: "object"}) {
				t.Errorf("metadata %+v, want only type object", meta)
			}
			twinTestWalk(v[0].Schema.OpenAPIV3Schema, "", func(path string, s *apiextensionsv1.JSONSchemaProps) {
				if s.Description != "" || s.Ref != nil {
					t.Errorf("%s keeps a description or $ref", path)
				}
			})
		})
	}
}

// twinTestWalk calls f on every schema of the tree, value validations included.
func twinTestWalk(s *apiextensionsv1.JSONSchemaProps, path string, f func(string, *apiextensionsv1.JSONSchemaProps)) {
	if s == nil {
		return
	}
	f(path, s)
	for name, p := range s.Properties {
		twinTestWalk(&p, path+"."+name, f)
	}
	if s.Items != nil {
		twinTestWalk(s.Items.Schema, path+"[]", f)
	}
	if s.AdditionalProperties != nil {
		twinTestWalk(s.AdditionalProperties.Schema, path+"{}", f)
	}
	for _, alts := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range alts {
			twinTestWalk(&alts[i], path+"|", f)
		}
	}
}

// twinTestJSON shows a schema compactly in failure messages.
func twinTestJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestTwinKeepsConstraints reads constraints off the twins, compares some with the document's, and checks that
// apiextensions, given the AIMService twin, defaults objects and rejects what the schema forbids.
func TestTwinKeepsConstraints(t *testing.T) {
	doc := twinTestDoc(t)
	var d struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Pattern string
					AllOf   []struct {
						Items struct {
							AllOf []struct {
								Properties map[string]struct{ Pattern string }
							}
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	source := d.Components.Schemas["com.github.aim-apiserver.aim-apiserver.pkg.apis.aim.v1alpha1.AIMServiceSpec"].Properties
	namePattern := source["runtimeConfigName"].Pattern
	envNamePattern := source["env"].AllOf[0].Items.AllOf[0].Properties["name"].Pattern
	if namePattern == "" || envNamePattern == "" {
		t.Fatal("the document's AIMServiceSpec lacks the patterns this test expects")
	}

	crds := twinTestCRDs(t)
	crd := crds["AIMService"]
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	spec := root.Properties["spec"]
	if !reflect.DeepEqual(root.Required, []string{"spec"}) || !reflect.DeepEqual(spec.Required, []string{"model"}) {
		t.Errorf("required: root %v, spec %v", root.Required, spec.Required)
	}
	replicas := spec.Properties["replicas"]
	if replicas.Type != "integer" || replicas.Format != "int32" || replicas.Minimum == nil || *replicas.Minimum != 0 ||
		replicas.Default == nil || string(replicas.Default.Raw) != "1" {
		t.Errorf("spec.replicas %s", twinTestJSON(replicas))
	}
	if rc := spec.Properties["runtimeConfigName"]; rc.Pattern != namePattern || rc.MaxLength == nil || *rc.MaxLength != 253 {
		t.Errorf("spec.runtimeConfigName %s", twinTestJSON(rc))
	}
	if model := spec.Properties["model"]; model.MinProperties == nil || *model.MinProperties != 1 || model.Properties["name"].Pattern == "" {
		t.Errorf("spec.model %s", twinTestJSON(model))
	}
	mode := spec.Properties["caching"].Properties["mode"]
	if twinTestJSON(mode.Enum) != `["Always","Auto","Dedicated","Never","Shared"]` || twinTestJSON(mode.Default) != `"Shared"` {
		t.Errorf("spec.caching.mode %s", twinTestJSON(mode))
	}
	env := spec.Properties["env"]
	if env.XListType == nil || *env.XListType != "map" || !reflect.DeepEqual(env.XListMapKeys, []string{"name"}) ||
		env.Items == nil || env.Items.Schema == nil {
		t.Fatalf("spec.env %s", twinTestJSON(env))
	}
	// EnvVar is inlined, and the name pattern of the allOf beside its $ref folded into it.
	envVar := env.Items.Schema
	if !reflect.DeepEqual(envVar.Required, []string{"name"}) || envVar.Properties["name"].Pattern != envNamePattern ||
		envVar.Properties["valueFrom"].Properties["secretKeyRef"].Properties["key"].Type != "string" || len(envVar.AllOf) != 0 {
		t.Errorf("spec.env items %s", twinTestJSON(envVar))
	}
	limits := spec.Properties["resources"].Properties["limits"].AdditionalProperties
	if limits == nil || limits.Schema == nil || !limits.Schema.XIntOrString || limits.Schema.Pattern != twinQuantityPattern ||
		limits.Schema.Type != "" || len(limits.Schema.AnyOf) != 2 {
		t.Errorf("spec.resources.limits values %s", twinTestJSON(limits))
	}
	cond := root.Properties["status"].Properties["conditions"]
	if lt := cond.Items.Schema.Properties["lastTransitionTime"]; lt.Type != "string" || lt.Format != "date-time" ||
		!reflect.DeepEqual(cond.XListMapKeys, []string{"type"}) {
		t.Errorf("status.conditions %s", twinTestJSON(cond))
	}
	profile := crds["AIMServiceTemplate"].Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"].Properties["profile"]
	for _, name := range []string{"engine_args", "originalDiscoveryOutput"} {
		if f := profile.Properties[name]; f.Type != "" || f.XPreserveUnknownFields == nil || !*f.XPreserveUnknownFields {
			t.Errorf("status.profile.%s %s", name, twinTestJSON(f))
		}
	}

	internal := twinTestInternal(t, crd)
	s, err := structuralschema.NewStructural(twinTestSchema(internal))
	if err != nil {
		t.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(twinTestSchema(internal))
	if err != nil {
		t.Fatal(err)
	}
	obj := func(spec string) map[string]any {
		var o map[string]any
		if err := json.Unmarshal([]byte(`{"apiVersion":"`+twinTestGroup+`/v1alpha1","kind":"AIMService","metadata":{"name":"a"},"spec":`+spec+`}`), &o); err != nil {
			t.Fatal(err)
		}
		structuraldefaulting.Default(o, s)
		return o
	}
	good := obj(`{"model":{"name":"qwen3-32b"},"env":[{"name":"A","value":"b"}],"resources":{"limits":{"cpu":"500m","memory":1024}}}`)
	if errs := apiservervalidation.ValidateCustomResource(nil, good, validator); len(errs) != 0 {
		t.Errorf("a valid AIMService is rejected: %v", errs)
	}
	// An absent caching stays absent, as in aim-engine; a caching without mode gets mode Shared.
	if spec := good["spec"].(map[string]any); spec["replicas"] != int64(1) || spec["caching"] != nil {
		t.Errorf("defaults not applied as the schema says: %v", spec)
	}
	if caching, _ := obj(`{"model":{"name":"qwen3-32b"},"caching":{}}`)["spec"].(map[string]any)["caching"].(map[string]any); caching["mode"] != "Shared" {
		t.Errorf("caching {} defaulted to %v, want mode Shared", caching)
	}
	for _, bad := range []string{
		`{"model":{"name":"qwen3-32b"},"replicas":-1}`,
		`{"model":{"name":"Not_A_Name"}}`,
		`{"model":{}}`,
		`{"model":{"name":"m"},"caching":{"mode":"Sometimes"}}`,
		`{"model":{"name":"m"},"env":[{"value":"b"}]}`,
		`{"model":{"name":"m"},"env":[{"name":"A=B"}]}`,
		`{"model":{"name":"m"},"resources":{"limits":{"cpu":"lots"}}}`,
		`{"model":{"name":"m"},"runtimeConfigName":"` + strings.Repeat("a", 254) + `"}`,
	} {
		if errs := apiservervalidation.ValidateCustomResource(nil, obj(bad), validator); len(errs) == 0 {
			t.Errorf("spec %s is accepted", bad)
		}
	}
}

// TestTwinReportsReferenceCycles: a cycle cannot be inlined into a tree, and must not recurse forever.
func TestTwinReportsReferenceCycles(t *testing.T) {
	doc := `{"components":{"schemas":{
		"a.Kind":{"type":"object","x-kubernetes-group-version-kind":[{"group":"aim.eai.amd.com","version":"v1alpha1","kind":"Kind"}],
			"properties":{"spec":{"allOf":[{"$ref":"#/components/schemas/a.Spec"}]}}},
		"a.Spec":{"type":"object","properties":{"next":{"type":"array","items":{"$ref":"#/components/schemas/a.Node"}}}},
		"a.Node":{"type":"object","properties":{"child":{"allOf":[{"$ref":"#/components/schemas/a.Spec"}]}}}}}}`
	done := make(chan error, 1)
	go func() {
		_, err := twinCRDs([]byte(doc), twinTestGroup, []twinResource{{Plural: "kinds", Singular: "kind", Kind: "Kind"}})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "reference cycle: a.Spec -> a.Node -> a.Spec") {
			t.Errorf("got error %v, want the cycle named", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("twinCRDs does not return on a reference cycle")
	}
}
