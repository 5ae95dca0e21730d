package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

// process is a server the soak started and may signal and start again.
type process struct {
	name string
	args []string
	env  []string
	log  string
	// detach starts it in a session of its own, to outlive the soak (the harness's server, restored).
	detach bool
	cmd    *exec.Cmd
	// done is closed when the process has ended and was reaped.
	done chan struct{}
}

func (p *process) start() error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	p.cmd = exec.Command(p.args[0], p.args[1:]...)
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = p.env, f, f
	if p.detach {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	done := make(chan struct{})
	p.done = done
	go func(c *exec.Cmd) {
		_ = c.Wait()
		close(done)
	}(p.cmd)
	return nil
}

func (p *process) signal(sig syscall.Signal) error {
	if p.cmd == nil || p.cmd.Process == nil {
		return fmt.Errorf("%s is not running", p.name)
	}
	return p.cmd.Process.Signal(sig)
}

// stop ends the process (SIGTERM, SIGKILL after timeout) and waits until it is gone.
func (p *process) stop(sig syscall.Signal, timeout time.Duration) {
	if p.signal(sig) != nil {
		return
	}
	if !harnessdir.WaitGone(p.cmd.Process.Pid, timeout) {
		_ = p.signal(syscall.SIGKILL)
		harnessdir.WaitGone(p.cmd.Process.Pid, 10*time.Second)
	}
}

// exited says whether the process ended (it was started and reaped).
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitPortFree waits until host:port can be listened on.
func waitPortFree(host, port string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		l, err := net.Listen("tcp", net.JoinHostPort(host, port))
		if err == nil {
			return l.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s:%s still in use after %s: %w", host, port, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// etcdCluster is the soak's three-member etcd: aim-apiserver's own store, as the chart's bundled etcd is, so
// that its faults do not touch kube-apiserver's. It uses the harness's etcd PKI (names 127.0.0.1).
type etcdCluster struct {
	members []*process
	clients []string
}

const etcdSoakPort = 24790 // client ports 24790-24792, peers 24800-24802

func startEtcdCluster(dir, bin, pki string) (*etcdCluster, error) {
	c := &etcdCluster{}
	var initial []string
	for i := range 3 {
		initial = append(initial, fmt.Sprintf("s%d=https://127.0.0.1:%d", i, etcdSoakPort+10+i))
	}
	for i := range 3 {
		client, peer := fmt.Sprintf("https://127.0.0.1:%d", etcdSoakPort+i), fmt.Sprintf("https://127.0.0.1:%d", etcdSoakPort+10+i)
		c.clients = append(c.clients, client)
		m := &process{name: fmt.Sprintf("etcd s%d", i), log: filepath.Join(dir, fmt.Sprintf("etcd-s%d.log", i)), env: os.Environ(), args: []string{
			filepath.Join(bin, "etcd"), "--name", fmt.Sprintf("s%d", i), "--data-dir", filepath.Join(dir, fmt.Sprintf("etcd-s%d", i)),
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new",
			"--client-cert-auth", "--trusted-ca-file", filepath.Join(pki, "ca.crt"),
			"--cert-file", filepath.Join(pki, "server.crt"), "--key-file", filepath.Join(pki, "server.key"),
			"--peer-client-cert-auth", "--peer-trusted-ca-file", filepath.Join(pki, "ca.crt"),
			"--peer-cert-file", filepath.Join(pki, "peer.crt"), "--peer-key-file", filepath.Join(pki, "peer.key"),
			"--listen-metrics-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdSoakPort+20+i),
			"--unsafe-no-fsync", "--log-level", "warn",
		}}
		if err := m.start(); err != nil {
			return nil, err
		}
		c.members = append(c.members, m)
	}
	return c, c.waitHealthy(context.Background(), 60*time.Second)
}

// waitHealthy waits until every running member answers /health.
func (c *etcdCluster) waitHealthy(ctx context.Context, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		for i := range c.members {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/health", etcdSoakPort+20+i))
			if err != nil {
				return false, nil
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return false, nil
			}
		}
		return true, nil
	})
}

// leader is the index of the member that leads (etcd_server_is_leader), or -1.
func (c *etcdCluster) leader() int {
	for i := range c.members {
		s := measure.Server{Name: "etcd", Client: http.DefaultClient, MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", etcdSoakPort+20+i)}
		if f, err := s.Families(); err == nil && measure.Single(f["etcd_server_is_leader"]) == 1 {
			return i
		}
	}
	return -1
}

func (c *etcdCluster) stop() { stopAll(c.members, 20*time.Second) }

// stopAll sends SIGTERM to every process at once and waits for all: each replica keeps serving for its
// shutdown delay, which one after the other would add up.
func stopAll(procs []*process, timeout time.Duration) {
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.stop(syscall.SIGTERM, timeout) })
	}
	wg.Wait()
}

// replicas are the soak's two aim-apiserver processes, at 127.0.0.1 and 127.0.0.2 on the harness's port,
// both behind the APIService (the harness's EndpointSlice lists both addresses).
type replicas struct {
	procs   []*process
	metrics []measure.Server
	addrs   []string
}

// startReplicas starts two replicas like the harness's, storing in etcdServers, the first alone until its
// controller leads (so that the benchmark's convergence reads the leader), and lists both in the APIService's
// EndpointSlice. The metrics clients read each replica directly.
func startReplicas(ctx context.Context, cl *clients, dir string, args, env []string, etcdServers []string) (*replicas, error) {
	rs := &replicas{}
	for i, addr := range []string{"127.0.0.1", "127.0.0.2"} {
		a := harnessdir.WithFlag(harnessdir.WithFlag(args, "--etcd-servers", strings.Join(etcdServers, ",")), "--bind-address", addr)
		a = harnessdir.WithFlag(a, "--audit-log-path", filepath.Join(dir, fmt.Sprintf("replica-%d-audit.log", i)))
		// As artifacts/deploy runs it: on SIGTERM it keeps serving while endpoints stop routing to it.
		a = harnessdir.WithFlag(harnessdir.WithFlag(a, "--shutdown-delay-duration", "5s"), "--shutdown-watch-termination-grace-period", "5s")
		rs.addrs = append(rs.addrs, addr)
		rs.procs = append(rs.procs, &process{name: "aim-apiserver " + addr, args: a, env: env, log: filepath.Join(dir, fmt.Sprintf("replica-%d.log", i))})
		m := cl.aimMet
		m.Name = "aim-apiserver " + addr
		m.MetricsURL = strings.Replace(m.MetricsURL, "127.0.0.1", addr, 1)
		rs.metrics = append(rs.metrics, m)
	}
	for i, p := range rs.procs {
		if err := p.start(); err != nil {
			return rs, err
		}
		if err := rs.ready(ctx, i, 2*time.Minute); err != nil {
			return rs, fmt.Errorf("%s not ready: %w", p.name, err)
		}
		if i == 0 {
			err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
				return rs.leader() == 0, nil
			})
			if err != nil {
				return rs, fmt.Errorf("%s does not lead: %w", p.name, err)
			}
		}
	}
	return rs, setEndpoints(cl, rs.addrs...)
}

// except are the replicas' addresses but the i-th.
func (rs *replicas) except(i int) []string {
	var out []string
	for j, a := range rs.addrs {
		if j != i {
			out = append(out, a)
		}
	}
	return out
}

// setEndpoints lists addrs in the harness's EndpointSlice of the aim-apiserver Service.
func setEndpoints(cl *clients, addrs ...string) error {
	var eps []any
	for _, a := range addrs {
		eps = append(eps, map[string]any{"addresses": []string{a}, "conditions": map[string]any{"ready": true}})
	}
	patch, err := json.Marshal(map[string]any{"endpoints": eps})
	if err != nil {
		return err
	}
	_, err = cl.kube.DiscoveryV1().EndpointSlices(systemNamespace).Patch(context.Background(), "aim-apiserver-loopback",
		types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("listing %v in the EndpointSlice: %w", addrs, err)
	}
	return nil
}

// ready waits until replica i answers /readyz.
func (rs *replicas) ready(ctx context.Context, i int, timeout time.Duration) error {
	u := strings.Replace(rs.metrics[i].MetricsURL, "/metrics", "/readyz", 1)
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		if rs.procs[i].exited() {
			return false, fmt.Errorf("%s exited (log: %s)", rs.procs[i].name, rs.procs[i].log)
		}
		resp, err := rs.metrics[i].Client.Get(u)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// leader is the index of the replica whose controller leads (leader_election_master_status), or -1.
func (rs *replicas) leader() int {
	for i, m := range rs.metrics {
		f, err := m.Families()
		if err != nil {
			continue
		}
		for _, s := range f["leader_election_master_status"].GetMetric() {
			if s.GetGauge().GetValue() == 1 {
				return i
			}
		}
	}
	return -1
}

func (rs *replicas) stop() { stopAll(rs.procs, 30*time.Second) }
