//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// engineChart is a stand-in for aim-engine's Helm chart: it holds a cluster model source and a runtime config,
// as aim-engine's chart can, and one of its user roles, as it does by default.
const engineChart = `apiVersion: v2
name: aim-engine
version: 0.2.0
`

const engineChartObjects = `apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModelSource
metadata:
  name: {{ .Values.source }}
  labels: {e2e-migrate-release: "{{ .Values.run }}"}
spec: {registry: "127.0.0.1:1", filters: [{image: "amd/aim-*"}], syncInterval: 24h}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMRuntimeConfig
metadata:
  name: engine-defaults
spec: {storage: {defaultStorageClassName: standard}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aim-engine-aimservice-viewer-role
rules:
  - apiGroups: [aim.eai.amd.com]
    resources: [aimservices]
    verbs: [get, list, watch]
  - apiGroups: [aim.eai.amd.com]
    resources: [aimservices/status]
    verbs: [get]
`

// engineRole is the user role of engineChartObjects. The harness has it already (artifacts/deploy installs
// aim-engine's user roles): the stand-in release takes it over, as aim-engine's release holds it in a cluster
// where aim-apiserver was applied with kustomize.
const engineRole = "aim-engine-aimservice-viewer-role"

// The server's encryption at rest for the AIM group: secretbox first (what is written), identity second (what
// the harness wrote before stays readable).
const aimEncryptionConfig = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["*.aim.eai.amd.com"]
    providers:
      - secretbox:
          keys:
            - name: e2e
              secret: MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=
      - identity: {}
`

// TestMigrationKeepsHelmOwnedObjectsEncrypted: aim-engine's Helm release holds an AIMClusterModelSource, which
// created a cluster model (owned by it). aim-apiserver runs with encryption at rest. The migration, given the
// server's encryption configuration, marks the release's objects helm.sh/resource-policy: keep in the release
// record and writes every object encrypted; `helm uninstall` of the old release then keeps the source, and the
// garbage collector keeps the model it owns. The release's user role of aim-engine stays too, for the
// RoleBindings that name it.
func TestMigrationKeepsHelmOwnedObjectsEncrypted(t *testing.T) {
	k := admin(t)
	h := harness(t)
	ns := namespace(t, "e2e-migrate-helm")
	run := strings.TrimPrefix(ns, "e2e-migrate-helm-")
	source, model := "helm-source-"+run, "helm-model-"+run
	backup := t.TempDir()

	// aim-apiserver with encryption at rest, as the migration's target. Cleanups run in reverse: the objects
	// written encrypted go before the server restarts without the key.
	encryption := filepath.Join(t.TempDir(), "encryption.yaml")
	must(t, os.WriteFile(encryption, []byte(aimEncryptionConfig), 0o600))
	plainArgs := h.Args
	restartWith := func(args []string) {
		h.stop(t)
		h.Args = args
		h.restart(t)
	}
	restartWith(append(append([]string(nil), plainArgs...), "--encryption-provider-config", encryption))
	t.Cleanup(func() { restartWith(plainArgs) })
	t.Cleanup(func() {
		for _, obj := range []string{"aimclustermodel/" + model, "aimclustermodelsource/" + source} {
			_, _ = k.run("", "delete", obj, "--ignore-not-found", "--timeout=30s")
		}
		_, _ = k.run("", "delete", "aimruntimeconfig", "engine-defaults", "-n", ns, "--ignore-not-found", "--timeout=30s")
	})

	installEngine(t)
	t.Cleanup(func() {
		_, _ = k.run("", "delete", "validatingadmissionpolicybinding,validatingadmissionpolicy", "aim-migration-freeze", "--ignore-not-found")
	})
	chart := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(chart, "templates"), 0o755))
	must(t, os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte(engineChart), 0o644))
	must(t, os.WriteFile(filepath.Join(chart, "templates", "objects.yaml"), []byte(engineChartObjects), 0o644))
	t.Cleanup(func() {
		// The role is the harness's again: without the stand-in release's marks.
		_, _ = k.run("", "annotate", "clusterrole", engineRole, "meta.helm.sh/release-name-", "meta.helm.sh/release-namespace-")
		_, _ = k.run("", "label", "clusterrole", engineRole, "app.kubernetes.io/managed-by-")
	})
	mustHelm(t, "install", "aim-engine", chart, "-n", ns, "--set", "source="+source, "--set", "run="+run, "--take-ownership")
	sourceUID := k.must("get", "aimclustermodelsource", source, "-o", "jsonpath={.metadata.uid}")
	// The model the source created, as aim-engine's controller would: owned by the source.
	k.mustApply(fmt.Sprintf(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterModel","metadata":{"name":%q,
"labels":{"aim.eai.amd.com/cluster-model-source.name":%q},
"ownerReferences":[{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterModelSource","name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]},
"spec":{"image":"127.0.0.1:1/amd/aim-x:1.0","imageMetadata":{"model":{"canonicalName":"Org/X"}}}}`, model, source, source, sourceUID))
	modelUID := k.must("get", "aimclustermodel", model, "-o", "jsonpath={.metadata.uid}")

	args := append(migrateArgs(t, backup), "--encryption-provider-config", encryption, "--allow-invalid")
	out, err := runMigrate(t, args)
	must(t, err)
	contains(t, "migration", out, fmt.Sprintf("Helm release %s/aim-engine (revision 1): marked", ns),
		"AIMClusterModelSource//"+source, "AIMRuntimeConfig/"+ns+"/engine-defaults", "ClusterRole//"+engineRole, "done:")

	// Stored encrypted, served in the clear.
	etcd := h.etcd(t)
	for _, key := range []string{"aimclustermodelsources/" + source, "aimclustermodels/" + model, "aimruntimeconfigs/" + ns + "/engine-defaults"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		resp, err := etcd.Get(ctx, "/registry/aim.eai.amd.com/aim.eai.amd.com/"+key)
		cancel()
		must(t, err)
		if len(resp.Kvs) != 1 || !strings.HasPrefix(string(resp.Kvs[0].Value), "k8s:enc:secretbox:v1:e2e:") {
			t.Errorf("%s is not stored encrypted: %q", key, resp.Kvs)
		}
	}
	jsonpathEquals(t, 10*time.Second, sourceUID+" keep", "aimclustermodelsource", source, "-o",
		`jsonpath={.metadata.uid} {.metadata.annotations.helm\.sh/resource-policy}`)

	// The old release goes, as a cleanup of aim-engine would: the source stays, and so does the model it owns.
	contains(t, "helm uninstall", mustHelm(t, "uninstall", "aim-engine", "-n", ns), "These resources were kept due to the resource policy",
		"[AIMClusterModelSource] "+source, "[ClusterRole] "+engineRole)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		got := k.must("get", "aimclustermodelsource/"+source, "aimclustermodel/"+model, "-o", "jsonpath={.items[*].metadata.uid}")
		if got != sourceUID+" "+modelUID {
			t.Fatalf("after helm uninstall: %q, want the source and its model with their UIDs", got)
		}
		time.Sleep(time.Second)
	}
	k.must("get", "aimruntimeconfig", "engine-defaults", "-n", ns)
}
