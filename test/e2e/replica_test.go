//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
	"github.com/aim-apiserver/aim-apiserver/test/framework"
	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

// leaseDuration is the harness's (the aim-apiserver default).
const leaseDuration = 15 * time.Second

// harnessServer is the aim-apiserver process hack/local-up.sh started, which the APIService routes to. Its
// restarts and replicas run with its command line and environment (hack/local-up.sh sets its egress proxy and
// trust there).
type harnessServer struct {
	*harnessdir.Server
	// down is true between stop and restart.
	down bool
}

// harness reads the running harness server's PID and command line.
func harness(t *testing.T) *harnessServer {
	t.Helper()
	s, err := harnessdir.ReadServer(root)
	must(t, err)
	return &harnessServer{Server: s}
}

// getenv is a variable of the harness server's environment.
func (h *harnessServer) getenv(name string) string {
	for _, kv := range h.Env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// port is the harness server's --secure-port.
func (h *harnessServer) port(t *testing.T) int {
	t.Helper()
	p, err := strconv.Atoi(harnessdir.Flag(h.Args, "--secure-port"))
	must(t, err)
	return p
}

func (h *harnessServer) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	must(t, syscall.Kill(h.PID, sig))
}

// stopProcess stops pid with SIGSTOP and waits until every thread of it has stopped (harnessdir.Stopped): on a
// busy machine the others go on long enough to answer a request (an etcd stopped so once stored a write 1 ms
// later).
func stopProcess(t *testing.T, pid int) {
	t.Helper()
	must(t, syscall.Kill(pid, syscall.SIGSTOP))
	eventually(t, 10*time.Second, fmt.Sprintf("every thread of pid %d stopped", pid), func() error { return harnessdir.Stopped(pid) })
}

// waitExit waits until the process is gone (it is not this test's child: harnessdir.Gone) and returns when that
// was seen.
func (h *harnessServer) waitExit(t *testing.T, timeout time.Duration) time.Time {
	t.Helper()
	if !harnessdir.WaitGone(h.PID, timeout) {
		t.Fatalf("aim-apiserver (pid %d) still running after %s", h.PID, timeout)
	}
	return time.Now()
}

// stop stops the harness server gracefully (SIGTERM) and waits until it has exited; whatever happens next, the
// test's end starts it again if it is still down.
func (h *harnessServer) stop(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		if h.down {
			h.restart(t)
		}
	})
	h.signal(t, syscall.SIGTERM)
	h.waitExit(t, 60*time.Second)
	h.down = true
}

// restart starts the harness server again with its arguments (its log appended), hands the new PID to
// hack/local-down.sh, and waits until the API answers through kube-apiserver.
func (h *harnessServer) restart(t *testing.T) {
	t.Helper()
	r := startReplica(t, h.Args, h.Env, filepath.Join(localDir, "logs", "aim-apiserver.log"))
	must(t, h.SetPID(r.cmd.Process.Pid))
	h.down = false
	// Reap it when it exits, so that waitExit sees it gone.
	go func() { _ = r.cmd.Wait() }()
	eventually(t, 60*time.Second, "API available again", func() error {
		_, err := admin(t).run("", "get", "aimclrc")
		return err
	})
	// kube-apiserver aggregates the OpenAPI document again a little later; kubectl explain and tests that read
	// it need it.
	eventually(t, openAPIAggregation, "OpenAPI of aim.eai.amd.com aggregated again", func() error {
		_, err := admin(t).run("", "get", "--raw", "/openapi/v3/apis/aim.eai.amd.com/v1alpha1")
		return err
	})
}

// openAPIAggregation bounds how long kube-apiserver takes to serve aim-apiserver's OpenAPI v3 again after its
// server restarted (seconds: kube-aggregator fetches it again when the APIService turns Available) or after a
// migration (migrate registers the APIService anew when kube-aggregator would not fetch it: pkg/migrate
// ensureOpenAPI). The bound is generous because kube-aggregator retries failed fetches with a growing backoff.
const openAPIAggregation = 3 * time.Minute

// replica is an aim-apiserver process started by the test.
type replica struct {
	cmd *exec.Cmd
	log string
}

func startReplica(t *testing.T, args, env []string, log string) *replica {
	t.Helper()
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(t, err)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	must(t, cmd.Start())
	return &replica{cmd: cmd, log: log}
}

// secondReplica starts another aim-apiserver like the harness's, on a free port with its own audit log, and
// waits until it follows the leader.
func secondReplica(t *testing.T, h *harnessServer) (r *replica, port int, auditLog string) {
	t.Helper()
	dir := t.TempDir()
	port = framework.FreePort(t)
	auditLog = filepath.Join(dir, "audit.log")
	args := harnessdir.WithFlag(harnessdir.WithFlag(h.Args, "--secure-port", strconv.Itoa(port)), "--audit-log-path", auditLog)
	r = startReplica(t, args, h.Env, filepath.Join(dir, "replica.log"))
	t.Cleanup(r.stop)
	eventually(t, 60*time.Second, "second replica follows", func() error {
		if !r.logContains("Another replica leads") {
			return fmt.Errorf("it has not seen the leader yet")
		}
		return nil
	})
	return r, port, auditLog
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

func holder(k kubectl) string {
	out, _ := k.run("", "get", "lease", "aim-apiserver-controller", "-n", systemNamespace, "-o", "jsonpath={.spec.holderIdentity}")
	return strings.TrimSpace(out)
}

// leaseHolder reads the Lease's holder with a client (faster than kubectl, for timing).
func leaseHolder(ctx context.Context, kube kubernetes.Interface) string {
	l, err := kube.CoordinationV1().Leases(systemNamespace).Get(ctx, "aim-apiserver-controller", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// waitForLiveLeader waits until a replica other than previous holds the Lease and renews it (a killed
// holder stays in the Lease until it expires), and returns its identity.
func waitForLiveLeader(t *testing.T, kube kubernetes.Interface, previous string) string {
	t.Helper()
	var id string
	eventually(t, leaseDuration+15*time.Second, "a live leader other than "+previous, func() error {
		l, err := kube.CoordinationV1().Leases(systemNamespace).Get(context.Background(), "aim-apiserver-controller", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || *l.Spec.HolderIdentity == previous {
			return fmt.Errorf("holder %v", l.Spec.HolderIdentity)
		}
		if l.Spec.RenewTime == nil || time.Since(l.Spec.RenewTime.Time) > 3*time.Second {
			return fmt.Errorf("holder %s does not renew", *l.Spec.HolderIdentity)
		}
		id = *l.Spec.HolderIdentity
		return nil
	})
	return id
}

// adminConfig is the admin's client configuration through kube-apiserver.
func adminConfig(t *testing.T) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", adminKC)
	must(t, err)
	cfg.QPS, cfg.Burst = -1, 0
	return cfg
}

func adminClients(t *testing.T) (versioned.Interface, kubernetes.Interface) {
	t.Helper()
	cfg := adminConfig(t)
	aim, err := versioned.NewForConfig(cfg)
	must(t, err)
	kube, err := kubernetes.NewForConfig(cfg)
	must(t, err)
	return aim, kube
}

// directConfig reaches an aim-apiserver process on port directly, bypassing kube-apiserver, with the admin's
// client certificate (aim-apiserver trusts the cluster's client CA).
func directConfig(t *testing.T, port int) *rest.Config {
	t.Helper()
	cfg := adminConfig(t)
	cfg = rest.CopyConfig(cfg)
	cfg.Host = fmt.Sprintf("https://127.0.0.1:%d", port)
	cfg.CAData, cfg.CAFile = nil, filepath.Join(localDir, "pki", "aim-apiserver-ca.crt")
	return cfg
}

// probeClient reads health endpoints of a server on loopback without credentials.
func probeClient(t *testing.T) *http.Client {
	t.Helper()
	ca, err := os.ReadFile(filepath.Join(localDir, "pki", "aim-apiserver-ca.crt"))
	must(t, err)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true,
	}}
}

// probe returns the status code of GET path, or 0 when the connection is refused or fails.
func probe(c *http.Client, port int, path string) int {
	resp, err := c.Get(fmt.Sprintf("https://127.0.0.1:%d%s", port, path))
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return 0
		}
		return -1
	}
	resp.Body.Close()
	return resp.StatusCode
}
