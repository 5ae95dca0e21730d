package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/test/framework"
)

// TestRestartKeepsObjects stops local mode and starts it again on the same data directory.
func TestRestartKeepsObjects(t *testing.T) {
	dir := t.TempDir()
	first := framework.StartLocal(t, dir)
	c := ctx(t)
	svc, err := first.Client.AimV1alpha1().AIMServices("team").Create(c, newService("team", "persisted"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.Status = aimv1.AIMStatusRunning
	if _, err := first.Client.AimV1alpha1().AIMServices("team").UpdateStatus(c, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	model := &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "persisted"}, Spec: aimv1.AIMModelSpec{Image: "repo/img:1"}}
	if _, err := first.Client.AimV1alpha1().AIMClusterModels().Create(c, model, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	first.Stop()

	second := framework.StartLocal(t, dir)
	got, err := second.Client.AimV1alpha1().AIMServices("team").Get(c, "persisted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("service lost across restart: %v", err)
	}
	if got.UID != svc.UID || got.Status.Status != aimv1.AIMStatusRunning {
		t.Errorf("service changed across restart: uid %s status %q", got.UID, got.Status.Status)
	}
	if _, err := second.Client.AimV1alpha1().AIMClusterModels().Get(c, "persisted", metav1.GetOptions{}); err != nil {
		t.Errorf("cluster model lost across restart: %v", err)
	}
}

// TestOpenAPI checks both OpenAPI versions are served with the group-version-kind extension kubectl explain
// and server-side apply rely on, and with the field documentation.
func TestOpenAPI(t *testing.T) {
	client := shared.RawClient(t)
	get := func(path string) map[string]any {
		resp, err := client.Get(strings.TrimSuffix(shared.Config.Host, "/") + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		var doc map[string]any
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return doc
	}
	v3 := get("/openapi/v3/apis/aim.eai.amd.com/v1alpha1")
	schemas := v3["components"].(map[string]any)["schemas"].(map[string]any)
	var svc map[string]any
	for name, s := range schemas {
		if strings.HasSuffix(name, ".v1alpha1.AIMService") {
			svc = s.(map[string]any)
		}
	}
	if svc == nil {
		t.Fatal("no AIMService schema in OpenAPI v3")
	}
	if _, ok := svc["x-kubernetes-group-version-kind"]; !ok {
		t.Error("AIMService schema lacks x-kubernetes-group-version-kind")
	}
	if !strings.Contains(svc["description"].(string), "inference endpoint") {
		t.Errorf("AIMService description: %v", svc["description"])
	}
	v2 := get("/openapi/v2")
	defs := v2["definitions"].(map[string]any)
	found := false
	for name := range defs {
		found = found || strings.HasSuffix(name, ".v1alpha1.AIMClusterModelSource")
	}
	if !found {
		t.Error("OpenAPI v2 lacks AIMClusterModelSource")
	}
}
