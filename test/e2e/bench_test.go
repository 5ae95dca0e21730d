//go:build e2e

package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
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

// TestAPIBenchmarkRuns: a tiny run of make bench's program (100 objects per path, every row of the table)
// against the harness completes, installs and removes its CRD twin, and prints its table. Its figures are not
// read, so it does not wait for the servers to go idle between paths (on the harness the controller reconciles
// the deleted services: half a minute a path).
func TestAPIBenchmarkRuns(t *testing.T) {
	cmd := exec.Command("go", "run", "./hack/bench", "-objects", "100", "-serial", "20", "-rounds", "1", "-list-repeats", "1",
		"-watchers", "5", "-watch-events", "10", "-settle", "0", "-namespace", "bench-api-e2e", "-timeout", "5m")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	contains(t, "benchmark table", string(out), "| measure | aggregated | CRD twin | direct | etcd | ratio | target |",
		"| create c=16: objects/s |", "| LIST all, protobuf: ms |", "| watch delivery p99: ms |", "| etcd bytes per object |")
	if strings.Contains(string(out), "panic") {
		t.Errorf("output mentions a panic:\n%s", out)
	}
	eventually(t, 2*time.Minute, "the CRD twin removed", func() error {
		if out := admin(t).must("get", "crd", "-l", "app.kubernetes.io/part-of=bench", "-o", "name"); out != "" {
			return fmt.Errorf("left: %s", out)
		}
		return nil
	})
}
