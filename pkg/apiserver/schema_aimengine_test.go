package apiserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// aimEngineCRDs holds aim-engine's CustomResourceDefinitions, copied from its config/crd/bases (README.md there).
var aimEngineCRDs = filepath.Join("testdata", "aim-engine")

// schemaKeywords are the keywords compared at every path: what a schema-only validator checks, what a client
// defaults, and the type and format that decide how a value is read.
var schemaKeywords = []string{
	"type", "format", "enum", "pattern", "default", "required",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
}

// schemaDiff is one way a path of aim-apiserver's schema differs from aim-engine's: what is a keyword, or
// "path" for a path only one of them has.
type schemaDiff struct {
	kind, path, what string
	ours, theirs     string
}

func (d schemaDiff) String() string {
	return fmt.Sprintf("%s %s %s: aim-apiserver %s, aim-engine %s", d.kind, d.path, d.what, d.ours, d.theirs)
}

// TestPublishedSchemaMatchesAimEngine compares the schema the server publishes for each kind with the
// openAPIV3Schema of aim-engine's CRD, path by path (properties, items, additionalProperties): every keyword of
// schemaKeywords must be the same on both sides, and every path must be on both, or the difference must be one
// of schemaDifferences, each with its reason. A row of schemaDifferences that matches no difference fails the
// test, so that the table stays true.
func TestPublishedSchemaMatchesAimEngine(t *testing.T) {
	ours := publishedKindSchemas(t)
	theirs := aimEngineKindSchemas(t)
	var diffs []schemaDiff
	for _, kind := range sortedKeys(theirs) {
		o, ok := ours[kind]
		if !ok {
			t.Errorf("aim-engine has kind %s, aim-apiserver publishes no schema of it", kind)
			continue
		}
		c := &schemaComparison{kind: kind, components: o.components}
		c.compare(".", o.parts, expandSchema([]map[string]any{theirs[kind]}, nil))
		t.Logf("%s: %d paths compared, %d differences", kind, c.paths, len(c.diffs))
		diffs = append(diffs, c.diffs...)
	}
	for kind := range ours {
		if _, ok := theirs[kind]; !ok {
			t.Errorf("aim-apiserver publishes kind %s, aim-engine has no CRD of it in %s", kind, aimEngineCRDs)
		}
	}
	used := make([]bool, len(schemaDifferences))
	matchers := make([]func(schemaDiff) bool, len(schemaDifferences))
	for i, row := range schemaDifferences {
		matchers[i] = row.matcher()
	}
	for _, d := range diffs {
		listed := false
		for i, matches := range matchers {
			if matches(d) {
				used[i], listed = true, true
			}
		}
		if !listed {
			t.Errorf("unlisted difference from aim-engine: %s", d)
		}
	}
	for i, row := range schemaDifferences {
		if !used[i] {
			t.Errorf("schemaDifferences row %q %q matches no difference: remove it", row.where, row.what)
		}
	}
}

// ourKind is a kind's schema in the published components, with the components its $refs name.
type ourKind struct {
	parts      []map[string]any
	components map[string]map[string]any
}

// publishedKindSchemas are the kinds' schemas as /openapi/v3/apis/aim.eai.amd.com/v1alpha1 publishes them, by
// kind, found by their group-version-kind extension.
func publishedKindSchemas(t *testing.T) map[string]ourKind {
	t.Helper()
	defs, err := OpenAPIV3Schemas()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	var components map[string]map[string]any
	if err := json.Unmarshal(raw, &components); err != nil {
		t.Fatal(err)
	}
	out := map[string]ourKind{}
	for _, s := range components {
		gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			if gvk["group"] == v1alpha1.GroupName && gvk["version"] == v1alpha1.SchemeGroupVersion.Version {
				out[gvk["kind"].(string)] = ourKind{parts: expandSchema([]map[string]any{s}, components), components: components}
			}
		}
	}
	if len(out) != len(Resources()) {
		t.Fatalf("%d kinds in the published components, want %d", len(out), len(Resources()))
	}
	return out
}

// aimEngineKindSchemas are the openAPIV3Schemas of v1alpha1 in aim-engine's CRDs, by kind.
func aimEngineKindSchemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(aimEngineCRDs, "aim.eai.amd.com_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", aimEngineCRDs, err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range crd.Spec.Versions {
			if crd.Spec.Group == v1alpha1.GroupName && v.Name == v1alpha1.SchemeGroupVersion.Version {
				out[crd.Spec.Names.Kind] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return out
}

// expandSchema flattens schemas into the list of schemas that all apply at their path: $refs are resolved in
// components, allOf members are added. kube-openapi writes a field of a named type as allOf: [{$ref}] beside
// the field's own default and description, and item constraints of markers as an allOf member; controller-gen
// writes the enums of a named type and of its field as two allOf members.
func expandSchema(schemas []map[string]any, components map[string]map[string]any) []map[string]any {
	var out []map[string]any
	for _, s := range schemas {
		out = append(out, s)
		if ref, ok := s["$ref"].(string); ok {
			target, ok := components[strings.TrimPrefix(ref, "#/components/schemas/")]
			if !ok {
				panic("unresolved $ref " + ref)
			}
			out = append(out, expandSchema([]map[string]any{target}, components)...)
		}
		var members []map[string]any
		for _, m := range asSlice(s["allOf"]) {
			if m, ok := m.(map[string]any); ok {
				members = append(members, m)
			}
		}
		out = append(out, expandSchema(members, components)...)
	}
	return out
}

type schemaComparison struct {
	kind       string
	components map[string]map[string]any
	paths      int
	diffs      []schemaDiff
}

// compare compares the keywords at path and walks on into properties, items and additionalProperties.
func (c *schemaComparison) compare(path string, ours, theirs []map[string]any) {
	c.paths++
	for _, k := range schemaKeywords {
		o, th := keywordValue(ours, k), keywordValue(theirs, k)
		if o != th {
			c.diffs = append(c.diffs, schemaDiff{kind: c.kind, path: path, what: k, ours: o, theirs: th})
		}
	}
	if path == "metadata" {
		return // the API server's own; aim-engine's CRDs may only say it is an object
	}
	oursProps, theirProps := children(ours, "properties"), children(theirs, "properties")
	for _, name := range sortedKeys(unionKeys(oursProps, theirProps)) {
		c.child(joinPath(path, name), oursProps[name], theirProps[name])
	}
	for _, sub := range []struct{ keyword, suffix string }{{"items", "[]"}, {"additionalProperties", "{}"}} {
		c.child(path+sub.suffix, children(ours, sub.keyword)[""], children(theirs, sub.keyword)[""])
	}
}

func (c *schemaComparison) child(path string, ours, theirs []map[string]any) {
	switch {
	case ours == nil && theirs == nil:
	case ours == nil:
		c.diffs = append(c.diffs, schemaDiff{kind: c.kind, path: path, what: "path", ours: "absent", theirs: "present"})
	case theirs == nil:
		c.diffs = append(c.diffs, schemaDiff{kind: c.kind, path: path, what: "path", ours: "present", theirs: "absent"})
	default:
		c.compare(path, expandSchema(ours, c.components), expandSchema(theirs, nil))
	}
}

// children collects the subschemas of keyword ("properties": by name; "items", "additionalProperties": under
// ""), from every schema of the path.
func children(schemas []map[string]any, keyword string) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, s := range schemas {
		switch v := s[keyword].(type) {
		case map[string]any:
			if keyword != "properties" {
				out[""] = append(out[""], v)
				continue
			}
			for name, p := range v {
				if p, ok := p.(map[string]any); ok {
					out[name] = append(out[name], p)
				}
			}
		}
	}
	return out
}

// keywordValue is a keyword's value at a path as canonical JSON: the distinct values of the path's schemas,
// joined by " & " when they differ (all apply), "-" when none has it. Enums and required lists are sets, so
// they are sorted; a type is read from an int-or-string marker or a oneOf/anyOf of plain types too.
func keywordValue(schemas []map[string]any, keyword string) string {
	var values []string
	for _, s := range schemas {
		v, ok := s[keyword]
		if keyword == "type" && !ok {
			v, ok = alternativeTypes(s)
		}
		if !ok {
			continue
		}
		if keyword == "enum" || keyword == "required" {
			v = sortedJSONSet(v)
		}
		data, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		if !slices.Contains(values, string(data)) {
			values = append(values, string(data))
		}
	}
	if len(values) == 0 {
		return "-"
	}
	sort.Strings(values)
	return strings.Join(values, " & ")
}

// alternativeTypes reads "integer|string" from x-kubernetes-int-or-string or from oneOf/anyOf members that
// only give a type.
func alternativeTypes(s map[string]any) (any, bool) {
	if s["x-kubernetes-int-or-string"] == true {
		return "integer|string", true
	}
	var types []string
	for _, k := range []string{"oneOf", "anyOf"} {
		for _, m := range asSlice(s[k]) {
			m, _ := m.(map[string]any)
			if t, ok := m["type"].(string); ok && len(m) == 1 {
				types = append(types, t)
			}
		}
	}
	if len(types) == 0 {
		return nil, false
	}
	sort.Strings(types)
	return strings.Join(slices.Compact(types), "|"), true
}

// sortedJSONSet is a list's distinct values in the order of their JSON.
func sortedJSONSet(v any) any {
	byJSON := map[string]any{}
	for _, e := range asSlice(v) {
		data, _ := json.Marshal(e)
		byJSON[string(data)] = e
	}
	out := []any{}
	for _, k := range sortedKeys(byJSON) {
		out = append(out, byJSON[k])
	}
	return out
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// joinPath names a property: "." is the object itself, "spec.model" a path below it.
func joinPath(path, name string) string {
	if path == "." {
		return name
	}
	return path + "." + name
}

func unionKeys[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
