package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// twinResource is one kind of the twin group.
type twinResource struct {
	Plural, Singular, Kind string
	Namespaced             bool
	ShortNames             []string
	// SelectableFields are JSON paths such as ".status.status" that the CRD declares as selectableFields.
	SelectableFields []string
}

const (
	// twinSourceGroup is the group the document describes; the twin's group is the caller's.
	twinSourceGroup     = "aim.eai.amd.com"
	twinVersion         = "v1alpha1"
	twinRefPrefix       = "#/components/schemas/"
	twinQuantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
)

// twinQuantities are the quantity types: the document types them only as "string or number", but the
// aggregated server rejects a malformed quantity (pkg/fieldformat), so the twin checks the pattern controller-gen
// gives Quantity in CRDs. The AIM kinds' own keeps the text (D17); resource.Quantity is in core types they use.
var twinQuantities = []string{
	"com.github.aim-apiserver.aim-apiserver.pkg.apis.aim.v1alpha1.Quantity",
	"io.k8s.apimachinery.pkg.api.resource.Quantity",
}

// twinKept are the keywords copied as they are. A whitelist, because the API server drops (or, with strict field
// validation, rejects) what JSONSchemaProps lacks, such as x-kubernetes-patch-strategy; descriptions go to keep
// the CRDs small.
var twinKept = map[string]bool{
	"type": true, "format": true, "enum": true, "pattern": true, "default": true, "nullable": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true, "required": true, "x-kubernetes-list-type": true,
	"x-kubernetes-list-map-keys": true, "x-kubernetes-map-type": true, "x-kubernetes-int-or-string": true,
	"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-embedded-resource": true, "x-kubernetes-validations": true,
}

// twinCRDs turns aim-apiserver's published OpenAPI v3 document of aim.eai.amd.com/v1alpha1 (the bytes of GET
// /openapi/v3/apis/aim.eai.amd.com/v1alpha1) into one CustomResourceDefinition (apiextensions.k8s.io/v1, as an
// unstructured map ready to send as JSON) per resource, in group `group`, version v1alpha1, served and stored,
// with a status subresource and the kind's schema converted to a structural schema with the same constraints.
func twinCRDs(doc []byte, group string, resources []twinResource) ([]map[string]any, error) {
	var d struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	// Numbers become int64 where they can, as in unstructured objects, so that int64 bounds stay exact.
	if err := utiljson.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("decoding the OpenAPI document: %w", err)
	}
	// Component names follow Go package paths, so kinds are found by the GVK the definition namer attaches.
	byKind := map[string]string{}
	for name, s := range d.Components.Schemas {
		for _, g := range twinSchemas(s["x-kubernetes-group-version-kind"]) {
			if g["group"] == twinSourceGroup && g["version"] == twinVersion {
				byKind[fmt.Sprint(g["kind"])] = name
			}
		}
	}
	c := &twinConverter{schemas: d.Components.Schemas}
	var crds []map[string]any
	for _, r := range resources {
		name, ok := byKind[r.Kind]
		if !ok {
			return nil, fmt.Errorf("the document has no schema of %s/%s %s", twinSourceGroup, twinVersion, r.Kind)
		}
		schema, err := c.inline(twinRefPrefix + name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Kind, err)
		}
		props, ok := schema["properties"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: the schema has no properties", r.Kind)
		}
		// The API server owns metadata's schema; a CRD may only say it is an object.
		props["metadata"] = map[string]any{"type": "object"}
		if err := twinDropInvalidDefaults(schema); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Kind, err)
		}
		version := map[string]any{"name": twinVersion, "served": true, "storage": true,
			"schema":       map[string]any{"openAPIV3Schema": schema},
			"subresources": map[string]any{"status": map[string]any{}}}
		if len(r.SelectableFields) > 0 {
			version["selectableFields"] = twinList(r.SelectableFields, func(p string) any { return map[string]any{"jsonPath": p} })
		}
		names := map[string]any{"plural": r.Plural, "singular": r.Singular, "kind": r.Kind, "listKind": r.Kind + "List"}
		if len(r.ShortNames) > 0 {
			names["shortNames"] = twinList(r.ShortNames, func(n string) any { return n })
		}
		scope := map[bool]string{true: "Namespaced", false: "Cluster"}[r.Namespaced]
		crds = append(crds, map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": r.Plural + "." + group},
			"spec":     map[string]any{"group": group, "names": names, "scope": scope, "versions": []any{version}},
		})
	}
	return crds, nil
}

type twinConverter struct {
	schemas map[string]map[string]any
	// inlining are the components being inlined, outermost first: one met again is a cycle, which a structural
	// schema, a tree, cannot express.
	inlining []string
}

// inline returns a converted copy of a component: each use gets maps of its own, which merges then change.
func (c *twinConverter) inline(ref string) (map[string]any, error) {
	name := strings.TrimPrefix(ref, twinRefPrefix)
	if i := slices.Index(c.inlining, name); i >= 0 {
		return nil, fmt.Errorf("reference cycle: %s", strings.Join(append(slices.Clone(c.inlining[i:]), name), " -> "))
	}
	s, ok := c.schemas[name]
	if !ok {
		return nil, fmt.Errorf("$ref %q names no schema of the document", ref)
	}
	c.inlining = append(c.inlining, name)
	defer func() { c.inlining = c.inlining[:len(c.inlining)-1] }()
	out, err := c.convert(s, true)
	if err == nil && slices.Contains(twinQuantities, name) {
		out["pattern"] = twinQuantityPattern
	}
	return out, err
}

// convert turns a schema into its structural form. structural is false inside allOf/anyOf/oneOf/not, whose
// members only add value validations and may not have a type.
func (c *twinConverter) convert(s map[string]any, structural bool) (map[string]any, error) {
	out := map[string]any{}
	// kube-openapi writes a field of a named type as allOf: [{$ref}] beside the field's own keywords (default,
	// description): the referenced schema goes first so that the field's keywords win.
	refs, _ := s["$ref"].(string)
	var checks []map[string]any
	for _, m := range twinSchemas(s["allOf"]) {
		if ref, ok := m["$ref"].(string); ok && len(m) == 1 {
			refs += " " + ref
		} else {
			checks = append(checks, m)
		}
	}
	for _, ref := range strings.Fields(refs) {
		in, err := c.inline(ref)
		if err != nil {
			return nil, err
		}
		twinMerge(out, in, false, true)
	}
	for k, v := range s {
		var err error
		switch m, isMap := v.(map[string]any); {
		case k == "properties" && isMap:
			props := map[string]any{}
			for p, ps := range m {
				if ps, ok := ps.(map[string]any); ok {
					if props[p], err = c.convert(ps, structural); err != nil {
						return nil, fmt.Errorf("%s: %w", p, err)
					}
				}
			}
			v = props
		case (k == "items" || k == "additionalProperties" || k == "not") && isMap:
			if v, err = c.convert(m, structural && k != "not"); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		case k == "additionalProperties":
			// false beside properties is what pruning does anyway; true lets anything in.
			if v == true {
				out["x-kubernetes-preserve-unknown-fields"] = true
			}
			continue
		case k == "anyOf" || k == "oneOf":
			var alts []any
			for _, m := range twinSchemas(v) {
				alt, err := c.convert(m, false)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", k, err)
				}
				alts = append(alts, alt)
			}
			v = alts
		case !twinKept[k]:
			continue
		default:
			v = runtime.DeepCopyJSONValue(v) // a default or an enum of one CRD must not be another's
		}
		twinMerge(out, map[string]any{k: v}, false, true)
	}
	// The other allOf members (kube-openapi puts the item constraints of core types there) are folded into the
	// schema when that replaces nothing, so that the CRD reads as if written by hand; else they stay allOf.
	for _, m := range checks {
		check, err := c.convert(m, false)
		if err != nil {
			return nil, fmt.Errorf("allOf: %w", err)
		}
		if trial := runtime.DeepCopyJSON(out); twinMerge(trial, check, true, !structural) {
			out = trial
		} else {
			out["allOf"] = append(twinSlice(out["allOf"]), check)
		}
	}
	if structural {
		twinStructural(out)
	}
	return out, nil
}

// twinStructural gives a schema a type, or makes it one of the two typeless schemas apiextensions allows.
func twinStructural(s map[string]any) {
	var types []string
	for _, alt := range twinSchemas(append(twinSlice(s["oneOf"]), twinSlice(s["anyOf"])...)) {
		if t, ok := alt["type"].(string); ok && len(alt) == 1 {
			types = append(types, t)
		}
	}
	numberOrString := len(types) == 2 && slices.Contains(types, "string") &&
		(slices.Contains(types, "integer") || slices.Contains(types, "number"))
	if numberOrString || s["format"] == "int-or-string" || s["x-kubernetes-int-or-string"] == true {
		// A CRD cannot say "number or string"; int-or-string is the nearest it allows.
		delete(s, "type")
		delete(s, "format")
		delete(s, "oneOf")
		s["x-kubernetes-int-or-string"] = true
		s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	} else if s["type"] == nil {
		s["x-kubernetes-preserve-unknown-fields"] = true
	}
}

// twinDropInvalidDefaults removes the defaults their own schema rejects. openapi-gen gives each non-pointer
// field its Go zero value as default ({} for a struct, "" for a string) even where that value is invalid (a
// required field missing, a pattern unmatched); the aggregated server never applies them, its defaulting
// being Go code, but apiextensions refuses a CRD with an invalid default.
func twinDropInvalidDefaults(s map[string]any) error {
	if d, ok := s["default"]; ok {
		raw, err := json.Marshal(s)
		if err != nil {
			return err
		}
		var schema spec.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			return err
		}
		if !validate.NewSchemaValidator(&schema, nil, "", strfmt.Default).Validate(d).IsValid() {
			delete(s, "default")
		}
	}
	props, _ := s["properties"].(map[string]any)
	subs := append([]any{s["items"], s["additionalProperties"]}, slices.Collect(maps.Values(props))...)
	for _, sub := range twinSchemas(subs) {
		if err := twinDropInvalidDefaults(sub); err != nil {
			return err
		}
	}
	return nil
}

// twinMerge sets src's keywords on dst, merging nested schemas and uniting required lists. Strict, it reports
// false (dst may then be half merged) when a keyword would replace a different value, or, unless newFields,
// when src constrains a field or items dst does not declare: a structural schema must declare them.
func twinMerge(dst, src map[string]any, strict, newFields bool) bool {
	for k, v := range src {
		d, dok := dst[k].(map[string]any)
		m, mok := v.(map[string]any)
		switch {
		case k == "required":
			dst[k] = twinUnion(dst[k], v)
		case k == "properties" && mok:
			if !dok {
				d = map[string]any{}
				dst[k] = d
			}
			for p, ps := range m {
				if dp, ok := d[p].(map[string]any); ok {
					if !twinMerge(dp, ps.(map[string]any), strict, newFields) {
						return false
					}
				} else if !newFields {
					return false
				} else {
					d[p] = ps
				}
			}
		case (k == "items" || k == "additionalProperties") && dok && mok:
			if !twinMerge(d, m, strict, newFields) {
				return false
			}
		case (k == "items" || k == "additionalProperties") && !newFields:
			return false
		default:
			if old, ok := dst[k]; strict && ok && !reflect.DeepEqual(old, v) {
				return false
			}
			dst[k] = v
		}
	}
	return true
}

func twinUnion(a, b any) []any {
	out := slices.Clone(twinSlice(a))
	for _, v := range twinSlice(b) {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func twinSlice(v any) []any { s, _ := v.([]any); return s }

// twinSchemas are the maps of a list.
func twinSchemas(v any) []map[string]any {
	var out []map[string]any
	for _, m := range twinSlice(v) {
		if m, ok := m.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// twinList builds the []any that unstructured objects hold, not a typed slice, which their deep copy rejects.
func twinList(s []string, f func(string) any) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}
