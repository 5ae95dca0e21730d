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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
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
			dir := t.TempDir()

			again, err := c.ensureOpenAPI(context.Background(), 50*time.Millisecond, dir)
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
			if saved, path, _ := readPendingAPIService(dir); saved != nil {
				t.Errorf("%s is left after the APIService was created", path)
			}
		})
	}
}

// servedAPIService is aim-apiserver's APIService as kube-apiserver returns it.
func servedAPIService() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": apiServiceName, "uid": "uid-1", "resourceVersion": "7"},
		"spec": map[string]any{"group": "aim.eai.amd.com", "version": "v1alpha1", "groupPriorityMinimum": int64(1000),
			"versionPriority": int64(15), "service": map[string]any{"name": "aim-apiserver", "namespace": "aim-system", "port": int64(443)}},
	}}
}

// unservedOpenAPI is a kube-apiserver that serves no OpenAPI document for the group.
func unservedOpenAPI(t *testing.T) kubernetes.Interface {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return kube
}

// failCreates makes the first n creates of an APIService fail as a kube-apiserver under load does, and counts
// them all.
func failCreates(dyn *dynamicfake.FakeDynamicClient, n int) *int {
	creates := 0
	dyn.PrependReactor("create", "apiservices", func(clienttesting.Action) (bool, runtime.Object, error) {
		creates++
		if creates <= n {
			return true, nil, apierrors.NewServerTimeout(apiServiceGVR.GroupResource(), "create", 1)
		}
		return false, nil, nil
	})
	return &creates
}

// TestRegisterAnewSurvivesFailedCreates: creating the APIService again after deleting it is retried while
// kube-apiserver answers with errors that pass; when it never succeeds, the APIService is saved in the backup
// directory and the error says how to create it, and the next run of migrate creates it from there. Before,
// one failed create left the group unserved, and the next run said there was nothing to migrate.
func TestRegisterAnewSurvivesFailedCreates(t *testing.T) {
	listKinds := map[schema.GroupVersionResource]string{apiServiceGVR: "APIServiceList", crdGVR: "CustomResourceDefinitionList"}

	t.Run("two failed creates", func(t *testing.T) {
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, servedAPIService())
		creates := failCreates(dyn, 2)
		c := &cluster{kube: unservedOpenAPI(t), dynamic: dyn}
		again, err := c.ensureOpenAPI(context.Background(), 100*time.Millisecond, t.TempDir())
		if err != nil || !again || *creates != 3 {
			t.Fatalf("registered anew %v, err %v after %d creates; want true, nil after 3", again, err, *creates)
		}
		if _, err := dyn.Resource(apiServiceGVR).Get(context.Background(), apiServiceName, metav1.GetOptions{}); err != nil {
			t.Fatalf("APIService after the retries: %v", err)
		}
	})

	t.Run("every create fails, then migrate runs again", func(t *testing.T) {
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, servedAPIService())
		creates := failCreates(dyn, 1000)
		c := &cluster{kube: unservedOpenAPI(t), dynamic: dyn}
		dir := t.TempDir()
		_, err := c.ensureOpenAPI(context.Background(), 100*time.Millisecond, dir)
		saved, path, _ := readPendingAPIService(dir)
		if err == nil || !strings.Contains(err.Error(), "kubectl create -f "+path) || *creates < 2 {
			t.Fatalf("after %d failed creates: err %v; want one naming kubectl create -f %s", *creates, err, path)
		}
		if saved == nil {
			t.Fatalf("nothing saved in %s", path)
		}
		if diff := cmp.Diff(servedAPIService().Object["spec"], saved.Object["spec"]); diff != "" {
			t.Errorf("saved spec (-served +saved):\n%s", diff)
		}

		// kube-apiserver recovers; the next run finds no APIService and no CRD.
		*creates = 1000 // failCreates lets the next ones through
		dyn.PrependReactor("create", "apiservices", func(a clienttesting.Action) (bool, runtime.Object, error) {
			obj := a.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured)
			_ = unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"type": "Available", "status": "True"}}, "status", "conditions")
			return false, nil, nil
		})
		var out strings.Builder
		o := NewOptions(&out)
		o.BackupDir, o.Timeout, o.DryRun = dir, 5*time.Second, true
		m := &migrator{o: o, c: &cluster{kube: kubefake.NewClientset(), dynamic: dyn}, now: time.Now}
		missing := func() bool {
			_, err := dyn.Resource(apiServiceGVR).Get(context.Background(), apiServiceName, metav1.GetOptions{})
			return err != nil
		}
		// A dry run says what it would do; a run that is not confirmed changes nothing.
		if err := m.migrate(context.Background()); err != nil || !missing() || !strings.Contains(out.String(), "would create it from "+path) {
			t.Fatalf("dry run: err %v, APIService created %v; it says:\n%s", err, !missing(), out.String())
		}
		o.DryRun = false
		if err := m.migrate(context.Background()); err == nil || !missing() {
			t.Fatalf("a run without --yes and without a terminal: err %v, APIService created %v", err, !missing())
		}
		o.Yes = true
		out.Reset()
		if err := m.migrate(context.Background()); err != nil {
			t.Fatalf("second run: %v\n%s", err, out.String())
		}
		got, err := dyn.Resource(apiServiceGVR).Get(context.Background(), apiServiceName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("APIService after the second run: %v\n%s", err, out.String())
		}
		if diff := cmp.Diff(servedAPIService().Object["spec"], got.Object["spec"]); diff != "" {
			t.Errorf("spec (-served +created):\n%s", diff)
		}
		if !strings.Contains(out.String(), "created APIService "+apiServiceName+" from "+path) || !strings.Contains(out.String(), "done already") {
			t.Errorf("the second run says:\n%s", out.String())
		}
		if saved, _, _ := readPendingAPIService(dir); saved != nil {
			t.Errorf("%s is left after the second run created the APIService", path)
		}

		// A copy left while someone else created the APIService (a Helm upgrade) is removed by the next run.
		if _, err := savePendingAPIService(dir, servedAPIService()); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := m.migrate(context.Background()); err != nil {
			t.Fatalf("third run: %v\n%s", err, out.String())
		}
		if saved, _, _ := readPendingAPIService(dir); saved != nil || !strings.Contains(out.String(), "exists again") {
			t.Errorf("a copy beside an existing APIService: left %v; the run says:\n%s", saved != nil, out.String())
		}
	})
}
