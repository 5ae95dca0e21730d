package fieldformat

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/scheme"
)

// TestTheBodyIsCheckedOnlyWhenTheHandlersRefuseIt: an accepted request passes untouched (no second decode of
// its body); a refused one becomes a 422 naming the field when a field would not decode, and keeps the
// handlers' answer otherwise.
func TestTheBodyIsCheckedOnlyWhenTheHandlersRefuseIt(t *testing.T) {
	c, err := New(scheme.Scheme, v1alpha1.SchemeGroupVersion, map[string]string{"aimservices": "AIMService"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	badCPU := `{"metadata":{"name":"chat"},"spec":{"resources":{"limits":{"cpu":"two"}}}}`
	for _, tc := range []struct {
		name, body  string
		handlerCode int
		wantCode    int
		wantField   string
	}{
		{"accepted: not checked", badCPU, http.StatusCreated, http.StatusCreated, ""},
		{"refused for the field", badCPU, http.StatusBadRequest, http.StatusUnprocessableEntity, "spec.resources.limits[cpu]"},
		{"refused by a 500 for the field", badCPU, http.StatusInternalServerError, http.StatusUnprocessableEntity, "spec.resources.limits[cpu]"},
		{"refused for another reason", `{"metadata":{"name":"chat"}}`, http.StatusBadRequest, http.StatusBadRequest, ""},
		{"a conflict is no format problem", badCPU, http.StatusConflict, http.StatusConflict, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen string
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				seen = string(b)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.handlerCode)
				_, _ = w.Write([]byte(`{"from":"handler"}`))
			})
			r := httptest.NewRequest(http.MethodPost, "/apis/aim.eai.amd.com/v1alpha1/namespaces/ns/aimservices", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", "application/json")
			r = r.WithContext(request.WithRequestInfo(r.Context(), &request.RequestInfo{IsResourceRequest: true, Verb: "create",
				APIGroup: "aim.eai.amd.com", APIVersion: "v1alpha1", Resource: "aimservices", Namespace: "ns"}))
			w := httptest.NewRecorder()
			c.WithCheck(handler, scheme.Codecs).ServeHTTP(w, r)
			if seen != tc.body {
				t.Errorf("the handler read %q", seen)
			}
			if w.Code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", w.Code, tc.wantCode, w.Body)
			}
			if tc.wantField == "" {
				if w.Body.String() != `{"from":"handler"}` {
					t.Errorf("the handler's answer was changed: %s", w.Body)
				}
				return
			}
			var status metav1.Status
			if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil || status.Details == nil || len(status.Details.Causes) != 1 ||
				status.Details.Causes[0].Field != tc.wantField || status.Details.Name != "chat" {
				t.Errorf("422 %s: %v", w.Body, err)
			}
		})
	}
}
