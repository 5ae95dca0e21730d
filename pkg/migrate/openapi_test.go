package migrate

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
)

// TestEnsureOpenAPI: when kube-apiserver serves aim-apiserver's OpenAPI document for the group, migrate leaves the
// APIService alone; when it serves none, or the CRDs' (another title), migrate deletes the APIService, with its
// UID as precondition, and creates it again with the same spec, labels and annotations.
func TestEnsureOpenAPI(t *testing.T) {
	for _, tc := range []struct {
		name  string
		title string // of the document served; "" for none (404)
		again bool
	}{
		{"aim-apiserver's document", apiserver.OpenAPITitle, false},
		{"the CRDs' document", "Kubernetes CRD Swagger", true},
		{"no document", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != openAPIPath || tc.title == "" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"openapi":"3.0.0","info":{"title":%q,"version":"v1alpha1"},"paths":{}}`, tc.title)
			}))
			t.Cleanup(srv.Close)
			kube, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			as := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
				"metadata": map[string]any{"name": apiServiceName, "uid": "uid-1", "resourceVersion": "7",
					"labels": map[string]any{"app.kubernetes.io/managed-by": "Helm"}, "annotations": map[string]any{"meta.helm.sh/release-name": "aim"}},
				"spec": map[string]any{"group": "aim.eai.amd.com", "version": "v1alpha1", "groupPriorityMinimum": int64(1000),
					"versionPriority": int64(100), "service": map[string]any{"name": "aim-apiserver", "namespace": "aim-system", "port": int64(443)}},
				"status": map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "True"}}},
			}}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{apiServiceGVR: "APIServiceList"}, as.DeepCopy())
			c := &cluster{kube: kube, dynamic: dyn}

			again, err := c.ensureOpenAPI(context.Background(), 50*time.Millisecond)
			if err != nil || again != tc.again {
				t.Fatalf("registered anew %v (want %v), err %v", again, tc.again, err)
			}
			var verbs []string
			for _, a := range dyn.Actions() {
				verbs = append(verbs, a.GetVerb())
				if d, ok := a.(clienttesting.DeleteAction); ok {
					if uid := d.GetDeleteOptions().Preconditions; uid == nil || uid.UID == nil || *uid.UID != "uid-1" {
						t.Errorf("delete without the APIService's UID as precondition: %+v", d.GetDeleteOptions())
					}
				}
			}
			var want []string
			if tc.again {
				want = []string{"get", "delete", "create"}
			}
			if !slices.Equal(verbs, want) {
				t.Fatalf("APIService calls %v, want %v", verbs, want)
			}
			got, err := dyn.Resource(apiServiceGVR).Get(context.Background(), apiServiceName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, field := range []string{"spec", "metadata.labels", "metadata.annotations"} {
				path := strings.Split(field, ".")
				w, _, _ := unstructured.NestedFieldNoCopy(as.Object, path...)
				g, _, _ := unstructured.NestedFieldNoCopy(got.Object, path...)
				if diff := cmp.Diff(w, g); diff != "" {
					t.Errorf("%s of the APIService (-before +after):\n%s", field, diff)
				}
			}
			if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "status"); found == tc.again {
				t.Errorf("status kept %v; a created APIService starts without one", found)
			}
		})
	}
}
