package migrate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const engineManifest = `
---
# Source: aim-engine/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: aim-engine-controller-manager
  namespace: aim-system
spec:
  replicas: 1
---
# Source: aim-engine/templates/modelsource.yaml
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModelSource
metadata:
  name: amd-models
  labels:
    app.kubernetes.io/managed-by: Helm
spec:
  registry: docker.io
  filters:
    - image: amdenterpriseai/aim-*
---
# Source: aim-engine/templates/runtimeconfig.yaml
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMRuntimeConfig
metadata:
  name: default
  annotations:
    helm.sh/resource-policy: keep
spec: {}
---
# Source: aim-engine/templates/rbac/aimservice-editor-role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
    labels:
        app.kubernetes.io/managed-by: Helm
        app.kubernetes.io/name: aim-engine
    name: aim-engine-aimservice-editor-role
rules:
    - apiGroups:
        - aim.eai.amd.com
      resources:
        - aimservices
      verbs:
        - create
---
# Source: aim-engine/templates/rbac/manager-role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aim-engine-manager-role
rules:
  - apiGroups: [aim.eai.amd.com]
    resources: [aimservices]
    verbs: ["*"]
`

// keepInManifest marks the AIM documents and aim-engine's user roles that lack the annotation, keeps Helm's
// "# Source:" comments (which name the documents) and leaves every other document byte for byte: the controller's
// own ClusterRole goes with aim-engine.
func TestKeepInManifest(t *testing.T) {
	kept, changed, err := keepInManifest(engineManifest)
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	docs, before := manifestDocs(kept), manifestDocs(engineManifest)
	if len(docs) != len(before) {
		t.Fatalf("%d documents, was %d", len(docs), len(before))
	}
	if docs[1] != before[1] || docs[3] != before[3] || docs[5] != before[5] {
		t.Errorf("documents other than the unmarked AIM one changed:\n%s", kept)
	}
	if !strings.HasPrefix(docs[2], "\n# Source: aim-engine/templates/modelsource.yaml\n") {
		t.Errorf("the Source comment is gone:\n%q", docs[2])
	}
	u, ok := heldDoc(docs[2])
	if !ok || u.GetAnnotations()[helmKeepAnnotation] != helmKeep || u.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" {
		t.Errorf("the model source is not marked, or lost its labels:\n%s", docs[2])
	}
	role, ok := heldDoc(docs[4])
	if !ok || role.GetAnnotations()[helmKeepAnnotation] != helmKeep || role.GetLabels()["app.kubernetes.io/name"] != "aim-engine" {
		t.Errorf("the user role is not marked, or lost its labels:\n%s", docs[4])
	}
	if again, changed, _ := keepInManifest(kept); changed || again != kept {
		t.Error("marking a marked manifest changed it")
	}

	got := heldObjectsOf(kept, "helm-ns", map[string]any{"namespace": "aim-system"}, func(kind string) bool { return kind == "AIMRuntimeConfig" })
	want := []string{"AIMClusterModelSource//amd-models", "AIMRuntimeConfig/aim-system/default", "ClusterRole//aim-engine-aimservice-editor-role"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects of the manifest (-want +got):\n%s", diff)
	}
}

// Helm's storage format survives a round trip, and so does every field of the record other than the manifest.
func TestHelmReleaseEncoding(t *testing.T) {
	rel := map[string]any{"name": "aim-engine", "version": float64(3), "namespace": "aim-system", "manifest": engineManifest,
		"info": map[string]any{"status": "deployed"}, "config": map[string]any{"replicas": float64(1)}}
	data, err := encodeHelmRelease(rel)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeHelmRelease(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rel, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := decodeHelmRelease([]byte("not base64!")); err == nil {
		t.Error("a record that is not base64 decoded")
	}
}

// The user roles are aim-engine's: 27, named as its chart names them, none a ClusterRole of another name.
func TestEngineUserRoles(t *testing.T) {
	roles := EngineUserRoles()
	if len(roles) != 27 {
		t.Errorf("%d roles, aim-engine's chart has 27", len(roles))
	}
	if r := roles[len(roles)-1]; r != (EngineUserRole{Name: "aim-engine-aimtemplatecache-viewer-role", Resource: "aimtemplatecaches", Role: "viewer"}) {
		t.Errorf("last role %+v", r)
	}
	for _, c := range []struct {
		apiVersion, kind, name string
		want                   bool
	}{
		{"rbac.authorization.k8s.io/v1", "ClusterRole", "aim-engine-aimmodel-admin-role", true},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", "aim-engine-aimclustermodelsource-admin-role", false},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", "aim-engine-artifact-status-updater", false},
		{"rbac.authorization.k8s.io/v1", "Role", "aim-engine-aimmodel-admin-role", false},
	} {
		if got := isEngineUserRole(c.apiVersion, c.kind, c.name); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.kind, c.name, got, c.want)
		}
	}
}
