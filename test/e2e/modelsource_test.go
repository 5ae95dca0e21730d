//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"log"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/modelsource"
)

// TestClusterModelSource lists an in-process registry on loopback: a source with a versioned filter and a
// wildcard filter creates one model per selected image; a source with maxModels 2 creates exactly 2 and says
// the limit was reached; a wildcard on Docker Hub fails visibly. Settled sources are not written again.
func TestClusterModelSource(t *testing.T) {
	k := admin(t)
	host := loopbackRegistry(t, registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	port := host[strings.LastIndex(host, ":")+1:]
	for _, ref := range []string{"aim/qwen:0.8.4", "aim/qwen:0.8.5", "aim/qwen:0.9.0", "aim/qwen:latest", "aim/llama:1.0.0"} {
		img, err := random.Image(64, 1)
		must(t, err)
		r, err := name.ParseReference(host + "/" + ref)
		must(t, err)
		must(t, remote.Write(r, img))
	}

	source := func(name, spec string) {
		t.Helper()
		k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterModelSource\nmetadata: {name: %s}\nspec:\n%s", name, spec))
		t.Cleanup(func() {
			_, _ = k.run("", "delete", "aimclsrc", name, "--wait=false")
			// Models are cluster-scoped: delete them rather than wait for the garbage collector.
			_, _ = k.run("", "delete", "aimclmdl", "-l", "aim.eai.amd.com/model-source="+name, "--wait=false")
		})
	}
	// models lists "name image" of the models a source created, sorted.
	models := func(source string) []string {
		out := k.must("get", "aimclmdl", "-l", "aim.eai.amd.com/model-source="+source, "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.spec.image}{"\n"}{end}`)
		lines := strings.Fields(strings.ReplaceAll(strings.TrimSpace(out), " ", "|"))
		slices.Sort(lines)
		return lines
	}
	expect := func(registry string, refs ...string) []string {
		var out []string
		for _, ref := range refs {
			repo, tag, _ := strings.Cut(ref, ":")
			img := modelsource.Image{Registry: registry, Repository: repo, Tag: tag}
			out = append(out, modelsource.ModelName(img)+"|"+img.Reference())
		}
		slices.Sort(out)
		return out
	}
	status := func(source string) string {
		return k.must("get", "aimclsrc", source, "-o",
			"jsonpath={.status.status} {.status.discoveredModels} {.status.availableModels} {.status.modelsLimitReached}")
	}

	// Versions on one filter, a wildcard with an exclude on the other.
	source("e2e-src-all", fmt.Sprintf(`  registry: %s
  filters:
  - image: aim/qwen
    versions: [">=0.8.5"]
  - image: aim/*
    exclude: [aim/qwen]
`, host))
	want := expect(host, "aim/qwen:0.8.5", "aim/qwen:0.9.0", "aim/llama:1.0.0")
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
	wantMax := expect(local, "aim/llama:1.0.0", "aim/qwen:0.9.0")
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
}
