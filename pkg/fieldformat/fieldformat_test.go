package fieldformat

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apimachinery/pkg/util/validation/field"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

var serviceType = reflect.TypeOf(aimv1.AIMService{})

func fields(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field)
	}
	return out
}

func TestCheck(t *testing.T) {
	c := &Checker{}
	for _, tc := range []struct {
		name, contentType, body string
		want                    []string
	}{
		{"valid", "application/json", `{"spec":{"resources":{"limits":{"cpu":"2"}},"routing":{"requestTimeout":"30s"}}}`, nil},
		{"bad quantity in a map", "application/json", `{"spec":{"resources":{"limits":{"cpu":"two"}}}}`, []string{"spec.resources.limits[cpu]"}},
		{"numbers are quantities too", "application/json", `{"spec":{"resources":{"requests":{"memory":123456789012345678901234567890}}}}`, nil},
		{"a boolean is no quantity", "application/json", `{"spec":{"resources":{"requests":{"cpu":true}}}}`, []string{"spec.resources.requests[cpu]"}},
		{"bad duration", "application/json", `{"spec":{"routing":{"requestTimeout":"soon"}}}`, []string{"spec.routing.requestTimeout"}},
		{"YAML", "application/yaml", "spec:\n  routing: {requestTimeout: 3 days}\n", []string{"spec.routing.requestTimeout"}},
		{"JSON patch", "application/json-patch+json", `[{"op":"add","path":"/spec/resources/limits","value":{"cpu":"x"}},{"op":"remove","path":"/spec/replicas"}]`,
			[]string{"spec.resources.limits[cpu]"}},
		{"JSON patch into a list", "application/json-patch+json", `[{"op":"add","path":"/spec/routing/requestTimeout","value":"1 minute"}]`,
			[]string{"spec.routing.requestTimeout"}},
		{"a string for an integer", "application/json", `{"spec":{"replicas":"three"}}`, []string{"spec.replicas"}},
		{"a fraction for an integer", "application/json", `{"spec":{"replicas":1.5}}`, []string{"spec.replicas"}},
		{"an integer beyond int32", "application/json", `{"spec":{"replicas":2147483648}}`, []string{"spec.replicas"}},
		{"an object for a list", "application/json", `{"spec":{"env":{"name":"A"}}}`, []string{"spec.env"}},
		{"a number for a string in a list", "application/yaml", "spec:\n  env: [{name: 1}]\n", []string{"spec.env[0].name"}},
		{"a string for a boolean", "application/json", `{"spec":{"routing":{"enabled":"yes"}}}`, []string{"spec.routing.enabled"}},
		{"a list for an object", "application/json", `{"spec":{"model":["a"]}}`, []string{"spec.model"}},
		{"every field, in order", "application/json", `{"spec":{"routing":{"enabled":"yes"},"replicas":"two","env":[{"name":1}]}}`,
			[]string{"spec.env[0].name", "spec.replicas", "spec.routing.enabled"}},
		{"metadata is the handlers'", "application/json", `{"metadata":{"labels":{"a":1}},"kind":1}`, nil},
		{"unknown fields are not ours to judge", "application/json", `{"spec":{"nope":{"size":"x"}}}`, nil},
		{"malformed bodies are left to the handlers", "application/json", `{"spec":`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fields(c.check([]byte(tc.body), tc.contentType, serviceType))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWrongTypeIsSaidAsACRDSaysIt: the message kubectl prints is the one aim-engine's CRD gives.
func TestWrongTypeIsSaidAsACRDSaysIt(t *testing.T) {
	errs := (&Checker{}).check([]byte(`{"spec":{"replicas":"three"}}`), "application/json", serviceType)
	want := `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("errors %v, want %s", errs, want)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add(`{"spec":{"resources":{"limits":{"cpu":"2"}}}}`, "application/json")
	f.Add(`[{"op":"add","path":"/spec/env/-","value":{"name":"X"}}]`, "application/json-patch+json")
	f.Add("spec: {routing: {requestTimeout: 1s}}", "application/yaml")
	c := &Checker{}
	f.Fuzz(func(t *testing.T, body, contentType string) {
		for _, e := range c.check([]byte(body), contentType, serviceType) {
			if e.Field == "" {
				t.Fatalf("an error without a field: %v", e)
			}
		}
	})
}
