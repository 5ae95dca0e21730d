//go:build e2e

package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/diff"
)

var (
	helmBin  = filepath.Join(root, "_output", "bin", "helm")
	chartDir = filepath.Join(root, "artifacts", "charts", "aim-apiserver")
	// The loopback overlay of artifacts/deploy that hack/local-up.sh applied.
	overlayDir = filepath.Join(localDir, "deploy-overlay")
)

const apiService = "v1alpha1.aim.eai.amd.com"

// chartModelSource is the name of the chart's clusterModelSource.
const chartModelSource = "amd-aim-model-source"

// helm runs the pinned helm against the harness as admin, with its cache, config and data in a temp dir.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helmBin, append([]string{"--kubeconfig", adminKC}, args...)...)
	dir := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(dir, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(dir, "config"), "HELM_DATA_HOME="+filepath.Join(dir, "data"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustHelm(t *testing.T, args ...string) string {
	t.Helper()
	out, err := helm(t, args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// The chart's manifests pass the real API server's validation, aim-apiserver's for the default
// AIMClusterRuntimeConfig included: with the defaults (generated certificates, the bundled etcd), and with an
// external etcd and existing Secrets.
func TestChartServerDryRun(t *testing.T) {
	k := admin(t)
	for name, args := range map[string][]string{
		"defaults": {"--set", "createNamespace=true", "--set", "defaultRuntimeConfig.enabled=true", "--set", "clusterModelSource.enabled=true",
			"--set", "defaultRuntimeConfig.spec.discovery.maxConcurrentJobs=5",
			"--set", "defaultRuntimeConfig.spec.storage.pvcHeadroomPercent=15"},
		"external etcd, existing secrets": {"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://etcd.example:2379}",
			"--set", "etcd.external.clientSecret=my-etcd-client", "--set", "servingCert.mode=existing",
			"--set", "servingCert.existingSecret=my-serving",
			"--set-file", "servingCert.caBundle=" + filepath.Join(localDir, "pki", "aim-apiserver-ca.crt")},
		// The values for real clusters, all at once: the API server validates every object they shape.
		"values for real clusters": {"--set-json", `extraEnv=[{"name":"GODEBUG","value":"http2client=0"}]`,
			"--set-json", `extraVolumes=[{"name":"scratch","emptyDir":{}}]`,
			"--set-json", `extraVolumeMounts=[{"name":"scratch","mountPath":"/scratch"}]`,
			"--set-json", `topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway"}]`,
			"--set-json", `podSecurityContext={"runAsUser":null,"runAsGroup":null,"fsGroup":null}`,
			"--set-json", `serviceAccount={"annotations":{"iam.gke.io/gcp-service-account":"aim@p.iam.gserviceaccount.com"}}`,
			"--set", "image.digest=sha256:" + strings.Repeat("a", 64), "--set", "global.imageRegistry=mirror.example",
			"--set", "extraCACertificates.configMap=corp-cas", "--set", "proxy.httpsProxy=http://proxy.example:3128",
			"--set", "proxy.noProxy=10.0.0.0/8", "--set", "hostNetwork=true", "--set", "flags.securePort=10250",
			"--set-json", `etcd.tolerations=[{"key":"infra","operator":"Exists"}]`, "--set", "etcd.priorityClassName=system-cluster-critical",
			"--set-json", `etcd.topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule"}]`},
	} {
		t.Run(name, func(t *testing.T) {
			manifests := mustHelm(t, append([]string{"template", "aim-apiserver", chartDir, "--namespace", "aim-system"}, args...)...)
			out, err := k.run(manifests, "apply", "--dry-run=server", "-f", "-")
			if err != nil {
				t.Fatalf("server dry run: %v\n%s", err, out)
			}
			contains(t, "dry run", out, "deployment.apps/aim-apiserver", "apiservice.apiregistration.k8s.io/"+apiService,
				"clusterrole.rbac.authorization.k8s.io/aim-view", "(server dry run)")
			if name == "defaults" {
				contains(t, "dry run", out, "statefulset.apps/aim-etcd", "networkpolicy.networking.k8s.io/aim-etcd",
					"role.rbac.authorization.k8s.io/aim-apiserver-serving-cert", "role.rbac.authorization.k8s.io/aim-apiserver-etcd-certs",
					"namespace/aim-system", "configmap/aim-apiserver-default-runtime-config", "configmap/aim-apiserver-cluster-model-source")
				if strings.Contains(out, "secret/") {
					t.Errorf("the default values render a Secret:\n%s", out)
				}
			} else if name == "external etcd, existing secrets" && strings.Contains(out, "aim-etcd") {
				t.Errorf("external etcd, yet the chart has etcd objects:\n%s", out)
			}
		})
	}
}

// The chart installed over the harness: Helm takes over the objects the loopback overlay applied, adds the ones
// the overlay leaves out (Deployment, PodDisruptionBudget, etcd; they stay inert, as no kubelet and no workload
// controllers run here), and the APIService it owns routes to aim-apiserver, still the process local-up started,
// through the overlay's loopback EndpointSlice. The serving certificate is the one aim-apiserver keeps itself (the
// chart's default mode self). So are etcd's: the Deployment's init container, run here as a process with the
// service account's token, creates the Secrets the StatefulSet mounts, and an upgrade leaves them and the pod
// templates alone. At the end the harness is exactly as before, for the tests that follow.
func TestChartInstallOverHarness(t *testing.T) {
	k := admin(t)
	if out, err := k.run("", "get", "aimclusterruntimeconfig", "default"); err == nil {
		t.Fatalf("an AIMClusterRuntimeConfig default exists already; this test creates and deletes one:\n%s", out)
	}
	if out, err := k.run("", "get", "aimclustermodelsource", chartModelSource); err == nil {
		t.Fatalf("an AIMClusterModelSource %s exists already; this test creates and deletes one:\n%s", chartModelSource, out)
	}
	overlay := k.must("kustomize", overlayDir)
	before := harnessState(t, overlay)

	// The harness's aim-apiserver manages its serving certificate, as the chart's default mode has it do.
	harnessCA := k.must("get", "secret", "-n", "aim-system", "aim-apiserver-serving-cert", "-o", "jsonpath={.data.ca\\.crt}")

	t.Cleanup(func() { restoreHarness(t, overlay, before) })

	// aim-engine's user roles are the overlay's (kubectl, no Helm release), which the chart leaves alone. As if an
	// earlier install of this release held one and aim-engine's release another: the chart renders the first
	// only, and keeps rendering it on upgrade (which would delete it otherwise). restoreHarness takes the marks off.
	ownRole, engineHeld, unowned := "aim-engine-aimmodel-viewer-role", "aim-engine-aimmodel-editor-role", "aim-engine-aimmodel-admin-role"
	for role, release := range map[string]string{ownRole: "aim-apiserver", engineHeld: "aim-engine"} {
		k.must("annotate", "clusterrole", role, "meta.helm.sh/release-name="+release, "meta.helm.sh/release-namespace=aim-system")
		k.must("label", "clusterrole", role, "app.kubernetes.io/managed-by=Helm")
	}
	engineRoles := func(when string) {
		manifest := mustHelm(t, "get", "manifest", "aim-apiserver", "--namespace", "aim-system")
		if !strings.Contains(manifest, "name: "+ownRole+"\n") || strings.Contains(manifest, "name: "+engineHeld+"\n") ||
			strings.Contains(manifest, "name: "+unowned+"\n") {
			t.Errorf("%s: the release should hold %s of aim-engine's user roles, and not %s and %s", when, ownRole, engineHeld, unowned)
		}
		owners := k.must("get", "clusterrole", ownRole, engineHeld, unowned, "-o",
			`jsonpath={range .items[*]}{.metadata.annotations.meta\.helm\.sh/release-name}/{.metadata.labels.app\.kubernetes\.io/instance}{" "}{end}`)
		// The chart's labels (instance) only where it rendered the role.
		if want := "aim-apiserver/aim-apiserver aim-engine/ / "; owners != want {
			t.Errorf("%s: release annotations/instance labels of the roles %q, want %q", when, owners, want)
		}
	}

	out := mustHelm(t, "install", "aim-apiserver", chartDir, "--namespace", "aim-system", "--take-ownership")
	contains(t, "helm install", out, "STATUS: deployed", "kubectl wait --for=condition=Available apiservice/"+apiService)
	engineRoles("helm install")

	// Helm owns the APIService now; the chart renders no caBundle, so the one aim-apiserver set stays, and the
	// APIService stays Available.
	owner := k.must("get", "apiservice", apiService, "-o",
		`jsonpath={.metadata.labels.app\.kubernetes\.io/managed-by} {.metadata.annotations.meta\.helm\.sh/release-name}`)
	if owner != "Helm aim-apiserver" {
		t.Errorf("APIService managed-by/release-name: %q", owner)
	}
	if ca := k.must("get", "apiservice", apiService, "-o", "jsonpath={.spec.caBundle}"); ca != harnessCA {
		t.Error("the APIService's caBundle is not ca.crt of the serving Secret")
	}
	k.must("wait", "--for=condition=Available", "--timeout=60s", "apiservice/"+apiService)
	k.must("get", "aim", "-A")
	// Writes go through it too.
	k.mustApply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterRuntimeConfig\nmetadata: {name: e2e-chart}\nspec: {}\n")
	k.must("delete", "aimclrc", "e2e-chart")

	// The chart's own objects exist.
	for _, obj := range []string{"deployment/aim-apiserver", "poddisruptionbudget/aim-apiserver", "statefulset/aim-etcd",
		"service/aim-etcd", "service/aim-etcd-client", "role/aim-apiserver-etcd-certs"} {
		k.must("get", "-n", "aim-system", obj)
	}

	// The init container, as its pod would run it: its args, POD_NAMESPACE, the service account's rights.
	etcdSecrets := []string{"aim-etcd-ca", "aim-etcd-server-tls", "aim-etcd-peer-tls", "aim-apiserver-etcd-client"}
	t.Cleanup(func() {
		_, _ = k.run("", append([]string{"delete", "secret", "-n", "aim-system", "--ignore-not-found"}, etcdSecrets...)...)
	})
	var initArgs []string
	must(t, json.Unmarshal([]byte(k.must("get", "deployment", "-n", "aim-system", "aim-apiserver", "-o",
		"jsonpath={.spec.template.spec.initContainers[0].args}")), &initArgs))
	if len(initArgs) < 2 || initArgs[0] != "etcd" || initArgs[1] != "certs" {
		t.Fatalf("init container args %v", initArgs)
	}
	clientDir := t.TempDir()
	initCmd := exec.Command(migrateBin, append(initArgs, "--kubeconfig", filepath.Join(localDir, "aim-apiserver.kubeconfig"),
		"--client-dir", clientDir)...)
	initCmd.Env = append(os.Environ(), "POD_NAMESPACE=aim-system")
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("the init container as the service account: %v\n%s", err, out)
	}
	etcdCerts := func() string {
		return k.must(append([]string{"get", "secret", "-n", "aim-system", "-o", "jsonpath={.items[*].data}"}, etcdSecrets...)...)
	}
	mounted := strings.Fields(k.must("get", "statefulset", "-n", "aim-system", "aim-etcd", "-o",
		"jsonpath={.spec.template.spec.volumes[*].secret.secretName}"))
	if len(mounted) != 2 {
		t.Errorf("the StatefulSet mounts Secrets %v", mounted)
	}
	for _, name := range mounted {
		k.must("get", "secret", "-n", "aim-system", name)
	}
	clientCert, err := os.ReadFile(filepath.Join(clientDir, "tls.crt"))
	must(t, err)
	if got := k.must("get", "secret", "-n", "aim-system", "aim-apiserver-etcd-client", "-o", "jsonpath={.data.tls\\.crt}"); got != base64.StdEncoding.EncodeToString(clientCert) {
		t.Error("the client certificate written for the server is not the client Secret's")
	}
	workloads := func() string {
		return k.must("get", "-n", "aim-system", "deployment/aim-apiserver", "statefulset/aim-etcd",
			"-o", "jsonpath={range .items[*]}{.metadata.generation} {.spec.template.metadata.annotations}{\"\\n\"}{end}")
	}
	certsBefore, workloadsBefore := etcdCerts(), workloads()

	// An upgrade leaves the certificates (not Helm's) and the pod templates alone, and its ConfigMaps make
	// aim-apiserver create the default AIMClusterRuntimeConfig and the AIMClusterModelSource (of a registry that
	// does not answer here).
	out = mustHelm(t, "upgrade", "aim-apiserver", chartDir, "--namespace", "aim-system", "--reuse-values",
		"--set", "defaultRuntimeConfig.enabled=true", "--set", "defaultRuntimeConfig.spec.discovery.maxConcurrentJobs=3",
		"--set", "clusterModelSource.enabled=true", "--set", "clusterModelSource.spec.registry=127.0.0.1:1")
	contains(t, "helm upgrade", out, "STATUS: deployed", "REVISION: 2")
	engineRoles("helm upgrade")
	if etcdCerts() != certsBefore {
		t.Error("helm upgrade generated new etcd certificates")
	}
	if got := workloads(); got != workloadsBefore {
		t.Errorf("helm upgrade changed the pod templates:\nbefore %s\nafter  %s", workloadsBefore, got)
	}
	jsonpathEquals(t, 30*time.Second, "3", "aimclusterruntimeconfig", "default", "-o", "jsonpath={.spec.discovery.maxConcurrentJobs}")
	// aim-engine's chart's spec, the registry set above.
	jsonpathEquals(t, 30*time.Second, "127.0.0.1:1 amdenterpriseai/aim-* >=0.8.4 500 1h", "aimclustermodelsource", chartModelSource, "-o",
		"jsonpath={.spec.registry} {.spec.filters[0].image} {.spec.filters[0].versions[0]} {.spec.maxModels} {.spec.syncInterval}")
	if values := mustHelm(t, "get", "values", "aim-apiserver", "--namespace", "aim-system", "--all"); strings.Contains(values, "aimGenerated") {
		t.Errorf("the generated certificates leaked into the release's values:\n%s", values)
	}
	k.must("wait", "--for=condition=Available", "--timeout=60s", "apiservice/"+apiService)
}

// harnessState reads every object of the loopback overlay as the API holds it, without what changes on its own
// (resourceVersion, generation, status, the times in managedFields). uid and creationTimestamp stay in: an object
// deleted and recreated is not "as before".
func harnessState(t *testing.T, overlay string) map[string]any {
	t.Helper()
	out, err := admin(t).run(overlay, "get", "-f", "-", "-o", "json", "--show-managed-fields")
	if err != nil {
		t.Fatalf("reading the harness objects: %v\n%s", err, out)
	}
	var list struct{ Items []map[string]any }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	state := map[string]any{}
	for _, o := range list.Items {
		meta := o["metadata"].(map[string]any)
		delete(meta, "resourceVersion")
		delete(meta, "generation")
		delete(o, "status")
		mf, _ := meta["managedFields"].([]any)
		for _, e := range mf {
			delete(e.(map[string]any), "time")
		}
		// kube-apiserver's own status writes (the APIService's conditions) are not the harness's doing.
		var kept []any
		for _, e := range mf {
			if e.(map[string]any)["subresource"] != "status" {
				kept = append(kept, e)
			}
		}
		meta["managedFields"] = kept
		state[objectKey(o)] = o
	}
	return state
}

// restoreHarness undoes the install without `helm uninstall`, which would delete what the harness runs on (the
// ServiceAccount whose token aim-apiserver uses, its RBAC, the APIService): it deletes Helm's release records and
// the objects only the chart created, puts every object Helm took over back as it was (replace with the state
// read before the install: Helm's labels, annotations and the Service selector go), re-applies the loopback
// overlay as local-up does, and checks that every object, field managers included, is as before.
func restoreHarness(t *testing.T, overlay string, before map[string]any) {
	k := admin(t)
	manifest, err := helm(t, "get", "manifest", "aim-apiserver", "--namespace", "aim-system")
	if err != nil {
		manifest = "" // the install failed before recording a release; only overlay objects can have changed
	}
	if out, err := k.run("", "delete", "secret", "-n", "aim-system", "-l", "owner=helm,name=aim-apiserver", "--ignore-not-found"); err != nil {
		t.Errorf("deleting the release records: %v\n%s", err, out)
	}
	// Objects the chart created: in the release's manifest but not in the overlay.
	if manifest != "" {
		out, err := k.run(manifest, "get", "-f", "-", "-o", "json", "--ignore-not-found")
		if err != nil {
			t.Errorf("reading the release's objects: %v\n%s", err, out)
		}
		var list struct{ Items []map[string]any }
		_ = json.Unmarshal([]byte(out), &list)
		var created []any
		for _, o := range list.Items {
			if before[objectKey(o)] == nil {
				created = append(created, o)
			}
		}
		if len(created) > 0 {
			data, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": created})
			if out, err := k.run(string(data), "delete", "-f", "-", "--ignore-not-found", "--wait=true"); err != nil {
				t.Errorf("deleting the chart's own objects: %v\n%s", err, out)
			}
		}
	}
	var items []any
	for _, o := range before {
		c := deepCopy(o)
		meta := c["metadata"].(map[string]any)
		delete(meta, "managedFields") // the server keeps them; the overlay apply below restores local-up's
		items = append(items, c)
	}
	data, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if out, err := k.run(string(data), "replace", "-f", "-"); err != nil {
		t.Errorf("putting the harness objects back: %v\n%s", err, out)
	}
	if out, err := k.run("", "apply", "--server-side", "--force-conflicts", "--field-manager", "local-up", "-k", overlayDir); err != nil {
		t.Errorf("re-applying the loopback overlay: %v\n%s", err, out)
	}
	after := harnessState(t, overlay)
	var keys []string
	for key := range before {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if !reflect.DeepEqual(before[key], after[key]) {
			t.Errorf("%s is not as before the chart install (- before, + after):\n%s", key, diff.Diff(before[key], after[key]))
		}
	}
	// aim-apiserver created them from the release's ConfigMaps, which are gone; the release never owned them.
	if out, err := k.run("", "delete", "aimclusterruntimeconfig", "default", "--ignore-not-found"); err != nil {
		t.Errorf("deleting the AIMClusterRuntimeConfig default made from the chart's ConfigMap: %v\n%s", err, out)
	}
	if out, err := k.run("", "delete", "aimclustermodelsource", chartModelSource, "--ignore-not-found"); err != nil {
		t.Errorf("deleting the AIMClusterModelSource made from the chart's ConfigMap: %v\n%s", err, out)
	}
	if out, err := k.run("", "wait", "--for=condition=Available", "--timeout=60s", "apiservice/"+apiService); err != nil {
		t.Errorf("the APIService is not Available after the restore: %v\n%s", err, out)
	}
}

// objectKey names an object as "Kind namespace/name" (cluster-scoped: "Kind name").
func objectKey(o map[string]any) string {
	meta := o["metadata"].(map[string]any)
	if ns, _ := meta["namespace"].(string); ns != "" {
		return fmt.Sprintf("%s %s/%s", o["kind"], ns, meta["name"])
	}
	return fmt.Sprintf("%s %s", o["kind"], meta["name"])
}

func deepCopy(o any) map[string]any {
	data, _ := json.Marshal(o)
	var c map[string]any
	_ = json.Unmarshal(data, &c)
	return c
}
