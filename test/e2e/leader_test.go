//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leaseDuration is the harness's (the aim-apiserver default).
const leaseDuration = 15 * time.Second

// replica is an aim-apiserver process started by the test.
type replica struct {
	cmd *exec.Cmd
	log string
}

func startReplica(t *testing.T, args []string, log string) *replica {
	t.Helper()
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(t, err)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	must(t, cmd.Start())
	return &replica{cmd: cmd, log: log}
}

func (r *replica) stop() {
	if r.cmd.ProcessState != nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = r.cmd.Process.Kill()
		<-done
	}
}

func (r *replica) logContains(s string) bool {
	data, _ := os.ReadFile(r.log)
	return bytes.Contains(data, []byte(s))
}

// withPort replaces the value of --secure-port.
func withPort(args []string, port int) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "--secure-port" && i+1 < len(out) {
			out[i+1] = strconv.Itoa(port)
		}
	}
	return out
}

func holder(k kubectl) string {
	out, _ := k.run("", "get", "lease", "aim-apiserver-controller", "-n", systemNamespace, "-o", "jsonpath={.spec.holderIdentity}")
	return strings.TrimSpace(out)
}

func jobsOf(k kubectl, template string) []string {
	out, _ := k.run("", "get", "jobs", "-n", systemNamespace, "-l", "aim.eai.amd.com/template="+template, "-o", "name")
	return strings.Fields(out)
}

// TestLeaderElection runs a second replica: exactly one holds the Lease and reconciles; when the leader stops
// the other takes over within the lease duration, and no discovery Job is created twice.
func TestLeaderElection(t *testing.T) {
	k := admin(t)
	pidFile := filepath.Join(localDir, "pids", "aim-apiserver.pid")
	pidText, err := os.ReadFile(pidFile)
	must(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	must(t, err)
	rawArgs, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	must(t, err)
	args := strings.Split(strings.TrimRight(string(rawArgs), "\x00"), "\x00")

	leaderA := holder(k)
	if leaderA == "" {
		t.Fatal("no replica holds the Lease")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	b := startReplica(t, withPort(args, port), filepath.Join(t.TempDir(), "replica-b.log"))
	defer b.stop()
	eventually(t, 60*time.Second, "replica B follows", func() error {
		if !b.logContains("Another replica leads") {
			return fmt.Errorf("replica B has not seen the leader yet")
		}
		return nil
	})
	if h := holder(k); h != leaderA {
		t.Fatalf("the Lease moved to %q while the first replica was up", h)
	}

	gpuNode(t, "e2e-leader", map[string]string{"amd.com/gpu.device-id": "74bd"}, 8)
	clusterTemplate(t, "e2e-leader-1", "MI300X")
	discoveryPod(t, "e2e-leader-1", 1)

	// Kill the leader (the harness's replica) as Kubernetes kills a pod, with SIGTERM, and time the handover.
	proc, err := os.FindProcess(pid)
	must(t, err)
	stopped := time.Now()
	must(t, proc.Signal(syscall.SIGTERM))
	eventually(t, leaseDuration+5*time.Second, "replica B takes the Lease", func() error {
		if h := holder(k); h == leaderA || h == "" {
			return fmt.Errorf("holder %q", h)
		}
		return nil
	})
	handover := time.Since(stopped)
	if handover > leaseDuration {
		t.Errorf("handover took %s, more than the lease duration %s", handover, leaseDuration)
	}
	if !b.logContains("Became leader") {
		t.Error("replica B took the Lease but did not log becoming leader")
	}
	t.Logf("handover in %s", handover.Round(100*time.Millisecond))

	// The old replica drains open watches for up to a minute; it leads no more, so end it now to free its
	// port. Then bring the harness's replica back there (the APIService routes to it) and hand its PID to
	// local-down.
	_ = proc.Signal(syscall.SIGKILL)
	eventually(t, 60*time.Second, "old replica exited", func() error {
		if proc.Signal(syscall.Signal(0)) == nil {
			return fmt.Errorf("pid %d still running", pid)
		}
		return nil
	})
	a2 := startReplica(t, args, filepath.Join(localDir, "logs", "aim-apiserver.log"))
	must(t, os.WriteFile(pidFile, []byte(strconv.Itoa(a2.cmd.Process.Pid)), 0o644))
	eventually(t, 60*time.Second, "API available again", func() error {
		_, err := k.run("", "get", "aimcltpl")
		return err
	})

	// The new leader reconciles new work, and nothing was created twice.
	clusterTemplate(t, "e2e-leader-2", "MI300X")
	discoveryPod(t, "e2e-leader-2", 1)
	time.Sleep(3 * time.Second)
	for _, tpl := range []string{"e2e-leader-1", "e2e-leader-2"} {
		if jobs := jobsOf(k, tpl); len(jobs) != 1 {
			t.Errorf("%s has %d discovery Jobs, want exactly 1: %v", tpl, len(jobs), jobs)
		}
	}
	// Stop B: the restored replica leads again for the tests that follow.
	b.stop()
	eventually(t, leaseDuration+5*time.Second, "restored replica leads", func() error {
		if h := holder(k); h == "" || !a2.logContains("Became leader") {
			return fmt.Errorf("holder %q", h)
		}
		return nil
	})
}
