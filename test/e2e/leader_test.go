//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

func jobsOf(k kubectl, template string) []string {
	out, _ := k.run("", "get", "jobs", "-n", systemNamespace, "-l", "aim.eai.amd.com/template="+template, "-o", "name")
	return strings.Fields(out)
}

// TestLeaderElection runs a second replica: exactly one holds the Lease and reconciles; when the leader dies
// the other takes over once the Lease expires, and no discovery Job is created twice.
func TestLeaderElection(t *testing.T) {
	k := admin(t)
	a := harness(t)
	leaderA := holder(k)
	if leaderA == "" {
		t.Fatal("no replica holds the Lease")
	}
	b, _, _ := secondReplica(t, a)
	if h := holder(k); h != leaderA {
		t.Fatalf("the Lease moved to %q while the first replica was up", h)
	}

	gpuNode(t, "e2e-leader", map[string]string{"amd.com/gpu.device-id": "74bd"}, 8)
	clusterTemplate(t, "e2e-leader-1", "MI300X")
	discoveryPod(t, "e2e-leader-1", 1)

	// Kill the leader (the harness's replica) without warning, as a crashed node does, and time the handover:
	// the Lease must expire first. (A graceful stop hands over at once: TestGracefulShutdown.)
	stopped := time.Now()
	a.signal(t, syscall.SIGKILL)
	// A follower counts the lease duration from when it last saw the record change, and tries at its retry
	// period (2s, jittered up to 4.4s): expiry comes at most one retry after the leader's last renewal plus
	// the lease duration, and the takeover at most one retry later.
	const bound = leaseDuration + 2*4400*time.Millisecond
	eventually(t, bound+5*time.Second, "replica B takes the Lease", func() error {
		if h := holder(k); h == leaderA || h == "" {
			return fmt.Errorf("holder %q", h)
		}
		return nil
	})
	handover := time.Since(stopped)
	holderB := holder(k)
	if handover > bound {
		t.Errorf("handover took %s, more than the lease duration and two retries (%s)", handover, bound)
	}
	if !b.logContains("Became leader") {
		t.Error("replica B took the Lease but did not log becoming leader")
	}
	t.Logf("handover in %s", handover.Round(100*time.Millisecond))

	// Bring the harness's replica back on its port (the APIService routes to it).
	a.waitExit(t, 10*time.Second)
	a.restart(t)

	// The new leader reconciles new work, and nothing was created twice.
	clusterTemplate(t, "e2e-leader-2", "MI300X")
	discoveryPod(t, "e2e-leader-2", 1)
	consistently(t, 3*time.Second, "one discovery Job a template", func() error {
		for _, tpl := range []string{"e2e-leader-1", "e2e-leader-2"} {
			if jobs := jobsOf(k, tpl); len(jobs) != 1 {
				return fmt.Errorf("%s has %d discovery Jobs, want exactly 1: %v", tpl, len(jobs), jobs)
			}
		}
		return nil
	})
	// Stop B: the restored replica leads again for the tests that follow.
	b.stop()
	eventually(t, 5*time.Second, "restored replica leads", func() error {
		if h := holder(k); h == "" || h == holderB {
			return fmt.Errorf("holder %q", h)
		}
		return nil
	})
}
