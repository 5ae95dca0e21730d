//go:build e2e

package e2e

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
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
	ca, err := os.ReadFile(filepath.Join(root, "_output", "local", "pki", "aim-apiserver-ca.crt"))
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

// TestSteadyStateWritesNothing: once a template, its model and a runtime config are Ready, resyncs (every 5 s
// in the harness) re-check them without a single write to aim-apiserver or to kube-apiserver's Jobs.
func TestSteadyStateWritesNothing(t *testing.T) {
	k := admin(t)
	gpuNode(t, "e2e-steady", map[string]string{"amd.com/gpu.device-id": "74a9"}, 8)
	k.mustApply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterRuntimeConfig\nmetadata: {name: e2e-steady}\nspec: {discovery: {maxConcurrentJobs: 4}}\n")
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclrc", "e2e-steady", "--wait=false") })
	clusterTemplate(t, "e2e-steady", "MI300X")
	_, pod := discoveryPod(t, "e2e-steady", 1)
	finishPod(t, pod, discoveryOutput)
	k.must("wait", "--for=condition=Ready", "aimcltpl/e2e-steady", "aimclrc/e2e-steady", "--timeout=60s")
	k.must("wait", "--for=condition=Ready", "aimclmdl/e2e-steady-model", "--timeout=60s")

	// Let in-flight work settle, including the namespace controller emptying earlier tests' namespaces (its
	// deletes are not ours), then watch two resync periods.
	eventually(t, 90*time.Second, "earlier tests' namespaces gone", func() error {
		if out := k.must("get", "namespaces", "-o", `jsonpath={.items[?(@.status.phase=="Terminating")].metadata.name}`); out != "" {
			return fmt.Errorf("terminating: %s", out)
		}
		return nil
	})
	time.Sleep(6 * time.Second)
	aimMetricsBefore := aimMetrics(t)
	aimBefore := writes(aimMetricsBefore, `group="aim.eai.amd.com"`)
	// The controller writes Jobs only by server-side apply; other writers (the garbage collector removing
	// Jobs of templates earlier tests deleted, the Job controller) use other verbs.
	kubeBefore := writes(k.must("get", "--raw", "/metrics"), `resource="jobs"`, `verb="APPLY"`)
	rvBefore := k.must("get", "aimcltpl/e2e-steady", "aimclmdl/e2e-steady-model", "aimclrc/e2e-steady", "-o", "jsonpath={.items[*].metadata.resourceVersion}")
	time.Sleep(12 * time.Second)
	aimMetricsAfter := aimMetrics(t)
	aimAfter := writes(aimMetricsAfter, `group="aim.eai.amd.com"`)
	kubeAfter := writes(k.must("get", "--raw", "/metrics"), `resource="jobs"`, `verb="APPLY"`)
	rvAfter := k.must("get", "aimcltpl/e2e-steady", "aimclmdl/e2e-steady-model", "aimclrc/e2e-steady", "-o", "jsonpath={.items[*].metadata.resourceVersion}")

	if aimAfter != aimBefore {
		t.Errorf("aim-apiserver received %v writes during steady-state resyncs:\n%s", aimAfter-aimBefore, changedLines(aimMetricsBefore, aimMetricsAfter))
	}
	if kubeAfter != kubeBefore {
		t.Errorf("kube-apiserver received %v applies of Jobs during steady-state resyncs", kubeAfter-kubeBefore)
	}
	if rvAfter != rvBefore {
		t.Errorf("objects changed: %s -> %s", rvBefore, rvAfter)
	}
	if aimBefore == 0 || kubeBefore == 0 {
		t.Errorf("no write was ever counted (AIM %v, Job applies %v): the metric filter is wrong", aimBefore, kubeBefore)
	}
	t.Logf("steady state: %v AIM writes and %v Job applies before the window, none in it", aimBefore, kubeBefore)
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
