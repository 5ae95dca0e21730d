//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// discoveryJobWatch follows the discovery Jobs of templates whose name starts with prefix through a watch and
// records the most that were unfinished at once, event by event.
type discoveryJobWatch struct {
	mu      sync.Mutex
	active  map[string]bool
	seen    map[string]bool
	maxSeen int
}

func (w *discoveryJobWatch) event(typ string, job map[string]any, prefix string) {
	meta, _ := job["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if tpl, _ := labels["aim.eai.amd.com/template"].(string); !strings.HasPrefix(tpl, prefix) {
		return
	}
	name, _ := meta["name"].(string)
	finished := false
	status, _ := job["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if (cm["type"] == "Complete" || cm["type"] == "Failed") && cm["status"] == "True" {
			finished = true
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[name] = true
	if typ == "DELETED" || finished {
		delete(w.active, name)
	} else {
		w.active[name] = true
	}
	w.maxSeen = max(w.maxSeen, len(w.active))
}

// TestDiscoveryJobLimitHolds: ten templates under a runtime config with maxConcurrentJobs 2 never have more than
// two discovery Jobs unfinished at once, as a watch on the Jobs sees it, and all ten get discovered.
func TestDiscoveryJobLimitHolds(t *testing.T) {
	k := admin(t)
	const prefix, n = "e2e-limit-", 10
	gpuNode(t, "e2e-limit", map[string]string{"amd.com/gpu.device-id": "74a1"}, 8)
	k.mustApply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterRuntimeConfig\nmetadata: {name: e2e-limit}\nspec: {discovery: {maxConcurrentJobs: 2}}\n")
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclrc", "e2e-limit", "--wait=false") })

	// The limit counts every unfinished discovery Job in the cluster (as aim-engine's does): wait until
	// earlier tests' Jobs are finished or collected, so that two slots are free.
	eventually(t, 90*time.Second, "no other unfinished discovery Job", func() error {
		out := k.must("get", "jobs", "-A", "-l", "app.kubernetes.io/name=aim-discovery", "-o",
			`jsonpath={range .items[?(@.status.active)]}{.metadata.namespace}/{.metadata.name} {end}`)
		if strings.TrimSpace(out) != "" {
			return fmt.Errorf("unfinished: %s", out)
		}
		return nil
	})
	watch := &discoveryJobWatch{active: map[string]bool{}, seen: map[string]bool{}}
	cmd := exec.Command(kubectlBin, "--kubeconfig", adminKC, "get", "jobs", "-n", systemNamespace, "-l", "aim.eai.amd.com/template",
		"--watch", "--output-watch-events", "-o", "json")
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	done := make(chan struct{})
	go func() {
		defer close(done)
		dec := json.NewDecoder(stdout)
		for {
			var ev struct {
				Type   string         `json:"type"`
				Object map[string]any `json:"object"`
			}
			if err := dec.Decode(&ev); err != nil {
				if err != io.EOF {
					t.Logf("job watch ended: %v", err)
				}
				return
			}
			watch.event(ev.Type, ev.Object, prefix)
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })

	var manifest strings.Builder
	for i := range n {
		fmt.Fprintf(&manifest, `---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModel
metadata: {name: %[1]s%[2]d-model, labels: {e2e-limit: "true"}}
spec: {image: "registry.example/aim/limit-%[2]d:1.0", imageMetadata: {model: {canonicalName: Org/Limit%[2]d}}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterServiceTemplate
metadata: {name: %[1]s%[2]d, labels: {e2e-limit: "true"}}
spec: {modelName: %[1]s%[2]d-model, runtimeConfigName: e2e-limit, metric: latency, precision: fp8, hardware: {gpu: {requests: 1, model: MI300X}}}
`, prefix, i)
	}
	k.mustApply(manifest.String())
	t.Cleanup(func() {
		_, _ = k.run("", "delete", "aimcltpl,aimclmdl", "-l", "e2e-limit=true", "--wait=false")
	})

	// Play kubelet for every discovery pod as it appears, until all ten templates are Ready. No pod ends before
	// the watch has seen two Jobs at once: models become Ready one by one, and pods ended as soon as they
	// appear would never let two Jobs run together.
	finished := map[string]bool{}
	eventually(t, 4*time.Minute, "ten templates discovered, two at a time", func() error {
		watch.mu.Lock()
		loaded := watch.maxSeen >= 2
		watch.mu.Unlock()
		if !loaded {
			return fmt.Errorf("waiting for two discovery Jobs at once")
		}
		out := k.must("get", "pods", "-n", systemNamespace, "-l", "app.kubernetes.io/name=aim-discovery", "-o",
			`jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.aim\.eai\.amd\.com/template}={.status.phase}{"\n"}{end}`)
		for _, line := range strings.Fields(out) {
			parts := strings.Split(line, "=")
			if len(parts) != 3 || !strings.HasPrefix(parts[1], prefix) || finished[parts[0]] || parts[2] == "Succeeded" {
				continue
			}
			finished[parts[0]] = true
			finishPod(t, parts[0], discoveryOutput)
		}
		ready := k.must("get", "aimcltpl", "-l", "e2e-limit=true", "-o", `jsonpath={range .items[*]}{.status.status}{"\n"}{end}`)
		if c := strings.Count(ready, "Ready"); c != n {
			return fmt.Errorf("%d of %d templates Ready", c, n)
		}
		return nil
	})
	time.Sleep(time.Second) // the last events reach the watch
	watch.mu.Lock()
	defer watch.mu.Unlock()
	if watch.maxSeen > 2 {
		t.Errorf("%d discovery Jobs unfinished at once with maxConcurrentJobs 2", watch.maxSeen)
	}
	if watch.maxSeen < 2 || len(watch.seen) < n {
		t.Errorf("the watch saw %d Jobs, at most %d at once: the test did not load the limit", len(watch.seen), watch.maxSeen)
	}
	t.Logf("%d discovery Jobs, at most %d unfinished at once", len(watch.seen), watch.maxSeen)
}
