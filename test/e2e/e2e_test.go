//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var kinds = map[string]string{ // resource -> short name
	"aimservices": "aimsvc", "aimservicetemplates": "aimtpl", "aimclusterservicetemplates": "aimcltpl",
	"aimmodels": "aimmdl", "aimclustermodels": "aimclmdl", "aimruntimeconfigs": "aimrc",
	"aimclusterruntimeconfigs": "aimclrc", "aimtemplatecaches": "aimtc", "aimartifacts": "aimart",
	"aimclustermodelsources": "aimclsrc",
}

func TestAPIResourcesAndExplainThroughKubeAPIServer(t *testing.T) {
	k := admin(t)
	// kube-apiserver's aggregated discovery is eventually consistent: a discovery fetch that fails (earlier tests
	// restart aim-apiserver) leaves the group without resources until its next refresh, up to a minute later
	// (kube-aggregator's discoveryManager; docs/troubleshooting.md).
	eventually(t, 90*time.Second, "every AIM kind in kubectl api-resources", func() error {
		out := k.must("api-resources", "--api-group=aim.eai.amd.com", "--no-headers")
		for name, short := range kinds {
			found := false
			for _, line := range strings.Split(out, "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == name && f[1] == short {
					found = true
				}
			}
			if !found {
				return fmt.Errorf("api-resources lacks %s (%s):\n%s", name, short, out)
			}
		}
		return nil
	})
	contains(t, "explain", k.must("explain", "aimservice.spec"), "model", "caching", "replicas", "runtimeConfigName")
	contains(t, "apiservice", k.must("get", "apiservice", "v1alpha1.aim.eai.amd.com"), "True")
}

func TestSamplesCRUDAndColumns(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-samples")
	out := k.must("apply", "-n", ns, "-f", samplesDir)
	if n := strings.Count(out, " created") + strings.Count(out, " configured") + strings.Count(out, " unchanged"); n != 12 {
		t.Errorf("applied %d samples, want 12:\n%s", n, out)
	}
	t.Cleanup(func() { _, _ = k.run("", "delete", "-n", ns, "-f", samplesDir, "--ignore-not-found") })

	contains(t, "get aimsvc", k.must("get", "aimsvc", "-n", ns), "STATUS", "MODEL", "TEMPLATE", "REPLICAS", "qwen-chat")
	contains(t, "get aimsvc -o wide", k.must("get", "aimsvc", "-n", ns, "-o", "wide"), "ENDPOINT")
	contains(t, "get aimtpl", k.must("get", "aimtpl", "-n", ns), "MODEL", "HARDWARE", "METRIC", "PRECISION")
	contains(t, "get aimclmdl", k.must("get", "aimclmdl"), "SOURCE", "IMAGE", "qwen3-32b")
	contains(t, "get aim -A", k.must("get", "aim", "-A"), "aimservice.aim.eai.amd.com/qwen-chat", "aimclustermodelsource.aim.eai.amd.com/amd-aim-images")

	// Update and read back through the aggregator.
	k.must("patch", "aimsvc", "qwen-chat", "-n", ns, "--type", "merge", "-p", `{"spec":{"replicas":2}}`)
	if got := k.must("get", "aimsvc", "qwen-chat", "-n", ns, "-o", "jsonpath={.spec.replicas}/{.metadata.generation}"); got != "2/2" {
		t.Errorf("after patch replicas/generation = %s, want 2/2", got)
	}

	// kubectl wait on a jsonpath. No node here has the sample template's MI300X, so the service cannot run (F1).
	k.must("wait", "-n", ns, "aimsvc/qwen-chat", "--for=jsonpath={.status.status}=NotAvailable", "--timeout=30s")
	contains(t, "get aimsvc after the controller", k.must("get", "aimsvc", "qwen-chat", "-n", ns), "NotAvailable", "qwen3-32b")
	// Two replicas wanted, none ready: the REPLICAS column shows the ready count (a fixed count is shown as "N").
	jsonpathEquals(t, 30*time.Second, "0 2", "aimsvc", "qwen-chat", "-n", ns, "-o", "jsonpath={.status.runtime.replicas} {.status.runtime.desiredReplicas}")

	// Update every sample (a label), read it back, then delete them all.
	k.must("label", "-n", ns, "-f", samplesDir, "e2e=crud")
	labelled := strings.Fields(k.must("get", "aim", "-A", "-l", "e2e=crud", "-o", "name"))
	if len(labelled) != 12 {
		t.Errorf("%d labelled objects, want 12: %v", len(labelled), labelled)
	}
	k.must("delete", "-n", ns, "-f", samplesDir)
	if out := strings.TrimSpace(k.must("get", "aim", "-A", "-l", "e2e=crud", "-o", "name")); out != "" {
		t.Errorf("objects left after delete: %s", out)
	}
}

func TestValidationThroughKubeAPIServer(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-validation")
	out, err := k.apply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: broken, namespace: %s}\nspec: {model: {name: a, image: b}}\n", ns))
	if err == nil {
		t.Fatalf("invalid service accepted: %s", out)
	}
	contains(t, "422", out, `The AIMService "broken" is invalid: spec.model`)
}

func TestServerSideApplyAndWatch(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-ssa")
	manifest := "apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: ssa, namespace: %s, labels: {e2e: watch}}\nspec:\n  model: {name: qwen3-32b}\n  env:\n  - {name: %s, value: \"%s\"}\n"

	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	watch := exec.CommandContext(c, kubectlBin, "--kubeconfig", adminKC, "get", "aimsvc", "-n", ns, "-l", "e2e=watch", "-w",
		"--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name,ENV:.object.spec.env[*].name")
	stdout, err := watch.StdoutPipe()
	must(t, err)
	must(t, watch.Start())
	lines := make(chan string, 32)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- strings.Join(strings.Fields(sc.Text()), " ")
		}
		close(lines)
	}()
	defer func() { cancel(); _ = watch.Wait() }()
	expect := func(want string) {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("watch ended before %q", want)
				}
				if l == want {
					return
				}
			case <-c.Done():
				t.Fatalf("watch did not show %q", want)
			}
		}
	}

	k.mustApply(fmt.Sprintf(manifest, ns, "FROM_A", "1"), "--server-side", "--field-manager", "team-a")
	expect("ADDED ssa FROM_A")
	k.mustApply(fmt.Sprintf(manifest, ns, "FROM_B", "2"), "--server-side", "--field-manager", "team-b")
	expect("MODIFIED ssa FROM_A,FROM_B")
	out, err := k.apply(fmt.Sprintf(manifest, ns, "FROM_A", "changed"), "--server-side", "--field-manager", "team-b")
	if err == nil {
		t.Errorf("conflicting apply accepted: %s", out)
	}
	contains(t, "conflict", out, "conflict")
	// A field the schema does not declare (aim-engine's docs write spec.model.ref) is the client's error: 400
	// through kube-apiserver too, where kube-apiserver itself answers 500.
	out, err = k.apply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: ssa-ref, namespace: %s}\nspec: {model: {ref: qwen3-32b}}\n", ns),
		"--server-side", "--field-manager", "team-a")
	if err == nil {
		t.Errorf("apply of an unknown field accepted: %s", out)
	}
	contains(t, "unknown field", out, "Error from server (BadRequest)", ".spec.model.ref: field not declared in schema")
	k.must("delete", "aimsvc", "ssa", "-n", ns)
	expect("DELETED ssa FROM_A,FROM_B")
}

func TestRBACThroughDelegation(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-rbac")
	k.must("create", "rolebinding", "viewer", "-n", ns, "--clusterrole", "aim-view", "--user", "e2e-viewer")
	k.must("create", "rolebinding", "editor", "-n", ns, "--clusterrole", "aim-edit", "--user", "e2e-editor")
	viewer := kubectl{t: t, kubeconfig: userKubeconfig(t, "e2e-viewer")}
	editor := kubectl{t: t, kubeconfig: userKubeconfig(t, "e2e-editor")}
	nobody := kubectl{t: t, kubeconfig: userKubeconfig(t, "e2e-nobody")}
	svc := fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: %%s, namespace: %s}\nspec: {model: {name: qwen3-32b}}\n", ns)

	// RBAC bindings reach the authorizer through kube-apiserver's informers; give them a moment.
	eventually(t, 30*time.Second, "editor can create", func() error {
		out, err := editor.apply(fmt.Sprintf(svc, "by-editor"))
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	eventually(t, 30*time.Second, "viewer can list", func() error {
		out, err := viewer.run("", "get", "aimsvc", "-n", ns)
		if err != nil || !strings.Contains(out, "by-editor") {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	out, err := viewer.apply(fmt.Sprintf(svc, "by-viewer"))
	if err == nil || !strings.Contains(out, "forbidden") {
		t.Errorf("viewer create: want Forbidden, got %v: %s", err, out)
	}
	out, err = nobody.run("", "get", "aimsvc", "-n", ns)
	if err == nil || !strings.Contains(out, "forbidden") {
		t.Errorf("unbound user list: want Forbidden, got %v: %s", err, out)
	}
	// The aggregated built-in roles include the AIM rules.
	contains(t, "view role", k.must("get", "clusterrole", "view", "-o", "jsonpath={.rules[*].apiGroups}"), "aim.eai.amd.com")

	// A RoleBinding written for aim-engine, to its editor role of AIMServices: services, and nothing else.
	k.must("create", "rolebinding", "engine-editor", "-n", ns, "--clusterrole", "aim-engine-aimservice-editor-role", "--user", "e2e-engine-editor")
	engineEditor := kubectl{t: t, kubeconfig: userKubeconfig(t, "e2e-engine-editor")}
	eventually(t, 30*time.Second, "aim-engine's editor role can create", func() error {
		out, err := engineEditor.apply(fmt.Sprintf(svc, "by-engine-editor"))
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	engineEditor.must("get", "aimsvc", "by-engine-editor", "-n", ns, "-o", "jsonpath={.status}")
	out, err = engineEditor.run("", "get", "aimmodels", "-n", ns)
	if err == nil || !strings.Contains(out, "forbidden") {
		t.Errorf("aim-engine's AIMService editor lists models: want Forbidden, got %v: %s", err, out)
	}
}

func TestNamespaceSemantics(t *testing.T) {
	k := admin(t)
	out, err := k.apply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: x, namespace: e2e-does-not-exist}\nspec: {model: {name: m}}\n")
	if err == nil || !strings.Contains(out, `namespaces "e2e-does-not-exist" not found`) {
		t.Errorf("create in a missing namespace: %v %s", err, out)
	}

	ns := fmt.Sprintf("e2e-ns-delete-%d", time.Now().UnixNano()%1_000_000)
	k.must("create", "namespace", ns)
	eventually(t, 30*time.Second, "namespace ready for objects", func() error {
		out, err := k.apply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: doomed, namespace: %s}\nspec: {model: {name: m}}\n", ns))
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMModel\nmetadata: {name: doomed, namespace: %s}\nspec: {image: repo/img:1}\n", ns))
	k.must("delete", "namespace", ns, "--timeout=90s")
	if out, err := k.run("", "get", "namespace", ns); err == nil {
		t.Errorf("namespace still exists after delete: %s", out)
	}
	if out := k.must("get", "aimsvc,aimmdl", "-n", ns, "-o", "name"); strings.TrimSpace(out) != "" {
		t.Errorf("AIM objects survived their namespace: %s", out)
	}
}

func TestGarbageCollectionAcrossAggregation(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-gc")
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: owner, namespace: %s}\nspec: {model: {name: m}}\n", ns))
	uid := k.must("get", "aimsvc", "owner", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	k.mustApply(fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: owned
  namespace: %s
  ownerReferences:
  - {apiVersion: aim.eai.amd.com/v1alpha1, kind: AIMService, name: owner, uid: %s}
data: {k: v}
`, ns, uid))
	// The garbage collector must see the owner exist before it is deleted, or it may collect early.
	consistently(t, time.Second, "the dependent stays while its owner exists", func() error {
		if out := k.must("get", "configmap", "owned", "-n", ns, "-o", "name"); !strings.Contains(out, "owned") {
			return fmt.Errorf("collected: %s", out)
		}
		return nil
	})
	k.must("delete", "aimsvc", "owner", "-n", ns)
	// The garbage collector starts monitoring a new resource type at its next discovery sync (every 30s).
	eventually(t, 120*time.Second, "garbage collector deletes the ConfigMap", func() error {
		out, err := k.run("", "get", "configmap", "owned", "-n", ns)
		if err == nil {
			return fmt.Errorf("still there: %s", out)
		}
		if !strings.Contains(out, "NotFound") {
			return fmt.Errorf("unexpected: %s", out)
		}
		return nil
	})
}

func TestDeployBaseServerDryRun(t *testing.T) {
	k := admin(t)
	out := k.must("apply", "--dry-run=server", "-k", filepath.Join(root, "artifacts", "deploy"))
	contains(t, "dry run", out, "deployment.apps/aim-apiserver", "apiservice.apiregistration.k8s.io/v1alpha1.aim.eai.amd.com",
		"clusterrole.rbac.authorization.k8s.io/aim-view", "statefulset.apps/aim-etcd", "networkpolicy.networking.k8s.io/aim-etcd",
		"poddisruptionbudget.policy/aim-etcd", "role.rbac.authorization.k8s.io/aim-apiserver-etcd-certs", "(server dry run)")
	if strings.Contains(out, "secret/") {
		t.Errorf("artifacts/deploy holds a Secret:\n%s", out)
	}
	// etcd serves TLS to clients and peers with certificate authentication, and aim-apiserver uses its client
	// certificate.
	rendered := k.must("kustomize", filepath.Join(root, "artifacts", "deploy"))
	contains(t, "rendered base", rendered, "--client-cert-auth=true", "--peer-client-cert-auth=true", "- etcd\n        - certs\n",
		"--listen-client-urls=https://", "--etcd-servers=https://", "--etcd-certfile=", "--etcd-keyfile=")
	if strings.Contains(rendered, "--listen-client-urls=http://") || strings.Contains(rendered, "--etcd-servers=http://") {
		t.Error("the deploy base still speaks plain HTTP to etcd")
	}
	// The cert-manager overlay issues the same Secrets instead of the init container creating them.
	cm := k.must("kustomize", filepath.Join(root, "artifacts", "deploy", "cert-manager"))
	for _, secret := range []string{"aim-apiserver-serving-cert", "aim-etcd-server-tls", "aim-etcd-peer-tls", "aim-apiserver-etcd-client"} {
		contains(t, "cert-manager overlay", cm, "secretName: "+secret)
	}
	contains(t, "cert-manager overlay", cm, "cert-manager.io/inject-ca-from: aim-system/aim-apiserver-serving", "kind: Certificate")
	if strings.Contains(cm, "kind: Secret") {
		t.Error("the cert-manager overlay also generates Secrets from files")
	}
	if strings.Contains(cm, "initContainers") {
		t.Error("the cert-manager overlay also runs the etcd-certs init container")
	}
	// The migration as a Job: kube-apiserver accepts it, and its pod is one the etcd NetworkPolicy admits.
	job := k.must("apply", "--dry-run=server", "-f", filepath.Join(root, "artifacts", "deploy", "migrate", "job.yaml"), "-o", "yaml")
	contains(t, "migrate Job", job, "kind: Job", "- migrate", "- --yes", "app.kubernetes.io/name: aim-etcd-maintenance",
		"secretName: aim-apiserver-etcd-client", "claimName: aim-migration-backup")
}
