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

// TestApplyThatDoesNotFitTheSchemaIsBadRequest: the handlers' 500 for an apply patch that the field manager cannot
// read through the schema becomes a 400 with its message; any other 500, and a 500 for another patch type, is
// passed on as the handlers wrote it.
func TestApplyThatDoesNotFitTheSchemaIsBadRequest(t *testing.T) {
	c, err := New(scheme.Scheme, v1alpha1.SchemeGroupVersion, map[string]string{"aimservices": "AIMService"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	notDeclared := "failed to create typed patch object (ns/chat; aim.eai.amd.com/v1alpha1, Kind=AIMService): .spec.model.ref: field not declared in schema"
	for _, tc := range []struct {
		name, contentType, message string
		wantCode                   int
	}{
		{"apply", "application/apply-patch+yaml", notDeclared, http.StatusBadRequest},
		{"apply, another server error", "application/apply-patch+yaml", "etcdserver: request timed out", http.StatusInternalServerError},
		{"merge patch", "application/merge-patch+json", notDeclared, http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
					Status: metav1.StatusFailure, Message: tc.message, Code: http.StatusInternalServerError})
			})
			body := `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"chat"},"spec":{"model":{"ref":"m"}}}`
			r := httptest.NewRequest(http.MethodPatch, "/apis/aim.eai.amd.com/v1alpha1/namespaces/ns/aimservices/chat", strings.NewReader(body))
			r.Header.Set("Content-Type", tc.contentType)
			r = r.WithContext(request.WithRequestInfo(r.Context(), &request.RequestInfo{IsResourceRequest: true, Verb: "patch",
				APIGroup: "aim.eai.amd.com", APIVersion: "v1alpha1", Resource: "aimservices", Namespace: "ns", Name: "chat"}))
			w := httptest.NewRecorder()
			c.WithCheck(handler, scheme.Codecs).ServeHTTP(w, r)
			var status metav1.Status
			if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil || w.Code != tc.wantCode || status.Message != tc.message ||
				int(status.Code) != tc.wantCode {
				t.Errorf("code %d, want %d with the message %q: %s (%v)", w.Code, tc.wantCode, tc.message, w.Body, err)
			}
		})
	}
}
