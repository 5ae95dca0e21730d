//go:build e2e

package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// TestControllerBenchmarkRuns: a tiny run of make bench-controller's program against the harness completes and
// prints its table (make bench-controller runs it at scale on a harness of its own).
func TestControllerBenchmarkRuns(t *testing.T) {
	cmd := exec.Command("go", "run", "./hack/bench-controller", "-nodes", "2", "-models", "2", "-services", "20",
		"-namespaces", "2", "-edits", "5", "-resyncs", "1", "-resync-period", "5s", "-timeout", "5m")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bench-controller: %v\n%s", err, out)
	}
	contains(t, "benchmark table", string(out), "| time until every InferenceService exists |",
		"| API writes per service on the way", "| 5 hand-edited InferenceServices reverted", "deleted the benchmark's")
	if strings.Contains(string(out), "panic") {
		t.Errorf("output mentions a panic:\n%s", out)
	}
}
