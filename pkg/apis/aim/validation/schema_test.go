package validation_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
	"github.com/aim-apiserver/aim-apiserver/test/framework"
)

// TestSchemaAgreesWithValidation validates every object of the validation tables with a schema-only validator
// (kube-openapi's, the one apiextensions runs for CRDs) against the OpenAPI v3 document the server publishes,
// as kubectl-validate, kubeconform or an editor plugin would: every valid object passes, every invalid object
// whose rule is marked schema is rejected on its field, and no other invalid object is rejected (else the
// mark is missing and the table understates what the schema checks).
func TestSchemaAgreesWithValidation(t *testing.T) {
	srv := framework.StartLocal(t, t.TempDir())
	doc := fetchOpenAPIV3(t, srv)
	schemas := schemasByKind(t, doc)

	var rejected, accepted int
	for _, o := range validation.TableObjects() {
		obj, kind := userJSON(t, o.Object)
		sch, ok := schemas[kind]
		if !ok {
			t.Fatalf("%s: no schema for kind %s", o.Name, kind)
		}
		res := validate.NewSchemaValidator(sch, nil, "", strfmt.Default).Validate(obj)
		errs := res.Errors
		switch {
		case o.Valid && len(errs) > 0:
			t.Errorf("%s: valid object rejected by the schema: %v", o.Name, errs)
		case !o.Valid && o.Schema && !mentions(errs, o.Field):
			t.Errorf("%s: the schema should reject %s, got %v", o.Name, o.Field, errs)
		case !o.Valid && !o.Schema && len(errs) > 0:
			t.Errorf("%s: the schema rejects it (%v): mark the rule schema: true", o.Name, errs)
		}
		if !o.Valid && o.Schema {
			rejected++
		} else if o.Valid {
			accepted++
		}
	}
	t.Logf("%d valid objects accepted, %d invalid objects rejected by the schema alone", accepted, rejected)

	// The default is published with the enum: kubectl explain lists the enum, tools read the default.
	mode := property(schemas["AIMService"], "spec", "caching", "mode")
	if mode.Default != "Shared" || len(mode.Enum) == 0 {
		t.Errorf("spec.caching.mode: default %v, enum %v; want default Shared and an enum", mode.Default, mode.Enum)
	}
}

// property walks down properties; a property with a default or description of its own wraps the referenced
// schema in allOf.
func property(s *spec.Schema, path ...string) spec.Schema {
	cur := *s
	for _, name := range path {
		p, ok := cur.Properties[name]
		for _, sub := range cur.AllOf {
			if !ok {
				p, ok = sub.Properties[name]
			}
		}
		cur = p
	}
	return cur
}

// mapKey is a map key in a validation path, spec.x[key]; the schema validator writes spec.x.key.
var mapKey = regexp.MustCompile(`\[([^0-9\]][^\]]*)\]`)

// mentions says whether an error names the field: the validator reports paths like spec.env[0].name, or the
// parent path with the missing property's name for a required property.
func mentions(errs []error, field string) bool {
	field = mapKey.ReplaceAllString(field, ".$1")
	for _, err := range errs {
		msg := err.Error()
		if strings.Contains(msg, field) {
			return true
		}
		if i := strings.LastIndexByte(field, '.'); i > 0 && strings.Contains(msg, field[:i]) && strings.Contains(msg, field[i+1:]) {
			return true
		}
	}
	return false
}

func fetchOpenAPIV3(t *testing.T, srv *framework.Server) map[string]any {
	t.Helper()
	url := strings.TrimSuffix(srv.Config.Host, "/") + "/openapi/v3/apis/" + aimv1.SchemeGroupVersion.String()
	resp, err := srv.RawClient(t).Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, data)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("decoding the OpenAPI document: %v", err)
	}
	return doc
}

// schemasByKind finds each AIM kind's schema by its group-version-kind extension and inlines its $refs: the
// schema-only validator does not follow references.
func schemasByKind(t *testing.T, doc map[string]any) map[string]*spec.Schema {
	t.Helper()
	components, _ := doc["components"].(map[string]any)
	all, _ := components["schemas"].(map[string]any)
	out := map[string]*spec.Schema{}
	for name, raw := range all {
		s, _ := raw.(map[string]any)
		gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			if gvk["group"] != aimv1.GroupName || gvk["version"] != aimv1.SchemeGroupVersion.Version {
				continue
			}
			inlined, err := inline(s, all, map[string]bool{name: true})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			data, _ := json.Marshal(inlined)
			var sch spec.Schema
			if err := json.Unmarshal(data, &sch); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[gvk["kind"].(string)] = &sch
		}
	}
	if len(out) == 0 {
		t.Fatal("the OpenAPI document has no AIM kinds")
	}
	return out
}

func inline(v any, all map[string]any, seen map[string]bool) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			target, ok := all[name]
			if !ok {
				return nil, fmt.Errorf("unresolved $ref %s", ref)
			}
			if seen[name] {
				return nil, fmt.Errorf("recursive schema %s", name)
			}
			seen[name] = true
			defer delete(seen, name)
			return inline(target, all, seen)
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			r, err := inline(e, all, seen)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			r, err := inline(e, all, seen)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	default:
		return v, nil
	}
}

// userJSON is the object as a user would write it in v1alpha1: converted from the internal version, with the
// server-managed metadata left out.
func userJSON(t *testing.T, obj runtime.Object) (map[string]any, string) {
	t.Helper()
	versioned, err := apiserver.Scheme.ConvertToVersion(obj, aimv1.SchemeGroupVersion)
	if err != nil {
		t.Fatalf("converting %T: %v", obj, err)
	}
	data, err := json.Marshal(versioned)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	meta, _ := out["metadata"].(map[string]any)
	user := map[string]any{}
	for _, k := range []string{"name", "namespace"} {
		if v, ok := meta[k]; ok {
			user[k] = v
		}
	}
	out["metadata"] = user
	kind, _ := out["kind"].(string)
	return out, kind
}
