//go:build e2e

package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

// The soak serves a store of its own while it runs, so the garbage collector may remove children of objects
// of earlier tests in the harness's store meanwhile: it runs late in the suite (files run in name order), and
// no later test uses an earlier test's objects.

// TestSoakShortRuns: the short form of make soak: 1,000 services on two replicas and a three-member etcd of
// their own, the leading replica killed and etcd cut off while the churn writes; the ledger holds (the program
// fails otherwise) and the harness's own aim-apiserver serves again afterwards.
func TestSoakShortRuns(t *testing.T) {
	cmd := exec.Command("go", "run", "./hack/bench-controller", "-soak", "-services", "1000", "-nodes", "20", "-models", "4",
		"-namespaces", "4", "-faults", "kill-leader,etcd-cutoff", "-hold", "10s", "-resync-period", "5s", "-timeout", "10m")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("soak: %v\n%s", err, out)
	}
	t.Logf("soak:\n%s", tail(string(out), 30))
	contains(t, "soak table", string(out), "| kill-leader ", "| etcd-cutoff ", "0 violations (lost, resurrected); 0 services with duplicate")
	if strings.Contains(string(out), "panic") {
		t.Errorf("output mentions a panic")
	}
	// The replicas' own logs, under the faults: the same bugs as the harness server's log is checked for.
	logs, err := filepath.Glob(filepath.Join(harnessdir.Dir(root), "soak", "replica-[0-9].log"))
	must(t, err)
	if len(logs) == 0 {
		t.Error("no replica logs in the soak's directory")
	}
	for _, log := range logs {
		if err := noServerBugs(log, 0); err != nil {
			t.Error(err)
		}
	}
	eventually(t, 60*time.Second, "the harness's aim-apiserver serves again", func() error {
		_, err := admin(t).run("", "get", "aimclrc")
		return err
	})
	_, kube := adminClients(t)
	waitForLiveLeader(t, kube, "")
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
