//go:build e2e

package e2e

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// aimMetrics reads aim-apiserver's /metrics directly (not through the aggregator) as the cluster admin.
func aimMetrics(t *testing.T) string {
	t.Helper()
	port := os.Getenv("AIM_PORT")
	if port == "" {
		port = "18443"
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(localDir, "pki", "admin.crt"), filepath.Join(localDir, "pki", "admin.key"))
	must(t, err)
	ca, err := os.ReadFile(filepath.Join(localDir, "pki", "aim-apiserver-ca.crt"))
	must(t, err)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: "localhost"}}}
	resp, err := client.Get("https://127.0.0.1:" + port + "/metrics")
	must(t, err)
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	return b.String()
}

// writes sums apiserver_request_total over mutating verbs for the lines that contain every filter.
func writes(metrics string, filters ...string) float64 {
	var sum float64
	for _, line := range strings.Split(metrics, "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		mutating := false
		for _, v := range []string{`verb="POST"`, `verb="PUT"`, `verb="PATCH"`, `verb="APPLY"`, `verb="DELETE"`, `verb="UPDATE"`, `verb="CREATE"`} {
			mutating = mutating || strings.Contains(line, v)
		}
		match := mutating
		for _, f := range filters {
			match = match && strings.Contains(line, f)
		}
		if !match {
			continue
		}
		fields := strings.Fields(line)
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// steadyResyncs is how many resync periods (5 s in the harness) the steady-state window lasts.
const steadyResyncs = 10

// TestSteadyStateWritesNothing: once a template, a model's own template with discovered model sources, a
// runtime config and a running service are Ready, resyncs re-check them without a single write to aim-apiserver,
// an apply of a Job or of an InferenceService. A sidecar another writer added to the InferenceService is another
// writer's business: left alone, and no reason to apply.
func TestSteadyStateWritesNothing(t *testing.T) {
	k := admin(t)
	gpuNode(t, "e2e-steady", map[string]string{"amd.com/gpu.device-id": "74a9"}, 8)
	k.mustApply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterRuntimeConfig\nmetadata: {name: e2e-steady}\nspec: {discovery: {maxConcurrentJobs: 4}}\n")
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclrc", "e2e-steady", "--wait=false") })
	clusterTemplate(t, "e2e-steady", "MI300X")
	_, pod := discoveryPod(t, "e2e-steady", 1)
	finishPod(t, pod, discoveryOutput)

	// A model whose image recommends a deployment: the model applies the template, discovery fills its status.
	k.mustApply(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModel
metadata: {name: e2e-steady-rec}
spec:
  image: registry.example/aim/steady-rec:1.0
  imageMetadata:
    model:
      canonicalName: Org/SteadyRec
      recommendedDeployments:
      - {gpuModel: MI300X, gpuCount: 1, precision: fp8, metric: latency}
`)
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclmdl", "e2e-steady-rec", "--wait=false") })
	recTemplate := onlyOne(t, 30*time.Second, "aimcltpl", "", "aim.eai.amd.com/model=e2e-steady-rec")
	_, pod = discoveryPod(t, recTemplate, 1)
	finishPod(t, pod, discoveryOutput)
	// A user's copy of the model's template for another GPU, made as aim-engine's docs say: its YAML with
	// another name and GPU, labels and owner references kept. It is the user's: it must outlive the resyncs.
	var clone map[string]any
	must(t, json.Unmarshal([]byte(k.must("get", "aimcltpl", recTemplate, "-o", "json")), &clone))
	meta := clone["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "annotations"} {
		delete(meta, f)
	}
	delete(clone, "status")
	meta["name"] = recTemplate + "-mi325x"
	clone["spec"].(map[string]any)["hardware"].(map[string]any)["gpu"].(map[string]any)["model"] = "MI325X"
	data, err := json.Marshal(clone)
	must(t, err)
	k.mustApply(string(data))
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimcltpl", recTemplate+"-mi325x", "--wait=false") })
	jsonpathEquals(t, 60*time.Second, "NotAvailable", "aimcltpl", recTemplate+"-mi325x", "-o", "jsonpath={.status.status}")
	k.must("wait", "--for=condition=Ready", "aimcltpl/e2e-steady", "aimcltpl/"+recTemplate, "aimclrc/e2e-steady", "--timeout=60s")
	k.must("wait", "--for=condition=Ready", "aimclmdl/e2e-steady-model", "aimclmdl/e2e-steady-rec", "--timeout=60s")

	// A running service, and a sidecar another writer adds to its InferenceService.
	ns := namespace(t, "steady")
	applyService(t, ns, "chat", "model: {name: e2e-steady-model}, template: {name: e2e-steady}")
	downloadCaches(t, ns, 1)
	isvc := inferenceServiceName(ns, "chat")
	objectJSON(t, 60*time.Second, "inferenceservice", isvc, ns)
	predictorPod(t, ns, isvc, "chat-predictor-0")
	patchStatus(t, "pod", "chat-predictor-0", ns, map[string]any{"phase": "Running",
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}})
	patchStatus(t, "inferenceservice", isvc, ns, map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}})
	k.must("wait", "--for=condition=Ready", "aimsvc/chat", "-n", ns, "--timeout=60s")
	k.must("patch", "inferenceservice", isvc, "-n", ns, "--type=json", "--field-manager=log-shipper-injector",
		"-p", `[{"op":"add","path":"/spec/predictor/containers/-","value":{"name":"log-shipper","image":"registry.example/log-shipper:1"}}]`)
	sidecars := func() string {
		return k.must("get", "inferenceservice", isvc, "-n", ns, "-o", "jsonpath={.spec.predictor.containers[*].name}")
	}
	if got := sidecars(); got != "kserve-container log-shipper" {
		t.Fatalf("containers after the patch: %q", got)
	}

	// Let in-flight work settle, including the namespace controller emptying earlier tests' namespaces (its
	// deletes are not ours), then watch the resyncs.
	eventually(t, 90*time.Second, "earlier tests' namespaces gone", func() error {
		if out := k.must("get", "namespaces", "-o", `jsonpath={.items[?(@.status.phase=="Terminating")].metadata.name}`); out != "" {
			return fmt.Errorf("terminating: %s", out)
		}
		return nil
	})
	time.Sleep(6 * time.Second)
	objects := []string{"aimcltpl/e2e-steady", "aimcltpl/" + recTemplate, "aimcltpl/" + recTemplate + "-mi325x", "aimclmdl/e2e-steady-model",
		"aimclmdl/e2e-steady-rec", "aimclrc/e2e-steady"}
	resourceVersions := func() string {
		const rv = "jsonpath={.items[*].metadata.resourceVersion}"
		return k.must(append(append([]string{"get"}, objects...), "-o", rv)...) + " " +
			k.must("get", "aimsvc/chat", "inferenceservice/"+isvc, "-n", ns, "-o", rv)
	}
	aimMetricsBefore := aimMetrics(t)
	aimBefore := writes(aimMetricsBefore, `group="aim.eai.amd.com"`)
	// The controller writes Jobs and InferenceServices only by server-side apply; other writers (the garbage
	// collector removing Jobs of templates earlier tests deleted, the Job controller) use other verbs.
	kubeMetricsBefore := k.must("get", "--raw", "/metrics")
	jobsBefore := writes(kubeMetricsBefore, `resource="jobs"`, `verb="APPLY"`)
	isvcsBefore := writes(kubeMetricsBefore, `resource="inferenceservices"`, `verb="APPLY"`)
	rvBefore := resourceVersions()
	time.Sleep(steadyResyncs * 5 * time.Second)
	aimMetricsAfter := aimMetrics(t)
	aimAfter := writes(aimMetricsAfter, `group="aim.eai.amd.com"`)
	kubeMetricsAfter := k.must("get", "--raw", "/metrics")
	jobsAfter := writes(kubeMetricsAfter, `resource="jobs"`, `verb="APPLY"`)
	isvcsAfter := writes(kubeMetricsAfter, `resource="inferenceservices"`, `verb="APPLY"`)
	rvAfter := resourceVersions()

	if aimAfter != aimBefore {
		t.Errorf("aim-apiserver received %v writes during %d steady-state resyncs:\n%s", aimAfter-aimBefore, steadyResyncs,
			changedLines(aimMetricsBefore, aimMetricsAfter))
	}
	if jobsAfter != jobsBefore || isvcsAfter != isvcsBefore {
		t.Errorf("kube-apiserver received %v applies of Jobs and %v of InferenceServices during %d steady-state resyncs",
			jobsAfter-jobsBefore, isvcsAfter-isvcsBefore, steadyResyncs)
	}
	if rvAfter != rvBefore {
		t.Errorf("objects changed: %s -> %s", rvBefore, rvAfter)
	}
	if got := sidecars(); got != "kserve-container log-shipper" {
		t.Errorf("the other writer's sidecar: containers %q", got)
	}
	if _, err := k.run("", "get", "aimcltpl", recTemplate+"-mi325x"); err != nil {
		t.Errorf("the user's copy of the model's template is gone: %v", err)
	}
	if aimBefore == 0 || jobsBefore == 0 || isvcsBefore == 0 {
		t.Errorf("no write was ever counted (AIM %v, Job applies %v, InferenceService applies %v): the metric filter is wrong",
			aimBefore, jobsBefore, isvcsBefore)
	}
	t.Logf("steady state: %v AIM writes, %v Job and %v InferenceService applies before the window, none in %d resyncs",
		aimBefore, jobsBefore, isvcsBefore, steadyResyncs)
}

// changedLines are the request counters that differ between two scrapes, to say which writes happened.
func changedLines(before, after string) string {
	seen := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		seen[l] = true
	}
	var out []string
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "apiserver_request_total{") && !seen[l] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
