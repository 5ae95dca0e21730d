package integration

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// TestUnparsableFormatsNameTheField: a quantity, a date-time or a duration that does not parse is a 422
// whose causes name the field, as a CRD's schema reports it, on create, update, every patch type and the
// status subresource; the valid twin of each request succeeds.
func TestUnparsableFormatsNameTheField(t *testing.T) {
	ns := namespace(t)
	api := strings.TrimSuffix(shared.Config.Host, "/") + "/apis/aim.eai.amd.com/v1alpha1"
	model := func(name, size string) string {
		return fmt.Sprintf(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMModel","metadata":{"name":%q},`+
			`"spec":{"image":"registry.example/aim/x:1","modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m","size":%s}],`+
			`"custom":{"hardware":{"cpu":{"requests":"2"}}}}}`, name, size)
	}
	source := func(name, interval string) string {
		return fmt.Sprintf(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterModelSource","metadata":{"name":%q},`+
			`"spec":{"filters":[{"image":"amd/aim-*"}],"syncInterval":%q}}`, name, interval)
	}
	models := api + "/namespaces/" + ns + "/aimmodels"
	sources := api + "/aimclustermodelsources"
	t.Cleanup(func() {
		_, _, _ = rawRequest(t, http.MethodDelete, sources+"/formats-ok", "application/json", "")
	})

	cases := []struct {
		name, method, url, contentType, body, field string
	}{
		{"quantity on create", http.MethodPost, models, "application/json", model("bad-size", `"12xyz"`), "spec.modelSources[0].size"},
		{"quantity as YAML", http.MethodPost, models, "application/yaml",
			"apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMModel\nmetadata: {name: yaml-size}\nspec:\n  image: x:1\n  custom: {hardware: {cpu: {requests: 2 cores}}}\n",
			"spec.custom.hardware.cpu.requests"},
		{"duration on create", http.MethodPost, sources, "application/json", source("bad-interval", "often"), "spec.syncInterval"},
		{"quantity in a merge patch", http.MethodPatch, models + "/ok", "application/merge-patch+json",
			`{"spec":{"modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m","size":"lots"}]}}`, "spec.modelSources[0].size"},
		{"quantity in a JSON patch", http.MethodPatch, models + "/ok", "application/json-patch+json",
			`[{"op":"replace","path":"/spec/modelSources/0/size","value":"1.2.3Gi"}]`, "spec.modelSources[0].size"},
		{"quantity in an apply patch", http.MethodPatch, models + "/ok?fieldManager=t&force=true", "application/apply-patch+yaml",
			"apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMModel\nmetadata: {name: ok}\nspec:\n  image: registry.example/aim/x:1\n  custom: {hardware: {cpu: {requests: \"2\", limits: many}}}\n",
			"spec.custom.hardware.cpu.limits"},
		{"date-time on the status subresource", http.MethodPatch, sources + "/formats-ok/status", "application/merge-patch+json",
			`{"status":{"lastSyncTime":"yesterday"}}`, "status.lastSyncTime"},
	}
	// The objects the updates apply to, created by the valid twins.
	if code, _, body := rawRequest(t, http.MethodPost, models, "application/json", model("ok", `"20Gi"`)); code != http.StatusCreated {
		t.Fatalf("valid model: %d %s", code, body)
	}
	if code, _, body := rawRequest(t, http.MethodPost, sources, "application/json", source("formats-ok", "2h")); code != http.StatusCreated {
		t.Fatalf("valid model source: %d %s", code, body)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, status, body := rawRequest(t, tc.method, tc.url, tc.contentType, tc.body)
			if code != http.StatusUnprocessableEntity || status.Reason != metav1.StatusReasonInvalid {
				t.Fatalf("code %d, want 422 Invalid: %s", code, body)
			}
			if status.Details == nil || len(status.Details.Causes) == 0 || status.Details.Causes[0].Field != tc.field {
				t.Fatalf("causes %+v, want the field %s: %s", status.Details, tc.field, body)
			}
		})
	}
	// Valid twins of the updates.
	for _, tc := range []struct{ method, url, contentType, body string }{
		{http.MethodPatch, models + "/ok", "application/merge-patch+json", `{"spec":{"modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m","size":"30Gi"}]}}`},
		{http.MethodPatch, models + "/ok", "application/json-patch+json", `[{"op":"replace","path":"/spec/modelSources/0/size","value":"1.5Gi"}]`},
		{http.MethodPatch, sources + "/formats-ok/status", "application/merge-patch+json", `{"status":{"lastSyncTime":"2026-01-02T15:04:05Z"}}`},
		{http.MethodPost, sources, "application/json", source("formats-ok-2", "90m")},
	} {
		if code, _, body := rawRequest(t, tc.method, tc.url, tc.contentType, tc.body); code >= 300 {
			t.Errorf("%s %s: %d %s", tc.method, tc.url, code, body)
		}
	}
	_, _, _ = rawRequest(t, http.MethodDelete, sources+"/formats-ok-2", "application/json", "")
}

// TestApplyThatDoesNotFitTheSchemaIsBadRequest: a server-side apply that the field manager cannot read through the
// published schema is a 400 naming the field (kube-apiserver answers 500; compatibility.md, row "Server-side
// apply of a field the schema does not declare"), and its valid twin is stored; a strict create is a 400 too.
func TestApplyThatDoesNotFitTheSchemaIsBadRequest(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	services := shared.Client.AimV1alpha1().AIMServices(ns)
	apply := func(name, spec string) error {
		manifest := fmt.Sprintf(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":%q},"spec":%s}`, name, spec)
		_, err := services.Patch(c, name, types.ApplyPatchType, []byte(manifest), metav1.PatchOptions{FieldManager: "gitops"})
		return err
	}
	for _, tc := range []struct{ name, spec, message string }{
		{"unknown field", `{"model":{"ref":"qwen"}}`, ".spec.model.ref: field not declared in schema"},
		{"wrong type", `{"model":{"name":"qwen"},"replicas":"three"}`, ".spec.replicas: expected numeric"},
		{"duplicate key of a map list", `{"model":{"name":"qwen"},"env":[{"name":"A","value":"1"},{"name":"A","value":"2"}]}`, "duplicate entries for key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := apply("bad-apply", tc.spec); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("want 400 naming %q, got %v", tc.message, err)
			}
		})
	}
	if err := apply("good-apply", `{"model":{"name":"qwen"},"replicas":3,"env":[{"name":"A","value":"1"}]}`); err != nil {
		t.Errorf("the valid apply: %v", err)
	}
	// A create refuses an unknown field where the client asks for strict validation (kubectl's default).
	strict := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "strict"}}
	body := []byte(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"strict"},"spec":{"model":{"ref":"qwen"}}}`)
	err := shared.Client.AimV1alpha1().RESTClient().Post().Namespace(ns).Resource("aimservices").Param("fieldValidation", "Strict").
		Body(body).SetHeader("Content-Type", "application/json").Do(c).Into(strict)
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "spec.model.ref"`) {
		t.Errorf("a strict create of an unknown field: want 400 strict decoding error, got %v", err)
	}
}
