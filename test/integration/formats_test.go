package integration

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
