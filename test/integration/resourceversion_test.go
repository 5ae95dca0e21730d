package integration

import (
	"net/http"
	"strings"
	"testing"
)

// TestUnreadableResourceVersionsAreClientErrors: a resourceVersion the storage cannot read is the client's
// error, where kube-apiserver answers 500 (compatibility.md, row "A resourceVersion the server cannot read"): a
// get or watch from one is a 400 as a list is, an object that carries one a 422 naming metadata.resourceVersion,
// and so is a create (a dry run too) that sets one the storage can read. The valid twins succeed.
func TestUnreadableResourceVersionsAreClientErrors(t *testing.T) {
	ns := namespace(t)
	services := strings.TrimSuffix(shared.Config.Host, "/") + "/apis/aim.eai.amd.com/v1alpha1/namespaces/" + ns + "/aimservices"
	service := func(name, rv string) string {
		return `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"` + name + `","resourceVersion":"` + rv +
			`"},"spec":{"model":{"name":"qwen"}}}`
	}
	if code, _, body := rawRequest(t, http.MethodPost, services, "application/json", service("rv", "")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	for _, tc := range []struct {
		name, method, url, body string
		code                    int
		want                    string // in the message
		field                   string // the cause's field, for a 422
	}{
		{"get", http.MethodGet, services + "/rv?resourceVersion=abc", "", 400, "invalid resource version", ""},
		{"get of the status", http.MethodGet, services + "/rv/status?resourceVersion=-1", "", 400, "invalid resource version", ""},
		{"watch", http.MethodGet, services + "?watch=1&resourceVersion=abc&timeoutSeconds=1", "", 400, "invalid resource version", ""},
		{"list, as before", http.MethodGet, services + "?resourceVersion=abc", "", 400, "invalid resource version", ""},
		{"update", http.MethodPut, services + "/rv", service("rv", "abc"), 422, "must be a resourceVersion the server returned", "metadata.resourceVersion"},
		{"update of the status", http.MethodPut, services + "/rv/status", service("rv", "-1"), 422, "must be a resourceVersion the server returned", "metadata.resourceVersion"},
		{"merge patch", http.MethodPatch, services + "/rv", `{"metadata":{"resourceVersion":"abc"}}`, 422, "must be a resourceVersion", "metadata.resourceVersion"},
		{"create with one", http.MethodPost, services, service("rv-create", "5"), 422, "should not be set on objects to be created", "metadata.resourceVersion"},
		{"dry-run create with one", http.MethodPost, services + "?dryRun=All", service("rv-create", "5"), 422, "should not be set on objects to be created", "metadata.resourceVersion"},
		// One the storage cannot read is cleared, as kube-apiserver clears it.
		{"create with one that does not parse", http.MethodPost, services, service("rv-cleared", "abc"), 201, "", ""},
		// Twins that succeed.
		{"get from the cache", http.MethodGet, services + "/rv?resourceVersion=0", "", 200, "", ""},
		{"watch from now", http.MethodGet, services + "?watch=1&resourceVersion=0&timeoutSeconds=1", "", 200, "", ""},
		{"merge patch without one", http.MethodPatch, services + "/rv", `{"metadata":{"labels":{"a":"b"}}}`, 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			contentType := "application/json"
			if tc.method == http.MethodPatch {
				contentType = "application/merge-patch+json"
			}
			code, status, body := rawRequest(t, tc.method, tc.url, contentType, tc.body)
			if code != tc.code || !strings.Contains(status.Message, tc.want) {
				t.Fatalf("%d, want %d with %q: %s", code, tc.code, tc.want, body)
			}
			if tc.field != "" && (status.Details == nil || len(status.Details.Causes) != 1 || status.Details.Causes[0].Field != tc.field) {
				t.Errorf("causes %+v, want the field %s", status.Details, tc.field)
			}
		})
	}
}
