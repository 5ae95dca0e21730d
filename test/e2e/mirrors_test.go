//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// useMirrors writes the registry configuration the harness's aim-apiserver reads (--registry-config; it reads
// the file again when it changes) and puts the empty one back when the test ends.
func useMirrors(t *testing.T, yaml string) {
	t.Helper()
	path := filepath.Join(localDir, "registries.yaml")
	must(t, os.WriteFile(path, []byte(yaml), 0o600))
	t.Cleanup(func() { _ = os.WriteFile(path, []byte("registries: {}\n"), 0o600) })
}

// dockerHubMirror serves an in-process OCI registry on loopback holding AIM images under the proxy project
// "dockerhub-proxy", as a Harbor proxy cache of Docker Hub lays them out, and returns its host.
func dockerHubMirror(t *testing.T, refs ...string) string {
	t.Helper()
	host := loopbackRegistry(t, registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	for _, ref := range refs {
		img, err := random.Image(64, 1)
		must(t, err)
		cfg, err := img.ConfigFile()
		must(t, err)
		cfg.Config.Labels = map[string]string{
			"com.amd.aim.model.canonicalName":          "org/" + ref[strings.LastIndex(ref, "/")+1:strings.Index(ref, ":")],
			"com.amd.aim.model.recommendedDeployments": `[{'gpuModel': 'MI300X', 'gpuCount': 1, 'precision': 'fp16', 'metric': 'latency'}]`,
		}
		img, err = mutate.ConfigFile(img, cfg)
		must(t, err)
		r, err := name.ParseReference(host + "/dockerhub-proxy/" + ref)
		must(t, err)
		must(t, remote.Write(r, img))
	}
	return host
}

// TestMirrorServesDockerHub: with a loopback registry configured as the mirror of docker.io, a model whose image
// says docker.io/amdenterpriseai/... gets its recommended deployments from the mirror's labels and makes its
// templates, its status names the mirror, and a model source with amdenterpriseai/aim-* lists the mirror (Docker
// Hub's own API is not asked). The harness allows no registry but loopback (--image-metadata-registries), so
// Docker Hub itself is never contacted for labels.
func TestMirrorServesDockerHub(t *testing.T) {
	k := admin(t)
	host := dockerHubMirror(t, "amdenterpriseai/aim-e2e-mirror:0.8.5", "amdenterpriseai/aim-e2e-other:1.0.0", "someone/aim-e2e-else:1.0.0")
	mirror := "http://" + host + "/dockerhub-proxy"
	useMirrors(t, fmt.Sprintf("registries:\n  docker.io:\n    mirrors: [{endpoint: %q, capabilities: [pull, resolve, list]}]\n", mirror))

	ns := namespace(t, "e2e-mirror")
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMModel\nmetadata: {name: mirrored, namespace: %s}\nspec: {image: docker.io/amdenterpriseai/aim-e2e-mirror:0.8.5}\n", ns))
	jsonpathEquals(t, 60*time.Second, "True org/aim-e2e-mirror; labels read from the mirror "+mirror, "aimmdl", "mirrored", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="ImageMetadataReady")].status} {.status.conditions[?(@.type=="ImageMetadataReady")].message}`)
	eventually(t, 30*time.Second, "template from the mirror's labels", func() error {
		out := k.must("get", "aimtpl", "-n", ns, "-l", "aim.eai.amd.com/model=mirrored", "-o", "jsonpath={.items[*].spec.hardware.gpu.model} {.items[*].spec.metric}")
		if out != "MI300X latency" {
			return fmt.Errorf("%q", out)
		}
		return nil
	})

	k.mustApply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterModelSource\nmetadata: {name: e2e-mirrored-hub}\nspec:\n  registry: docker.io\n  filters: [{image: amdenterpriseai/aim-e2e-*}]\n")
	t.Cleanup(func() {
		_, _ = k.run("", "delete", "aimclsrc", "e2e-mirrored-hub", "--wait=false")
		_, _ = k.run("", "delete", "aimclmdl", "-l", "aim.eai.amd.com/model-source=e2e-mirrored-hub", "--wait=false")
	})
	jsonpathEquals(t, 60*time.Second, "amdenterpriseai/aim-e2e-mirror:0.8.5 amdenterpriseai/aim-e2e-other:1.0.0", "aimclmdl",
		"-l", "aim.eai.amd.com/model-source=e2e-mirrored-hub", "--sort-by", ".spec.image", "-o", "jsonpath={.items[*].spec.image}")
	conditionReads(t, "aimclsrc/e2e-mirrored-hub", "", "FiltersReady", "True AllFiltersSucceeded")
	if msg := k.must("get", "aimclsrc", "e2e-mirrored-hub", "-o", `jsonpath={.status.conditions[?(@.type=="FiltersReady")].message}`); !strings.HasSuffix(msg, "listed through the mirror "+mirror) {
		t.Errorf("FiltersReady names not the mirror: %q", msg)
	}
}

// TestNextMirrorAnswers: with the first mirror down the second answers; with every mirror down (and no fallback)
// the model is RegistryUnreachable with each endpoint tried named in the message.
func TestNextMirrorAnswers(t *testing.T) {
	k := admin(t)
	host := dockerHubMirror(t, "amdenterpriseai/aim-e2e-second:0.8.5")
	second := "http://" + host + "/dockerhub-proxy"
	useMirrors(t, fmt.Sprintf("registries:\n  docker.io:\n    mirrors: [{endpoint: \"http://127.0.0.1:1\"}, {endpoint: %q}]\n", second))
	ns := namespace(t, "e2e-mirror-next")
	model := func(name string) {
		k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMModel\nmetadata: {name: %s, namespace: %s}\nspec: {image: docker.io/amdenterpriseai/aim-e2e-second:0.8.5}\n", name, ns))
	}
	model("second")
	jsonpathEquals(t, 60*time.Second, "True org/aim-e2e-second; labels read from the mirror "+second, "aimmdl", "second", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="ImageMetadataReady")].status} {.status.conditions[?(@.type=="ImageMetadataReady")].message}`)

	useMirrors(t, "registries:\n  docker.io:\n    fallback: false\n    mirrors: [{endpoint: \"http://127.0.0.1:1\"}, {endpoint: \"http://127.0.0.1:2/proxy\"}]\n")
	model("none")
	conditionReads(t, "aimmdl/none", ns, "ImageMetadataReady", "False RegistryUnreachable")
	msg := condition(k, "aimmdl/none", ns, "ImageMetadataReady", "message")
	for _, endpoint := range []string{"http://127.0.0.1:1:", "http://127.0.0.1:2/proxy:"} {
		if !strings.Contains(msg, endpoint) {
			t.Errorf("the message names not %s: %s", endpoint, msg)
		}
	}
}

// TestRewriteImages: with rewriteImages on, the discovery Job and the InferenceService run the image as the
// first mirror that pulls it names it; turned off, the InferenceService goes back to the model's image.
func TestRewriteImages(t *testing.T) {
	const mirror = "mirror.example/proxy"
	useMirrors(t, "rewriteImages: true\nregistries:\n  registry.example:\n    mirrors: [{endpoint: \"https://"+mirror+"\"}]\n")
	gpuNode(t, "e2e-rewrite-node", map[string]string{"amd.com/gpu.device-id": "74a1"}, 8)
	clusterTemplate(t, "e2e-rewrite", "MI300X")
	job, pod := discoveryPod(t, "e2e-rewrite", 1)
	jsonpathEquals(t, 10*time.Second, mirror+"/aim/e2e-rewrite:1.0", "job", job, "-n", systemNamespace, "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	finishPod(t, pod, discoveryOutput)
	admin(t).must("wait", "--for=condition=Ready", "aimcltpl/e2e-rewrite", "--timeout=60s")

	ns := namespace(t, "e2e-rewrite")
	applyService(t, ns, "mirrored", "model: {name: e2e-rewrite-model}")
	downloadCaches(t, ns, 1)
	isvc := inferenceServiceName(ns, "mirrored")
	jsonpathEquals(t, 60*time.Second, mirror+"/aim/e2e-rewrite:1.0", "inferenceservice", isvc, "-n", ns, "-o", "jsonpath={.spec.predictor.containers[0].image}")

	useMirrors(t, "rewriteImages: false\nregistries:\n  registry.example:\n    mirrors: [{endpoint: \"https://"+mirror+"\"}]\n")
	jsonpathEquals(t, 60*time.Second, "registry.example/aim/e2e-rewrite:1.0", "inferenceservice", isvc, "-n", ns, "-o", "jsonpath={.spec.predictor.containers[0].image}")
}
