//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/aim-apiserver/aim-apiserver/test/registrytest"
)

// TestClusterModelCreatesTemplateThatDiscovers is the whole path of issue 4: AMD node, cluster model with
// recommended deployments, its template, discovery, Ready.
func TestClusterModelCreatesTemplateThatDiscovers(t *testing.T) {
	k := admin(t)
	gpuNode(t, "e2e-model-mi300x", map[string]string{"amd.com/gpu.device-id": "74a1"}, 8)
	k.mustApply(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModel
metadata: {name: e2e-qwen, labels: {aim.eai.amd.com/team: inference}}
spec:
  image: registry.example/aim/qwen:0.8.5
  imageMetadata:
    model:
      canonicalName: Qwen/Qwen3-32B
      recommendedDeployments:
      - {gpuModel: MI300X, gpuCount: 1, precision: fp8, metric: latency, profileId: p-lat}
`)
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclmdl", "e2e-qwen", "--wait=false") })

	var tpl string
	eventually(t, 30*time.Second, "the model's template", func() error {
		out := strings.TrimSpace(k.must("get", "aimcltpl", "-l", "aim.eai.amd.com/model=e2e-qwen", "-o", "name"))
		if out == "" {
			return fmt.Errorf("no template yet")
		}
		tpl = strings.TrimPrefix(out, "aimclusterservicetemplate.aim.eai.amd.com/")
		return nil
	})
	spec := k.must("get", "aimcltpl", tpl, "-o", "jsonpath={.spec.modelName} {.spec.metric} {.spec.precision} {.spec.hardware.gpu.model} {.spec.hardware.gpu.requests} {.spec.profileId} {.metadata.ownerReferences[0].kind}")
	if spec != "e2e-qwen latency fp8 MI300X 1 p-lat AIMClusterModel" {
		t.Errorf("template spec: %q", spec)
	}
	// Labels: the model's aim.eai.amd.com/ labels reach its template and the template's discovery Job.
	if got := k.must("get", "aimcltpl", tpl, "-o", `jsonpath={.metadata.labels.aim\.eai\.amd\.com/team} {.metadata.labels.aim\.eai\.amd\.com/cluster-model\.name} {.metadata.labels.app\.kubernetes\.io/managed-by}`); got != "inference e2e-qwen aim-apiserver" {
		t.Errorf("template labels: %q", got)
	}
	// aim-engine's condition names for cluster kinds.
	jsonpathEquals(t, 30*time.Second, "True", "aimcltpl", tpl, "-o", `jsonpath={.status.conditions[?(@.type=="ClusterModelReady")].status}`)
	jsonpathSet(t, 30*time.Second, "aimclmdl", "e2e-qwen", "-o", `jsonpath={.status.conditions[?(@.type=="ClusterServiceTemplatesReady")].reason}`)
	job, pod := discoveryPod(t, tpl, 1)
	if got := k.must("get", "job", job, "-n", systemNamespace, "-o", `jsonpath={.metadata.labels.aim\.eai\.amd\.com/team}`); got != "inference" {
		t.Errorf("discovery Job label: %q", got)
	}
	contains(t, "discovery env", k.must("get", "pod", pod, "-n", systemNamespace, "-o", "jsonpath={.spec.containers[0].env}"), "AIM_PROFILE_ID", "p-lat")
	finishPod(t, pod, discoveryOutput)
	k.must("wait", "--for=condition=Ready", "aimcltpl/"+tpl, "--timeout=60s")
	contains(t, "template", k.must("get", "aimcltpl", tpl), "Ready", "1 x MI300X")
	k.must("wait", "--for=condition=Ready", "aimclmdl/e2e-qwen", "--timeout=60s")
	contains(t, "model", k.must("get", "aimclmdl", "e2e-qwen"), "Ready", "Image", "Qwen/Qwen3-32B")

	// A hand edit of a label the model controller sets on its template is reverted (the template's event
	// re-queues its model; the edited template no longer holds the applied fields).
	k.must("label", "aimcltpl", tpl, "aim.eai.amd.com/team=edited-by-hand", "--overwrite")
	jsonpathEquals(t, 30*time.Second, "inference", "aimcltpl", tpl, "-o", `jsonpath={.metadata.labels.aim\.eai\.amd\.com/team}`)

	// A foreground deletion (kubectl's --cascade=foreground, Argo CD's default) ends, and the controller does not
	// apply the template again while the garbage collector deletes it before the model (blockOwnerDeletion).
	applies := func() float64 {
		return writes(aimMetrics(t), `resource="aimclusterservicetemplates"`, `subresource=""`, `verb="APPLY"`)
	}
	before := applies()
	k.must("delete", "aimclmdl", "e2e-qwen", "--cascade=foreground", "--timeout=60s")
	eventually(t, 30*time.Second, "the model's templates gone", func() error {
		if out := strings.TrimSpace(k.must("get", "aimcltpl", "-l", "aim.eai.amd.com/model=e2e-qwen", "-o", "name")); out != "" {
			return fmt.Errorf("left: %s", out)
		}
		return nil
	})
	if n := applies() - before; n != 0 {
		t.Errorf("%v applies of templates while their model was being deleted", n)
	}
}

// TestImageLabelsFromRegistry serves an AIM image from an in-process registry on loopback that requires a
// password, and checks the model reads its labels with the pull secret.
func TestImageLabelsFromRegistry(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-registry")
	const user, pass = "aim", "s3cret"
	// Reads of the manifest with the credentials: the labels are read once.
	reg, requests := registrytest.Counting(registrytest.BasicAuth(user, pass, registry.New()), func(r *http.Request) string {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/manifests/") && r.Header.Get("Authorization") != "" {
			return "read"
		}
		return ""
	})
	host := loopbackRegistry(t, reg)

	img, err := random.Image(64, 1)
	must(t, err)
	cfg, err := img.ConfigFile()
	must(t, err)
	cfg.Config.Labels = map[string]string{
		"com.amd.aim.model.canonicalName":          "meta-llama/Llama-3.1-8B-Instruct",
		"com.amd.aim.model.tags":                   "chat, llama",
		"com.amd.aim.hfToken.required":             "true",
		"com.amd.aim.model.recommendedDeployments": `[{'gpuModel': 'MI325X', 'gpuCount': 1, 'precision': 'fp16', 'metric': 'throughput'}]`,
		"org.opencontainers.image.version":         "0.8.5",
	}
	img, err = mutate.ConfigFile(img, cfg)
	must(t, err)
	ref, err := name.ParseReference(host + "/amd/aim-llama:0.8.5")
	must(t, err)
	must(t, remote.Write(ref, img, remote.WithAuth(&authn.Basic{Username: user, Password: pass})))

	model := fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: llama, namespace: %s}
spec:
  image: %s/amd/aim-llama:0.8.5
  imagePullSecrets: [{name: regcred}]
`, ns, host)
	// Without the secret the model waits for it.
	k.mustApply(model)
	eventually(t, 30*time.Second, "SecretNotFound", func() error {
		out := k.must("get", "aimmdl", "llama", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="ImageMetadataReady")].reason}`)
		if out != "SecretNotFound" {
			return fmt.Errorf("%q", out)
		}
		return nil
	})
	k.must("create", "secret", "docker-registry", "regcred", "-n", ns, "--docker-server", host, "--docker-username", user, "--docker-password", pass)
	k.must("annotate", "aimmdl", "llama", "-n", ns, "e2e/poke=1") // a watch event: the model re-checks now
	eventually(t, 60*time.Second, "labels read", func() error {
		out := k.must("get", "aimmdl", "llama", "-n", ns, "-o", "jsonpath={.status.imageMetadata.model.canonicalName}|{.status.imageMetadata.model.tags}|{.status.imageMetadata.model.hfTokenRequired}|{.status.imageMetadata.oci.version}")
		if out != `meta-llama/Llama-3.1-8B-Instruct|["chat","llama"]|true|0.8.5` {
			return fmt.Errorf("%q", out)
		}
		return nil
	})
	eventually(t, 30*time.Second, "template from the labels", func() error {
		out := k.must("get", "aimtpl", "-n", ns, "-l", "aim.eai.amd.com/model=llama", "-o", "jsonpath={.items[*].spec.hardware.gpu.model} {.items[*].spec.metric}")
		if out != "MI325X throughput" {
			return fmt.Errorf("%q", out)
		}
		return nil
	})
	// The template's events come before the model's own status write: no reconcile takes the model for one
	// whose labels were never read. A status write the API refused (409: the annotation above raced a reconcile
	// that started from the cache before it) may lose what that reconcile read, and the next reads again, as
	// aim-engine's would: at most one read more per refused write.
	conflicts := statusConflicts(t, "aimmodels", ns, "llama")
	if n := requests.Get("read"); n < 1 || n > 1+conflicts {
		t.Errorf("the manifest was read %d times with the pull secret, want once (plus up to %d for refused status writes)", n, conflicts)
	}
}

// statusConflicts counts the status writes of an object that aim-apiserver refused with 409, from its audit log.
func statusConflicts(t *testing.T, resource, ns, name string) int {
	t.Helper()
	n := 0
	for _, e := range auditEntries(t, []string{`"ResponseComplete"`, ns}, filepath.Join(localDir, "logs", "aim-apiserver-audit.log")) {
		if r := e.ObjectRef; e.Stage == "ResponseComplete" && e.ResponseStatus.Code == 409 && r != nil &&
			r.Resource == resource && r.Namespace == ns && r.Name == name && r.Subresource == "status" {
			n++
		}
	}
	return n
}

// TestCustomTemplatesCarryAliasAndMergedHardware: a custom model's named custom templates carry aim-engine's
// alias label, which users select them by, and their hardware merged field by field over spec.custom.hardware.
func TestCustomTemplatesCarryAliasAndMergedHardware(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-custom-tpl")
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: mine, namespace: %s}
spec:
  image: registry.example/aim/base:1.0
  modelSources: [{modelId: org/mine, sourceUri: "hf://org/mine", size: 1Gi}]
  custom: {hardware: {gpu: {requests: 1, model: MI300X}}}
  customTemplates:
  - name: wide
    hardware: {gpu: {requests: 4}}
`, ns))
	tpl := onlyOne(t, 30*time.Second, "aimtpl", ns, "aim.eai.amd.com/template.alias=wide")
	jsonpathEquals(t, 10*time.Second, "4 MI300X mine", "aimtpl", tpl, "-n", ns, "-o",
		"jsonpath={.spec.hardware.gpu.requests} {.spec.hardware.gpu.model} {.metadata.labels.aim\\.eai\\.amd\\.com/model}")
}

// TestLongModelNameGetsItsTemplates: a model named with 200 characters (names may have 253, label values 63)
// gets its templates, labelled with a valid value that its lookups select by.
func TestLongModelNameGetsItsTemplates(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-long-model")
	name := strings.Repeat("long-model-", 18) + "xx"
	if len(name) != 200 {
		t.Fatalf("name of %d characters", len(name))
	}
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: %s, namespace: %s}
spec:
  image: registry.example/aim/base:1.0
  modelSources: [{modelId: org/long, sourceUri: "hf://org/long", size: 1Gi}]
  custom: {hardware: {gpu: {requests: 1, model: MI300X}}}
  customTemplates: [{name: wide, hardware: {gpu: {requests: 4}}}]
`, name, ns))
	tpl := onlyOne(t, 30*time.Second, "aimtpl", ns, "aim.eai.amd.com/template.alias=wide")
	jsonpathEquals(t, 10*time.Second, name, "aimtpl", tpl, "-n", ns, "-o", "jsonpath={.spec.modelName}")
}

// TestCustomModelDifferingOnlyInSizeIsShared: a second service whose custom model differs from the first's only
// in size uses the model the first made (its name hashes the image, model id and URI, as aim-engine's does) and
// gets past CreatingModel within a minute.
func TestCustomModelDifferingOnlyInSizeIsShared(t *testing.T) {
	ns := namespace(t, "e2e-custom-size")
	custom := func(size string) string {
		return fmt.Sprintf(`
  model:
    custom:
      baseImage: registry.example/aim/base:1.0
      modelSources: [{modelId: org/sized, sourceUri: "hf://org/sized", size: %s}]
      hardware: {gpu: {requests: 1}}
  caching: {mode: Never}
`, size)
	}
	applyService(t, ns, "first", custom("1Gi"))
	model := jsonpathSet(t, 60*time.Second, "aimsvc", "first", "-n", ns, "-o", "jsonpath={.status.resolvedModel.name}")
	applyService(t, ns, "second", custom("2Gi"))
	jsonpathEquals(t, 60*time.Second, model, "aimsvc", "second", "-n", ns, "-o", "jsonpath={.status.resolvedModel.name}")
	if reason := condition(admin(t), "aimsvc/second", ns, "ModelReady", "reason"); reason == "CreatingModel" {
		t.Errorf("second service still ModelReady/CreatingModel")
	}
	if out := strings.Fields(admin(t).must("get", "aimmdl", "-n", ns, "-o", "name")); len(out) != 1 {
		t.Errorf("models: %v, want the one both services use", out)
	}
}
