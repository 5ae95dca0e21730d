//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/modelsource"
	"github.com/aim-apiserver/aim-apiserver/test/registrytest"
)

// TestClusterModelSource lists an in-process registry on loopback: a source with a versioned filter and a
// wildcard filter creates one model per selected image; a source with maxModels 2 creates exactly 2 and says
// the limit was reached; a wildcard on Docker Hub fails visibly. Settled sources are not written again, and each
// listed its registry once.
func TestClusterModelSource(t *testing.T) {
	k := admin(t)
	// Tag listings by the host name a source uses: each source here lists its registry once.
	reg, listings := registrytest.Counting(registry.New(registry.Logger(log.New(io.Discard, "", 0))), func(r *http.Request) string {
		if strings.HasSuffix(r.URL.Path, "/aim/qwen/tags/list") {
			return r.Host
		}
		return ""
	})
	host := loopbackRegistry(t, reg)
	port := host[strings.LastIndex(host, ":")+1:]
	pushImages(t, host, "aim/qwen:0.8.4", "aim/qwen:0.8.5", "aim/qwen:0.9.0", "aim/qwen:latest", "aim/llama:1.0.0")

	source := func(name, spec string) { applySource(t, name, spec) }
	models := func(source string) []string { return sourceModels(t, "aim.eai.amd.com/model-source="+source) }
	status := func(source string) string { return sourceStatus(t, source) }

	// Versions on one filter, a wildcard with an exclude on the other.
	source("e2e-src-all", fmt.Sprintf(`  registry: %s
  filters:
  - image: aim/qwen
    versions: [">=0.8.5"]
  - image: aim/*
    exclude: [aim/qwen]
`, host))
	want := expectedModels(host, "aim/qwen:0.8.5", "aim/qwen:0.9.0", "aim/llama:1.0.0")
	eventually(t, 60*time.Second, "models of e2e-src-all", func() error {
		if got := models("e2e-src-all"); !slices.Equal(got, want) {
			return fmt.Errorf("models %v, want %v", got, want)
		}
		if got := status("e2e-src-all"); got != "Ready 3 3 " && got != "Ready 3 3 false" {
			return fmt.Errorf("status %q", got)
		}
		return nil
	})
	m := strings.Split(want[0], "|")[0]
	got := k.must("get", "aimclmdl", m, "-o", `jsonpath={.metadata.labels.aim\.eai\.amd\.com/origin} {.metadata.labels.app\.kubernetes\.io/managed-by} {.metadata.annotations.aim\.eai\.amd\.com/source-registry} {.metadata.annotations.aim\.eai\.amd\.com/source-repository} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}`)
	if wantMeta := "auto-generated aim-apiserver " + host + " aim/llama AIMClusterModelSource/e2e-src-all"; got != wantMeta {
		t.Errorf("model %s metadata %q, want %q", m, got, wantMeta)
	}
	contains(t, "source table", k.must("get", "aimclsrc", "e2e-src-all"), "Ready", "3")

	// maxModels 2: the first two in order (repository, then newest version). Another host name of the same
	// registry gives other model names, so this source does not meet the first one's models.
	local := "localhost:" + port
	source("e2e-src-max", fmt.Sprintf(`  registry: %s
  maxModels: 2
  filters:
  - image: aim/*
`, local))
	wantMax := expectedModels(local, "aim/llama:1.0.0", "aim/qwen:0.9.0")
	eventually(t, 60*time.Second, "models of e2e-src-max", func() error {
		if got := models("e2e-src-max"); !slices.Equal(got, wantMax) {
			return fmt.Errorf("models %v, want %v", got, wantMax)
		}
		if got := status("e2e-src-max"); got != "Ready 2 5 true" {
			return fmt.Errorf("status %q", got)
		}
		return nil
	})

	// Docker Hub lists repositories by namespace: a wildcard without its namespace is the user's to fix, said in
	// the condition, without a request.
	source("e2e-src-hub", "  filters:\n  - image: \"*/aim-*\"\n")
	eventually(t, 30*time.Second, "e2e-src-hub Failed", func() error {
		got := k.must("get", "aimclsrc", "e2e-src-hub", "-o", `jsonpath={.status.status} {.status.conditions[?(@.type=="FiltersReady")].reason}`)
		if got != "Failed AllFiltersFailed" {
			return fmt.Errorf("%q", got)
		}
		return nil
	})
	contains(t, "condition message", k.must("get", "aimclsrc", "e2e-src-hub", "-o", `jsonpath={.status.conditions[?(@.type=="FiltersReady")].message}`),
		"docker.io", "write the namespace out", "amdenterpriseai/aim-*")

	// Settled: resyncs (every few seconds here) and model events neither list nor write.
	rv := func() string {
		return k.must("get", "aimclsrc", "e2e-src-all", "e2e-src-max", "e2e-src-hub", "-o", `jsonpath={.items[*].metadata.resourceVersion}`)
	}
	before := rv()
	consistently(t, 8*time.Second, "settled sources are not written", func() error {
		if after := rv(); after != before {
			return fmt.Errorf("resourceVersions %s -> %s", before, after)
		}
		return nil
	})
	// One sync each: the events of the models a sync creates, seen after its status, list nothing again.
	if all, limited := listings.Get(host), listings.Get(local); all != 1 || limited != 1 {
		t.Errorf("aim/qwen's tags listed %d times by e2e-src-all and %d by e2e-src-max, want once each", all, limited)
	}
}

// applySource applies an AIMClusterModelSource and deletes it, and the models it made, when the test ends.
func applySource(t *testing.T, name, spec string) {
	t.Helper()
	k := admin(t)
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterModelSource\nmetadata: {name: %s}\nspec:\n%s", name, spec))
	t.Cleanup(func() {
		_, _ = k.run("", "delete", "aimclsrc", name, "--wait=false")
		// Models are cluster-scoped: delete them rather than wait for the garbage collector.
		_, _ = k.run("", "delete", "aimclmdl", "-l", "aim.eai.amd.com/model-source="+name, "--wait=false")
	})
}

// sourceModels lists "name|image" of the cluster models a label selector selects, sorted.
func sourceModels(t *testing.T, selector string) []string {
	t.Helper()
	out := admin(t).must("get", "aimclmdl", "-l", selector, "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.spec.image}{"\n"}{end}`)
	lines := strings.Fields(strings.ReplaceAll(strings.TrimSpace(out), " ", "|"))
	slices.Sort(lines)
	return lines
}

// expectedModels are the "name|image" of the models a source of registry makes for refs (repository:tag).
func expectedModels(registry string, refs ...string) []string {
	var out []string
	for _, ref := range refs {
		repo, tag, _ := strings.Cut(ref, ":")
		img := modelsource.Image{Registry: registry, Repository: repo, Tag: tag}
		out = append(out, modelsource.ModelName(img)+"|"+img.Reference())
	}
	slices.Sort(out)
	return out
}

const sourceStatusPath = "jsonpath={.status.status} {.status.discoveredModels} {.status.availableModels} {.status.modelsLimitReached}"

// sourceStatus is a source's status, discovered and available model counts and whether maxModels was reached.
func sourceStatus(t *testing.T, source string) string {
	t.Helper()
	return admin(t).must("get", "aimclsrc", source, "-o", sourceStatusPath)
}

// pushImages writes a small random image for each ref (repository:tag) into the registry at host.
func pushImages(t *testing.T, host string, refs ...string) {
	t.Helper()
	for _, ref := range refs {
		img, err := random.Image(64, 1)
		must(t, err)
		r, err := name.ParseReference(host + "/" + ref)
		must(t, err)
		must(t, remote.Write(r, img))
	}
}

// TestModelSourceListsDockerHubAndGhcr: AMD's canonical sources, a wildcard over a Docker Hub namespace and over
// a ghcr.io organization, listed as aim-engine lists them: Hub's repositories API (followed over its pages) and
// GitHub's packages API with the token of the source's pull secret, then each repository's tags over the
// registry API. The shipped binary reaches the public hosts, which the test plays behind the harness's egress
// proxy. The models carry the source's labels; maxModels gives MaxModelsLimitReached=True/LimitReached.
func TestModelSourceListsDockerHubAndGhcr(t *testing.T) {
	k := admin(t)
	const org, user, token = "amd-e2e", "e2e-bot", "ghp_e2eToken0123456789"

	hubRegistry := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	pushImages(t, loopbackRegistry(t, hubRegistry), "amdenterpriseai/aim-qwen:0.8.5", "amdenterpriseai/aim-llama:0.8.5",
		"amdenterpriseai/aim-mistral:0.9.0", "amdenterpriseai/tools:1.0.0")
	hub := http.NewServeMux()
	hub.HandleFunc("GET /v2/namespaces/amdenterpriseai/repositories", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("page") == "2" {
			fmt.Fprint(w, `{"count":4,"next":null,"results":[{"name":"aim-mistral"},{"name":"tools"}]}`)
			return
		}
		fmt.Fprint(w, `{"count":4,"next":"https://hub.docker.com/v2/namespaces/amdenterpriseai/repositories?page=2&page_size=100",`+
			`"results":[{"name":"aim-qwen"},{"name":"aim-llama"}]}`)
	})

	ghcrRegistry := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	pushImages(t, loopbackRegistry(t, ghcrRegistry), org+"/aim-qwen:1.0.0", org+"/aim-llama:1.0.0", org+"/site:1.0.0")
	github := http.NewServeMux()
	github.HandleFunc("GET /orgs/"+org+"/packages", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"message":"Requires authentication"}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Query().Get("package_type") != "container" || r.URL.Query().Get("page") != "1" {
			fmt.Fprint(w, "[]")
			return
		}
		fmt.Fprint(w, `[{"name":"aim-qwen","package_type":"container"},{"name":"aim-llama","package_type":"container"},{"name":"site","package_type":"container"}]`)
	})

	e := startEgress(t, map[string]http.Handler{
		"hub.docker.com": hub, "index.docker.io": hubRegistry, "registry-1.docker.io": hubRegistry,
		"api.github.com": github, "ghcr.io": registrytest.BasicAuth(user, token, ghcrRegistry),
	})
	k.must("-n", systemNamespace, "create", "secret", "docker-registry", "e2e-ghcr", "--docker-server=ghcr.io",
		"--docker-username="+user, "--docker-password="+token)
	t.Cleanup(func() { _, _ = k.run("", "-n", systemNamespace, "delete", "secret", "e2e-ghcr") })

	applySource(t, "e2e-src-dockerhub", "  filters:\n  - image: amdenterpriseai/aim-*\n")
	applySource(t, "e2e-src-ghcr", "  registry: ghcr.io\n  imagePullSecrets: [{name: e2e-ghcr}]\n  maxModels: 1\n  filters:\n  - image: "+org+"/aim-*\n")

	bySource := func(source string) []string {
		return sourceModels(t, "aim.eai.amd.com/cluster-model-source.name="+source)
	}
	wantHub := expectedModels(aimv1.DefaultRegistry, "amdenterpriseai/aim-qwen:0.8.5", "amdenterpriseai/aim-llama:0.8.5", "amdenterpriseai/aim-mistral:0.9.0")
	wantGhcr := expectedModels("ghcr.io", org+"/aim-llama:1.0.0") // the first in order: repository, then newest version
	eventually(t, 90*time.Second, "models of both sources", func() error {
		if got := bySource("e2e-src-dockerhub"); !slices.Equal(got, wantHub) {
			return fmt.Errorf("Docker Hub models %v, want %v (status %q)", got, wantHub, sourceStatus(t, "e2e-src-dockerhub"))
		}
		if got := bySource("e2e-src-ghcr"); !slices.Equal(got, wantGhcr) {
			return fmt.Errorf("ghcr.io models %v, want %v (status %q)", got, wantGhcr, sourceStatus(t, "e2e-src-ghcr"))
		}
		return nil
	})
	jsonpathEquals(t, 30*time.Second, "Ready 3 3 ", "aimclsrc", "e2e-src-dockerhub", "-o", sourceStatusPath)
	jsonpathEquals(t, 30*time.Second, "Ready 1 2 true", "aimclsrc", "e2e-src-ghcr", "-o", sourceStatusPath)
	conditionReads(t, "aimclsrc/e2e-src-dockerhub", "", "FiltersReady", "True AllFiltersSucceeded")
	conditionReads(t, "aimclsrc/e2e-src-dockerhub", "", "MaxModelsLimitReached", "False WithinLimit")
	conditionReads(t, "aimclsrc/e2e-src-ghcr", "", "FiltersReady", "True AllFiltersSucceeded")
	conditionReads(t, "aimclsrc/e2e-src-ghcr", "", "MaxModelsLimitReached", "True LimitReached")

	// Hub's second page was followed; GitHub's API got the pull secret's token, the registry its login.
	if !slices.ContainsFunc(e.requests("hub.docker.com"), func(r egressRequest) bool { return strings.Contains(r.Query, "page=2") }) {
		t.Errorf("Docker Hub's second page was not read: %+v", e.requests("hub.docker.com"))
	}
	for host, scheme := range map[string]string{"api.github.com": "Bearer", "ghcr.io": "Basic"} {
		if !slices.ContainsFunc(e.requests(host), func(r egressRequest) bool { return r.Authorization == scheme }) {
			t.Errorf("%s saw no %s credentials: %+v", host, scheme, e.requests(host))
		}
	}
	m := strings.Split(wantGhcr[0], "|")[0]
	got := k.must("get", "aimclmdl", m, "-o", `jsonpath={.metadata.labels.aim\.eai\.amd\.com/cluster-model-source\.name} {.metadata.labels.aim\.eai\.amd\.com/origin} {.metadata.annotations.aim\.eai\.amd\.com/source-registry} {.metadata.annotations.aim\.eai\.amd\.com/source-repository}`)
	if want := "e2e-src-ghcr auto-generated ghcr.io " + org + "/aim-llama"; got != want {
		t.Errorf("model %s labels and annotations %q, want %q", m, got, want)
	}
}
