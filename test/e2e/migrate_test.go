//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/service"
	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

// The tests here play an aim-engine installation: the group served by CRDs (made from aim-apiserver's own
// discovery and OpenAPI, with the reference's schema shape: spec and status objects, a status subresource),
// AIM objects created through them, and children owned by those objects' UIDs. Then `aim-apiserver migrate`
// moves it onto the harness's aim-apiserver.

const apiServiceName = "v1alpha1.aim.eai.amd.com"

// migrateBin is the binary local-up runs.
var migrateBin = filepath.Join(root, "_output", "bin", "aim-apiserver")

// engineCRDs builds one CRD per kind aim-apiserver serves, from its discovery and OpenAPI document.
func engineCRDs(t *testing.T) []map[string]any {
	t.Helper()
	k := admin(t)
	var list struct {
		Resources []struct {
			Name, SingularName, Kind string
			Namespaced               bool
			ShortNames, Categories   []string
		}
	}
	must(t, json.Unmarshal([]byte(k.must("get", "--raw", "/apis/aim.eai.amd.com/v1alpha1")), &list))
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Description string `json:"description"`
				GVK         []struct {
					Kind string `json:"kind"`
				} `json:"x-kubernetes-group-version-kind"`
			} `json:"schemas"`
		} `json:"components"`
	}
	// Right after a migration kube-apiserver has not aggregated aim-apiserver's OpenAPI again yet.
	var openAPI string
	eventually(t, openAPIAggregation, "aim-apiserver's OpenAPI aggregated", func() error {
		var err error
		openAPI, err = k.run("", "get", "--raw", "/openapi/v3/apis/aim.eai.amd.com/v1alpha1")
		return err
	})
	must(t, json.Unmarshal([]byte(openAPI), &doc))
	descriptions := map[string]string{}
	for _, s := range doc.Components.Schemas {
		for _, g := range s.GVK {
			descriptions[g.Kind] = s.Description
		}
	}
	var crds []map[string]any
	for _, r := range list.Resources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		open := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
		crds = append(crds, map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": r.Name + ".aim.eai.amd.com"},
			"spec": map[string]any{
				"group": "aim.eai.amd.com", "scope": scope,
				"names": map[string]any{"plural": r.Name, "singular": r.SingularName, "kind": r.Kind, "listKind": r.Kind + "List",
					"shortNames": r.ShortNames, "categories": r.Categories},
				"versions": []any{map[string]any{
					"name": "v1alpha1", "served": true, "storage": true,
					"subresources": map[string]any{"status": map[string]any{}},
					"schema": map[string]any{"openAPIV3Schema": map[string]any{
						"type": "object", "description": descriptions[r.Kind],
						"properties": map[string]any{"spec": open, "status": open},
					}},
				}},
			},
		})
	}
	if len(crds) != 10 {
		t.Fatalf("discovery lists %d kinds, want 10", len(crds))
	}
	return crds
}

// installEngine replaces aim-apiserver's APIService with aim-engine's CRDs: the auto-registration makes the
// group local. It returns a function that puts aim-apiserver's APIService back if a test leaves the group
// elsewhere.
func installEngine(t *testing.T) {
	t.Helper()
	k := admin(t)
	crds := engineCRDs(t)
	saved := k.must("get", "apiservice", apiServiceName, "-o", "json")
	t.Cleanup(func() {
		// Whatever happened, leave the harness as the other tests expect it: aim-apiserver serving the group.
		crdsLeft, _ := k.run("", "get", "crd", "-o", "name")
		target, _ := k.run("", "get", "apiservice", apiServiceName, "-o", "jsonpath={.spec.service.name}")
		if target == "aim-apiserver" && !strings.Contains(crdsLeft, "aim.eai.amd.com") {
			return
		}
		t.Log("restoring aim-apiserver's APIService and removing the test CRDs")
		// CRDs first: while one exists, the auto-registration owns (and reverts) an APIService it labelled. Their
		// objects lose their finalizers first, which no aim-engine would remove.
		if target != "aim-apiserver" {
			for _, crd := range crds {
				plural := crd["spec"].(map[string]any)["names"].(map[string]any)["plural"].(string)
				out, _ := k.run("", "get", plural, "-A", "-o", `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}`)
				for _, ref := range strings.Fields(out) {
					ns, name, _ := strings.Cut(ref, "/")
					args := []string{"patch", plural, name, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`}
					if ns != "" {
						args = append(args, "-n", ns)
					}
					_, _ = k.run("", args...)
				}
			}
		}
		for _, crd := range crds {
			_, _ = k.run("", "delete", "crd", crd["metadata"].(map[string]any)["name"].(string), "--timeout=60s")
		}
		var as map[string]any
		_ = json.Unmarshal([]byte(saved), &as)
		meta := as["metadata"].(map[string]any)
		for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "managedFields", "generation"} {
			delete(meta, f)
		}
		delete(as, "status")
		data, _ := json.Marshal(as)
		// The auto-registration may still re-create its APIService once after the CRDs went.
		eventually(t, 60*time.Second, "aim-apiserver's APIService restored", func() error {
			out, _ := k.run("", "get", "apiservice", apiServiceName, "-o",
				`jsonpath={.spec.service.name} {.metadata.labels.kube-aggregator\.kubernetes\.io/automanaged}`)
			if out == "aim-apiserver " {
				return nil
			}
			_, _ = k.run("", "delete", "apiservice", apiServiceName, "--ignore-not-found")
			out, err := k.run(string(data), "create", "-f", "-")
			return fmt.Errorf("APIService was %q; re-created: %v %s", out, err, out)
		})
		k.must("wait", "--for=condition=Available", "--timeout=60s", "apiservice/"+apiServiceName)
	})
	k.must("delete", "apiservice", apiServiceName)
	for _, crd := range crds {
		data, _ := json.Marshal(crd)
		k.mustApply(string(data))
	}
	for _, crd := range crds {
		k.must("wait", "--for=condition=Established", "--timeout=60s", "crd/"+crd["metadata"].(map[string]any)["name"].(string))
	}
	eventually(t, 60*time.Second, "the CRDs serve the group", func() error {
		out, err := k.run("", "get", "apiservice", apiServiceName, "-o", `jsonpath={.metadata.labels.kube-aggregator\.kubernetes\.io/automanaged} {.status.conditions[?(@.type=="Available")].status}`)
		if err != nil || out != "true True" {
			return fmt.Errorf("%v: %q", err, out)
		}
		_, err = k.run("", "get", "aimclustermodels")
		return err
	})
}

// migrateArgs are the flags of `aim-apiserver migrate` against the harness.
func migrateArgs(t *testing.T, backup string, extra ...string) []string {
	t.Helper()
	h := harness(t)
	args := []string{"migrate", "--kubeconfig", adminKC, "--backup-dir", backup, "--timeout", "90s", "--yes"}
	// No --serving-secret: the harness's aim-apiserver keeps its certificate in the default Secret.
	for _, f := range []string{"--etcd-servers", "--etcd-cafile", "--etcd-certfile", "--etcd-keyfile"} {
		args = append(args, f, harnessdir.Flag(h.Args, f))
	}
	return append(args, extra...)
}

// runMigrate runs `aim-apiserver migrate` to its end.
func runMigrate(t *testing.T, args []string) (string, error) {
	t.Helper()
	out, err := exec.Command(migrateBin, args...).CombinedOutput()
	t.Logf("aim-apiserver %s\n%s", strings.Join(args[:1], " "), out)
	return string(out), err
}

// killMigrateAt runs `aim-apiserver migrate` and kills it (SIGKILL) as soon as it prints a line containing
// marker; it reports whether it got there.
func killMigrateAt(t *testing.T, args []string, marker string) string {
	t.Helper()
	cmd := exec.Command(migrateBin, args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	must(t, cmd.Start())
	var seen strings.Builder
	found := make(chan bool, 1)
	go func() {
		s := bufio.NewScanner(pr)
		hit := false
		for s.Scan() {
			seen.WriteString(s.Text() + "\n")
			if !hit && strings.Contains(s.Text(), marker) {
				hit = true
				_ = cmd.Process.Signal(syscall.SIGKILL)
				found <- true
			}
		}
		if !hit {
			found <- false
		}
	}()
	err := cmd.Wait()
	pw.Close()
	if !<-found {
		t.Fatalf("migrate ended (%v) before %q:\n%s", err, marker, seen.String())
	}
	t.Logf("killed migrate at %q:\n%s", marker, seen.String())
	return seen.String()
}

// children lists the test's stand-in children in ns with their UIDs.
func children(t *testing.T, ns string) map[string]string {
	t.Helper()
	out := admin(t).must("get", "configmaps,persistentvolumeclaims,inferenceservices", "-n", ns, "-l", "e2e-child=true",
		"-o", `jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.uid}{"\n"}{end}`)
	got := map[string]string{}
	for _, line := range strings.Fields(out) {
		name, uid, _ := strings.Cut(line, "=")
		got[name] = uid
	}
	return got
}

// gcDeletes are the deletes the garbage collector sent for objects in ns since the test began, from
// kube-apiserver's audit log.
func gcDeletes(t *testing.T, ns string, since time.Time) []string {
	t.Helper()
	var out []string
	for _, e := range auditEntries(t, []string{"generic-garbage-collector", ns}, filepath.Join(localDir, "logs", "kube-apiserver-audit.log")) {
		if e.Verb != "delete" || e.ObjectRef == nil || e.ObjectRef.Namespace != ns || e.RequestReceivedTimestamp.Time.Before(since) {
			continue
		}
		out = append(out, e.ObjectRef.Resource+"/"+e.ObjectRef.Name)
	}
	return out
}

// aimObjects reads the objects of want as kubectl lists them: kind/namespace/name -> uid.
func aimObjects(t *testing.T, want map[string]string) map[string]string {
	t.Helper()
	out := admin(t).must("get", "aim", "-A", "-o", `jsonpath={range .items[*]}{.kind}/{.metadata.namespace}/{.metadata.name}={.metadata.uid}{"\n"}{end}`)
	got := map[string]string{}
	for _, line := range strings.Fields(out) {
		key, uid, _ := strings.Cut(line, "=")
		if _, ok := want[key]; ok {
			got[key] = uid
		}
	}
	return got
}

// aimContents reads the objects of want as kubectl lists them: kind/namespace/name -> the content a migration
// keeps apart from status (which the controller rewrites once it serves): metadata without resourceVersion and
// managedFields, and spec.
func aimContents(t *testing.T, want map[string]string) map[string]map[string]any {
	t.Helper()
	return contentsOf(t, admin(t).must("get", "aim", "-A", "-o", "json"), want, false)
}

// aimStored lists the AIM objects aim-apiserver itself serves, past the aggregator (which may still route the
// group to the CRDs), with their status.
func aimStored(t *testing.T, want map[string]string) map[string]map[string]any {
	t.Helper()
	port := os.Getenv("AIM_PORT")
	if port == "" {
		port = "18443"
	}
	out := admin(t).must("--server", "https://127.0.0.1:"+port, "--tls-server-name", "localhost",
		"--certificate-authority", filepath.Join(localDir, "pki", "aim-apiserver-ca.crt"), "get", "aim", "-A", "-o", "json")
	return contentsOf(t, out, want, true)
}

// contentsOf picks the objects of want from a kubectl list.
func contentsOf(t *testing.T, listJSON string, want map[string]string, withStatus bool) map[string]map[string]any {
	t.Helper()
	var list struct{ Items []map[string]any }
	must(t, json.Unmarshal([]byte(listJSON), &list))
	got := map[string]map[string]any{}
	for _, item := range list.Items {
		meta, _ := item["metadata"].(map[string]any)
		key := fmt.Sprintf("%v/%v/%v", item["kind"], stringOr(meta["namespace"]), meta["name"])
		if _, ok := want[key]; !ok {
			continue
		}
		kept := map[string]any{"spec": item["spec"]}
		if withStatus {
			kept["status"] = item["status"]
		}
		for _, f := range []string{"uid", "creationTimestamp", "generation", "labels", "annotations", "finalizers", "ownerReferences"} {
			kept[f] = meta[f]
		}
		got[key] = kept
	}
	return got
}

func stringOr(v any) string {
	s, _ := v.(string)
	return s
}

// compareContents reports where an object of after does not hold what it held in before: uid, creation time,
// generation and owners are equal; labels, annotations, finalizers and spec hold every field they held
// (reading through aim-apiserver adds the defaults of fields left unset, and the controller may add a label).
func compareContents(t *testing.T, stage string, before, after map[string]map[string]any) {
	t.Helper()
	for key, b := range before {
		a, ok := after[key]
		if !ok {
			t.Errorf("%s: %s is gone", stage, key)
			continue
		}
		for f, bv := range b {
			same := false
			switch f {
			case "uid", "creationTimestamp", "generation", "ownerReferences":
				same = reflect.DeepEqual(bv, a[f])
			default:
				same = holds(a[f], bv)
			}
			if !same {
				t.Errorf("%s: %s %s\n was %v\n now %v", stage, key, f, bv, a[f])
			}
		}
	}
}

// holds reports whether a holds every field of b with its value (lists element by element), as written:
// durations (D16) and quantities (D17) read back so, 1024Mi as 1024Mi and the number 2 as a number.
func holds(a, b any) bool {
	return reconcile.HoldsWith(a, b, reflect.DeepEqual)
}

// TestMigrationFromAimEngine: a populated aim-engine installation moves onto aim-apiserver with every UID,
// and no child is deleted, also when the migration is killed after the copy and after the switch; an
// invalid object stops it before the switch; --rollback gives the group back to the CRDs with the UIDs.
func TestMigrationFromAimEngine(t *testing.T) {
	k := admin(t)
	start := time.Now()
	shipped := prepareMigrateJob(t) // the last run's image, read before anything changes
	// The namespace and the cluster-scoped objects are cleaned up last (cleanups run in reverse), after the
	// harness's APIService is back: through aim-apiserver, which holds the copies.
	ns := namespace(t, "e2e-migrate")
	backup := t.TempDir()
	// Cluster-scoped names carry the run's number: a copy an earlier, failed run left in aim-apiserver would
	// otherwise be a conflict (which migrate rightly refuses).
	run := strings.TrimPrefix(ns, "e2e-migrate-")
	t.Cleanup(func() {
		for _, kind := range []string{"aimclustermodel", "aimclusterruntimeconfig", "aimclusterservicetemplate", "aimclustermodelsource"} {
			_, _ = k.run("", "delete", kind, "-l", "e2e-migrate="+run, "--ignore-not-found", "--wait=false")
		}
	})
	installEngine(t)
	// A run that fails half-way leaves the freeze, which aim-apiserver enforces too: not on the other tests.
	t.Cleanup(func() {
		_, _ = k.run("", "delete", "validatingadmissionpolicybinding,validatingadmissionpolicy", "aim-migration-freeze", "--ignore-not-found")
	})

	// aim-engine's objects, created through the CRDs (no admission but their schema).
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModel
metadata: {name: mig-cluster-model-%[2]s, labels: {e2e-migrate: "%[2]s"}}
spec: {image: registry.example/aim/mig:1.0, imageMetadata: {model: {canonicalName: Org/Mig}}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterRuntimeConfig
metadata: {name: mig-cluster-config-%[2]s, labels: {e2e-migrate: "%[2]s"}}
spec: {labelPropagation: {enabled: true, match: [team]}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterServiceTemplate
metadata: {name: mig-cluster-tpl-%[2]s, labels: {e2e-migrate: "%[2]s"}}
spec: {modelName: mig-cluster-model-%[2]s, metric: latency, precision: fp8, hardware: {gpu: {requests: 1, model: MI300X}}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModelSource
metadata: {name: mig-source-%[2]s, labels: {e2e-migrate: "%[2]s"}}
spec: {registry: "127.0.0.1:1", filters: [{image: "amd/aim-*"}], syncInterval: 24h, imagePullSecrets: [{name: mig-registry-%[2]s}]}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMRuntimeConfig
metadata: {name: mig-cluster-config-%[2]s, namespace: %[1]s}
spec: {storage: {defaultStorageClassName: standard}, labelPropagation: {enabled: false, match: [cost-center]}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: mig-model, namespace: %[1]s}
spec: {image: registry.example/aim/mig:1.0, imageMetadata: {model: {canonicalName: Org/Mig}}, discovery: {createServiceTemplates: false}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: mig-tpl, namespace: %[1]s}
spec:
  modelName: mig-model
  hardware: {cpu: {requests: 2}}
  modelSources: [{modelId: org/mig, sourceUri: "s3://models/org/mig", size: 1024Mi}]
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMTemplateCache
metadata: {name: mig-cache, namespace: %[1]s}
spec: {templateName: mig-tpl, templateScope: Namespace, mode: Shared}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMArtifact
metadata: {name: mig-artifact, namespace: %[1]s}
spec: {sourceUri: "s3://models/org/mig", modelId: org/mig, size: 1024Mi}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMService
metadata: {name: mig-chat, namespace: %[1]s, finalizers: [aim.eai.amd.com/template-cache-cleanup], labels: {team: blue}}
spec: {model: {name: mig-model}, template: {name: mig-tpl}, caching: {mode: Never}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMService
metadata: {name: mig-broken, namespace: %[1]s}
spec: {model: {name: mig-model}, replicas: -1}
`, ns, run))
	// The status aim-engine wrote, through the status subresource.
	k.must("patch", "aimsvc", "mig-chat", "-n", ns, "--subresource=status", "--type=merge", "-p",
		`{"status":{"status":"Running","conditions":[{"type":"Ready","status":"True","reason":"AllComponentsReady","message":"up","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	k.must("patch", "aimtpl", "mig-tpl", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"status":"Ready","hardwareSummary":"CPU"}}`)

	// The CRDs hold only this run's objects.
	uids := map[string]string{}
	for _, line := range strings.Fields(k.must("get", "aim", "-A", "-o", `jsonpath={range .items[*]}{.kind}/{.metadata.namespace}/{.metadata.name}={.metadata.uid}{"\n"}{end}`)) {
		key, uid, _ := strings.Cut(line, "=")
		uids[key] = uid
	}
	if len(uids) != 11 {
		t.Fatalf("created %d AIM objects through the CRDs, want 11: %v", len(uids), uids)
	}

	// Children owned by the objects' UIDs: the service's InferenceService under the name aim-engine gives it, a
	// PVC of the artifact, and a ConfigMap for every namespaced object.
	owner := func(kind, name string) string {
		uid := uids[kind+"/"+ns+"/"+name]
		return fmt.Sprintf(`"ownerReferences":[{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]`, kind, name, uid)
	}
	isvcName := service.WorkloadName(&aimv1.AIMService{ObjectMeta: metaOf("mig-chat", ns)})
	// aim-engine labels its InferenceServices with the service (kserve.go), which is how the controller, whose
	// cache holds only InferenceServices of services, sees this one before it adopts it.
	k.mustApply(fmt.Sprintf(`{"apiVersion":"serving.kserve.io/v1beta1","kind":"InferenceService","metadata":{"name":%q,"namespace":%q,"labels":{"e2e-child":"true","aim.eai.amd.com/service":"mig-chat"},%s},
"spec":{"predictor":{"model":{"modelFormat":{"name":"aim"},"runtime":"aim","storageUri":"s3://x"}}}}`, isvcName, ns, owner("AIMService", "mig-chat")))
	k.mustApply(fmt.Sprintf(`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"mig-artifact-cache","namespace":%q,"labels":{"e2e-child":"true"},%s},
"spec":{"accessModes":["ReadWriteMany"],"resources":{"requests":{"storage":"1Gi"}}}}`, ns, owner("AIMArtifact", "mig-artifact")))
	for key := range uids {
		parts := strings.Split(key, "/")
		if parts[1] != ns || parts[2] == "mig-broken" { // deleted later, with its children
			continue
		}
		k.mustApply(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"child-of-%s","namespace":%q,"labels":{"e2e-child":"true"},%s}}`,
			parts[2], ns, owner(parts[0], parts[2])))
	}
	before := children(t, ns)
	if len(before) != 8 {
		t.Fatalf("children: %v", before)
	}

	// aim-engine's controller still runs: migrate refuses. It ran with another operator namespace, where the pull
	// secret of the model source is: aim-apiserver will not find it, which migrate warns of.
	k.mustApply(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"aim-engine-controller-manager","namespace":"aim-system"},
"spec":{"replicas":1,"selector":{"matchLabels":{"app":"aim-engine"}},"template":{"metadata":{"labels":{"app":"aim-engine"}},
"spec":{"containers":[{"name":"manager","image":"docker.io/amdenterpriseai/aim-engine:v0.2.0","env":[{"name":"AIM_SYSTEM_NAMESPACE","value":"aim-engine-system"}]}]}}}}`)
	t.Cleanup(func() { _, _ = k.run("", "delete", "deployment", "aim-engine-controller-manager", "-n", "aim-system") })
	out, err := runMigrate(t, migrateArgs(t, backup, "--dry-run"))
	if err == nil || !strings.Contains(out, "aim-engine's controller aim-system/aim-engine-controller-manager still runs") {
		t.Fatalf("migrate with aim-engine running: %v\n%s", err, out)
	}
	k.must("scale", "deployment", "aim-engine-controller-manager", "-n", "aim-system", "--replicas=0")
	// aim-apiserver runs in the Namespace aim-engine's kustomize manifests declare, with their labels: removing
	// aim-engine with kubectl delete -k would delete it, which migrate warns of.
	k.must("label", "namespace", "aim-system", "app.kubernetes.io/name=aim-engine", "app.kubernetes.io/managed-by=kustomize")
	t.Cleanup(func() {
		_, _ = k.run("", "label", "namespace", "aim-system", "app.kubernetes.io/name-", "app.kubernetes.io/managed-by-")
	})
	const engineNamespaceWarning = "WARNING: aim-apiserver runs in namespace aim-system, which aim-engine's kustomize manifests declare"

	// The dry run lists the plan and the invalid object by name and field, and changes nothing.
	out, err = runMigrate(t, migrateArgs(t, backup, "--dry-run"))
	must(t, err)
	// The namespaced runtime config holds the enabled: false aim-engine's schema writes into a labelPropagation (the
	// test's CRDs have no defaults: the manifest says it), beside a cluster config of its name that turns
	// propagation on: migrate warns that it will turn it off.
	contains(t, "dry run", out, "AIMService", "INVALID AIMService "+ns+"/mig-broken: spec.replicas", "--dry-run: nothing changed",
		engineNamespaceWarning, "WARNING: these AIMRuntimeConfigs hold labelPropagation.enabled: false beside an AIMClusterRuntimeConfig of their name "+
			"that turns propagation on: "+ns+"/mig-cluster-config-"+run+".")

	// Without --allow-invalid the run stops before the switch, and the CRDs are writable again.
	out, err = runMigrate(t, migrateArgs(t, backup))
	if err == nil || !strings.Contains(out, "INVALID AIMService "+ns+"/mig-broken: spec.replicas") || !strings.Contains(out, "nothing was switched") {
		t.Fatalf("migrate with an invalid object: %v\n%s", err, out)
	}
	jsonpathEquals(t, 5*time.Second, "true", "apiservice", apiServiceName, "-o", `jsonpath={.metadata.labels.kube-aggregator\.kubernetes\.io/automanaged}`)
	k.must("delete", "aimsvc", "mig-broken", "-n", ns)
	delete(uids, "AIMService/"+ns+"/mig-broken")

	crdContents := aimContents(t, uids)
	crdWithStatus := contentsOf(t, k.must("get", "aim", "-A", "-o", "json"), uids, true)
	if len(crdContents) != len(uids) {
		t.Fatalf("read %d objects through the CRDs, want %d", len(crdContents), len(uids))
	}

	// Killed after the copy, killed after the switch, then run to the end.
	killMigrateAt(t, migrateArgs(t, backup), "objects created")
	// The copies as stored, status included: the freeze the killed run left holds aim-apiserver's controller back
	// too, so nothing has rewritten them yet.
	stored := aimStored(t, uids)
	if len(stored) != len(uids) {
		t.Errorf("aim-apiserver stores %d of the %d objects after the copy", len(stored), len(uids))
	}
	compareContents(t, "aim-apiserver's storage after the copy", crdWithStatus, stored)
	killMigrateAt(t, migrateArgs(t, backup), "is Available")
	out, err = runMigrate(t, migrateArgs(t, backup))
	must(t, err)
	contains(t, "resumed migration", out, "resuming after the switch", "deleted 10 CRDs", "done:")
	if done := out[strings.Index(out, "done:"):]; !strings.Contains(done, engineNamespaceWarning) {
		t.Errorf("the warning of aim-engine's namespace does not follow the final line:\n%s", done)
	}

	checkMigrated := func(stage string) {
		t.Helper()
		jsonpathEquals(t, 30*time.Second, "aim-apiserver ", "apiservice", apiServiceName, "-o",
			`jsonpath={.spec.service.name} {.metadata.labels.kube-aggregator\.kubernetes\.io/automanaged}`)
		if crds := k.must("get", "crd", "-o", "name"); strings.Contains(crds, "aim.eai.amd.com") {
			t.Errorf("%s: CRDs of the group left: %s", stage, crds)
		}
		if got := aimObjects(t, uids); fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(uids)) {
			t.Errorf("%s: served objects and UIDs\n got %v\nwant %v", stage, sorted(got), sorted(uids))
		}
		if after := children(t, ns); fmt.Sprint(sorted(after)) != fmt.Sprint(sorted(before)) {
			t.Errorf("%s: children changed\n got %v\nwant %v", stage, sorted(after), sorted(before))
		}
		compareContents(t, stage, crdContents, aimContents(t, uids))
	}
	checkMigrated("after the migration")
	// Content as the CRDs held it: spec, labels, finalizers, status.
	contains(t, "migrated service", k.must("get", "aimsvc", "mig-chat", "-n", ns, "-o", "json"),
		`"team": "blue"`, `"aim.eai.amd.com/template-cache-cleanup"`, `"name": "mig-tpl"`, `"mode": "Never"`)
	jsonpathEquals(t, 5*time.Second, "false", "aimrc", "mig-cluster-config-"+run, "-n", ns, "-o", "jsonpath={.spec.labelPropagation.enabled}")

	// The controller takes the InferenceService over instead of making a second one.
	jsonpathEquals(t, 60*time.Second, "aim-apiserver", "inferenceservice", isvcName, "-n", ns, "-o",
		`jsonpath={.metadata.labels.app\.kubernetes\.io/managed-by}`)
	if isvcs := strings.Fields(k.must("get", "inferenceservices", "-n", ns, "-o", "name")); len(isvcs) != 1 {
		t.Errorf("InferenceServices after the migration: %v", isvcs)
	}

	// --rollback needs kube-apiserver's etcd: the harness shares one etcd between both servers.
	h := harness(t)
	rollbackArgs := migrateArgs(t, backup, "--rollback", "--kube-etcd-servers", harnessdir.Flag(h.Args, "--etcd-servers"),
		"--kube-etcd-cafile", harnessdir.Flag(h.Args, "--etcd-cafile"), "--kube-etcd-certfile", harnessdir.Flag(h.Args, "--etcd-certfile"),
		"--kube-etcd-keyfile", harnessdir.Flag(h.Args, "--etcd-keyfile"))
	out, err = runMigrate(t, rollbackArgs)
	must(t, err)
	contains(t, "rollback", out, "rolled back")
	jsonpathEquals(t, 30*time.Second, "true", "apiservice", apiServiceName, "-o", `jsonpath={.metadata.labels.kube-aggregator\.kubernetes\.io/automanaged}`)
	if got := aimObjects(t, uids); fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(uids)) {
		t.Errorf("after the rollback: objects and UIDs\n got %v\nwant %v", sorted(got), sorted(uids))
	}
	if after := children(t, ns); fmt.Sprint(sorted(after)) != fmt.Sprint(sorted(before)) {
		t.Errorf("after the rollback: children changed\n got %v\nwant %v", sorted(after), sorted(before))
	}
	compareContents(t, "after the rollback", crdContents, aimContents(t, uids))

	// The InferenceService as aim-engine leaves it when it made the same one (its managed-by, no applied hash, an
	// owner reference without blockOwnerDeletion): the next migration adopts it as it is, without a write, which
	// would roll its predictor (KServe copies its labels into the pod template).
	// The patch's answer is the object as written, before the controller could react to it.
	const isvcMeta = `jsonpath={.metadata.resourceVersion} {.metadata.labels.app\.kubernetes\.io/managed-by}`
	asAimEngineLeftIt := k.must("patch", "inferenceservice", isvcName, "-n", ns, "--type=json", "-o", isvcMeta, "-p", `[
{"op":"replace","path":"/metadata/labels/app.kubernetes.io~1managed-by","value":"aim-engine"},
{"op":"remove","path":"/metadata/annotations/aim.eai.amd.com~1applied-hash"},
{"op":"remove","path":"/metadata/ownerReferences/0/blockOwnerDeletion"}]`)
	if !strings.HasSuffix(asAimEngineLeftIt, " aim-engine") {
		t.Fatalf("the patched InferenceService: resourceVersion and managed-by %q", asAimEngineLeftIt)
	}

	// The CRDs serve again: an invalid service is created through them, with a child.
	k.mustApply(fmt.Sprintf(`{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"mig-broken","namespace":%q},
"spec":{"model":{"name":"mig-model"},"replicas":-1}}`, ns))
	brokenUID := k.must("get", "aimsvc", "mig-broken", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	k.mustApply(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"child-of-mig-broken","namespace":%q,"labels":{"e2e-child":"true"},
"ownerReferences":[{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","name":"mig-broken","uid":%q,"controller":true}]}}`, ns, brokenUID))
	uids["AIMService/"+ns+"/mig-broken"] = brokenUID
	before = children(t, ns)

	// Forward again with --allow-invalid, which also leaves the harness as the other tests expect it: the
	// invalid service is listed, stored as it is, and its status says what to fix. This run is the shipped one:
	// the image's binary as artifacts/deploy/migrate/job.yaml runs it in a pod.
	out, err = shipped.run(t, "--allow-invalid")
	must(t, err)
	contains(t, "migration with --allow-invalid", out, "INVALID AIMService "+ns+"/mig-broken: spec.replicas", "done:",
		engineNamespaceWarning, "WARNING: aim-engine read the pull secrets of cluster models, model sources and cluster templates from namespace aim-engine-system",
		fmt.Sprintf("mig-registry-%[1]s (AIMClusterModelSource mig-source-%[1]s)", run),
		"WARNING: these AIMRuntimeConfigs hold labelPropagation.enabled: false beside an AIMClusterRuntimeConfig of their name "+
			"that turns propagation on: "+ns+"/mig-cluster-config-"+run+".")
	checkMigrated("after migrating again")
	jsonpathEquals(t, 5*time.Second, "-1", "aimsvc", "mig-broken", "-n", ns, "-o", "jsonpath={.spec.replicas}")
	jsonpathEquals(t, 60*time.Second, "Failed False InvalidSpec", "aimsvc", "mig-broken", "-n", ns, "-o",
		`jsonpath={.status.status} {.status.conditions[?(@.type=="ConfigValid")].status} {.status.conditions[?(@.type=="ConfigValid")].reason}`)
	contains(t, "invalid service's condition", k.must("get", "aimsvc", "mig-broken", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="ConfigValid")].message}`), "spec.replicas")

	// Let the collector look: it has had every chance to see an owner missing.
	consistently(t, 5*time.Second, "the garbage collector deletes nothing", func() error {
		if deletes := gcDeletes(t, ns, start); len(deletes) > 0 {
			return fmt.Errorf("deleted %v", deletes)
		}
		return nil
	})
	if after := children(t, ns); len(after) != len(before) {
		t.Errorf("children at the end: %v", after)
	}
	if got := k.must("get", "inferenceservice", isvcName, "-n", ns, "-o", isvcMeta); got != asAimEngineLeftIt {
		t.Errorf("the InferenceService as aim-engine left it was written after the migration: resourceVersion and managed-by %q, were %q", got, asAimEngineLeftIt)
	}

	for key := range uids {
		parts := strings.Split(key, "/")
		args := []string{"delete", strings.ToLower(parts[0]), parts[len(parts)-1], "--wait=false"}
		if parts[1] != "" {
			args = append(args, "-n", parts[1])
		}
		_, _ = k.run("", args...)
	}
}

func metaOf(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace}
}

func sorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
