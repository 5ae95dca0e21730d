package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
	"github.com/aim-apiserver/aim-apiserver/test/ledger"
)

// The soak's faults, in the order of -faults.
var soakFaults = map[string]string{
	"noise":           "a dashboard listing every AIMService in a loop and a CI job creating and deleting, next to the controller",
	"kill-leader":     "kill -9 of the replica whose controller leads; it starts again",
	"rolling-restart": "each replica in turn out of the endpoints and SIGTERM together, as in a rollout; started again once gone, an endpoint once ready",
	"etcd-member":     "kill -9 of an etcd follower, started again after the hold",
	"etcd-leader":     "kill -9 of the etcd leader, started again after the hold",
	"etcd-cutoff":     "every etcd member stopped (SIGSTOP) for the hold: aim-apiserver cut off from its store",
}

// soak runs the faults against two replicas on a three-member etcd while a churn keeps a ledger.
type soak struct {
	c       config
	cl      *clients
	w       *world
	etcd    *etcdCluster
	rs      *replicas
	ledger  *ledger.Ledger
	store   serviceStore
	noise   *ledger.Ledger // the noisy writer's failures (its objects are not checked)
	started time.Time
}

// faultRow is one line of the soak's table.
type faultRow struct {
	fault           string
	at, held        time.Duration
	churnErrors     string
	noiseErrors     string
	recovery        time.Duration
	writeP50, p99   string
	writes          float64
	cpuSeconds      float64
	maxRSS          float64
	leaderAfter     int
	recoveryTimeout bool
}

func runSoak(ctx context.Context, c config) error {
	cl, err := newClients(c)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(filepath.Join(harnessdir.Dir("."), "soak"))
	if err != nil {
		return err
	}
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	harness, err := harnessdir.ReadServer(".")
	if err != nil {
		return err
	}
	etcd, err := startEtcdCluster(dir, filepath.Join("_output", "bin"), harnessdir.Local(".", "pki", "etcd"))
	if err != nil {
		return fmt.Errorf("the soak's etcd: %w", err)
	}
	defer etcd.stop()
	// While the soak's replicas serve another store, the namespace controller would finish deleting a namespace
	// without deleting its AIM objects from the harness's store, which its server would then find in a namespace
	// that is gone: let earlier deletions end first.
	if err := waitNamespacesGone(ctx, cl, ""); err != nil {
		return fmt.Errorf("earlier namespaces still terminating: %w", err)
	}
	logf("stopping the harness's aim-apiserver (pid %d): the soak runs two replicas on a three-member etcd of their own", harness.PID)
	_ = syscall.Kill(harness.PID, syscall.SIGTERM)
	harnessdir.WaitGone(harness.PID, time.Minute)
	defer restoreHarness(cl, harness)
	rs, err := startReplicas(ctx, cl, dir, harness.Args, harness.Env, etcd.clients)
	if rs != nil {
		defer rs.stop()
	}
	if err != nil {
		return err
	}
	s := &soak{c: c, cl: cl, w: newWorld(cl, c), etcd: etcd, rs: rs, ledger: ledger.New(), noise: ledger.New(), started: time.Now()}
	s.store = serviceStore{dyn: cl.dyn, namespace: s.w.namespace(0), model: s.w.model(0) + "-model"}
	// Runs after the cleanup below and before the replicas stop: the soak's namespaces go while their store is served.
	defer func() {
		if err := waitNamespacesGone(context.Background(), cl, "bench-ctl-"); err != nil {
			logf("%v", err)
		}
	}()
	if !c.keep {
		defer s.w.cleanup()
		defer func() {
			_ = cl.kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), noiseBinding, metav1.DeleteOptions{})
		}()
	}
	r := &result{config: c, cores: runtime.NumCPU(), loadBefore: measure.Loadavg()}
	if err := s.w.setup(ctx); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	if err := s.w.converge(ctx, r); err != nil {
		return fmt.Errorf("applying the services: %w", err)
	}
	logf("%d services converged in %s; running the faults", c.services, r.quiet.Round(time.Second))
	var rows []faultRow
	for _, f := range strings.Split(c.faults, ",") {
		row, err := s.run(ctx, f)
		if err != nil {
			return fmt.Errorf("fault %s: %w", f, err)
		}
		rows = append(rows, row)
	}
	return s.finish(ctx, r, rows)
}

// waitNamespacesGone waits until no namespace whose name starts with prefix is terminating (or, for the
// soak's own, exists).
func waitNamespacesGone(ctx context.Context, cl *clients, prefix string) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := cl.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, ns := range list.Items {
			if !strings.HasPrefix(ns.Name, prefix) {
				continue
			}
			if prefix != "" || ns.Status.Phase == corev1.NamespaceTerminating {
				return false, nil
			}
		}
		return true, nil
	})
}

// restoreHarness starts the harness's aim-apiserver again, as hack/local-up.sh did, and lists it alone in the
// EndpointSlice.
func restoreHarness(cl *clients, harness *harnessdir.Server) {
	p := &process{name: "harness aim-apiserver", args: harness.Args, env: harness.Env, log: harnessdir.Local(".", "logs", "aim-apiserver.log"), detach: true}
	if err := p.start(); err != nil {
		logf("restarting the harness's aim-apiserver: %v", err)
		return
	}
	_ = harness.SetPID(p.cmd.Process.Pid)
	if err := setEndpoints(cl, "127.0.0.1"); err != nil {
		logf("%v", err)
	}
	logf("the harness's aim-apiserver runs again (pid %d)", p.cmd.Process.Pid)
}

// run plays one fault: the churn (and for noise, the noisy clients) runs from a few seconds before the fault
// until a few seconds after its repair; then the time until the controller is steady again is measured.
func (s *soak) run(ctx context.Context, fault string) (faultRow, error) {
	if _, ok := soakFaults[fault]; !ok {
		return faultRow{}, fmt.Errorf("unknown fault %q (known: noise, kill-leader, rolling-restart, etcd-member, etcd-leader, etcd-cutoff)", fault)
	}
	row := faultRow{fault: fault, at: time.Since(s.started).Round(time.Second)}
	before, err := s.readReplicas()
	if err != nil {
		return row, err
	}
	churn0, noise0 := s.ledger.Counts(), s.noise.Counts()
	stopChurn := s.startChurn(fault == "noise")
	if err := sleep(ctx, 5*time.Second); err != nil {
		return row, err
	}
	logf("fault %s: %s", fault, soakFaults[fault])
	start := time.Now()
	if err := s.inject(ctx, fault); err != nil {
		stopChurn()
		return row, err
	}
	row.held = time.Since(start).Round(100 * time.Millisecond)
	repaired := time.Now()
	_ = sleep(ctx, 5*time.Second)
	stopChurn()
	row.churnErrors = s.ledger.Counts().FailuresSince(churn0)
	row.noiseErrors = s.noise.Counts().FailuresSince(noise0)
	if err := s.steady(ctx); err != nil {
		row.recoveryTimeout = true
		logf("fault %s: not steady again: %v", fault, err)
	}
	row.recovery = time.Since(repaired).Round(100 * time.Millisecond)
	after, err := s.readReplicas()
	if err != nil {
		return row, err
	}
	row.fill(before, after)
	row.leaderAfter = s.rs.leader()
	logf("fault %s: held %s, steady %s after the repair; churn errors %s", fault, row.held, row.recovery, row.churnErrors)
	return row, nil
}

// inject causes a fault and repairs it.
func (s *soak) inject(ctx context.Context, fault string) error {
	hold := s.c.hold
	switch fault {
	case "noise":
		return sleep(ctx, hold)
	case "kill-leader":
		i := s.rs.leader()
		if i < 0 {
			return fmt.Errorf("no replica leads")
		}
		s.rs.procs[i].stop(syscall.SIGKILL, 10*time.Second)
		return s.restartReplica(ctx, i)
	case "rolling-restart":
		// As a Deployment's rollout: the pod's endpoint goes (the endpoints controller marks a terminating pod)
		// as SIGTERM arrives; the replica serves on through its shutdown delay meanwhile; the new one is an
		// endpoint once ready.
		for i := range s.rs.procs {
			if err := setEndpoints(s.cl, s.rs.except(i)...); err != nil {
				return err
			}
			s.rs.procs[i].stop(syscall.SIGTERM, time.Minute)
			if err := s.restartReplica(ctx, i); err != nil {
				return err
			}
			if err := setEndpoints(s.cl, s.rs.addrs...); err != nil {
				return err
			}
		}
		return nil
	case "etcd-member", "etcd-leader":
		l := s.etcd.leader()
		victim := (l + 1) % len(s.etcd.members)
		if fault == "etcd-leader" {
			victim = l
		}
		if l < 0 {
			return fmt.Errorf("no etcd member leads")
		}
		s.etcd.members[victim].stop(syscall.SIGKILL, 10*time.Second)
		if err := sleep(ctx, hold); err != nil {
			return err
		}
		if err := s.etcd.members[victim].start(); err != nil {
			return err
		}
		return s.etcd.waitHealthy(ctx, time.Minute)
	case "etcd-cutoff":
		for _, m := range s.etcd.members {
			_ = m.signal(syscall.SIGSTOP)
		}
		err := sleep(ctx, hold)
		for _, m := range s.etcd.members {
			_ = m.signal(syscall.SIGCONT)
		}
		return err
	}
	return nil
}

func (s *soak) restartReplica(ctx context.Context, i int) error {
	// The killed replica's listener can outlive the process a moment: the new one must bind the same address.
	if err := waitPortFree(harnessdir.Flag(s.rs.procs[i].args, "--bind-address"), harnessdir.Flag(s.rs.procs[i].args, "--secure-port"), 30*time.Second); err != nil {
		return err
	}
	start := time.Now()
	if err := s.rs.procs[i].start(); err != nil {
		return err
	}
	if err := s.rs.ready(ctx, i, 2*time.Minute); err != nil {
		return fmt.Errorf("replica %d not ready again: %w", i, err)
	}
	logf("replica %d ready %s after its start", i, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// startChurn starts the ledger's workers (and the noisy clients) and returns what stops them.
func (s *soak) startChurn(noise bool) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range s.c.churnWorkers {
		wg.Go(func() { s.ledger.Churn(ctx, s.store, "churn", w, 25, 50*time.Millisecond) })
	}
	if noise {
		s.startNoise(ctx, &wg)
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

// steady waits until the controller is steady: one replica leads, its service queue is empty, no replica
// wrote for three seconds, and every service of the run has its InferenceService.
func (s *soak) steady(ctx context.Context) error {
	last, stable := -1.0, 0
	return wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(context.Context) (bool, error) {
		scrapes, err := s.readReplicas()
		if err != nil {
			return false, nil
		}
		l := s.rs.leader()
		total := 0.0
		for _, sc := range scrapes {
			total += sc.Controller.total()
		}
		if l >= 0 && scrapes[l].QueueDepth == 0 && total == last && s.w.isvcs.count() >= s.c.services {
			stable++
		} else {
			stable = 0
		}
		last = total
		return stable >= 3, nil
	})
}

func (s *soak) readReplicas() ([]scrape, error) {
	out := make([]scrape, len(s.rs.metrics))
	for i, m := range s.rs.metrics {
		sc, err := readScrape(m)
		if err != nil {
			// A replica being restarted: its counters start again from zero.
			sc = scrape{Requests: writes{}, Controller: writes{}}
		}
		out[i] = sc
	}
	return out, nil
}

// finish checks the ledger and the children, prints the table and fails on a violation.
func (s *soak) finish(ctx context.Context, r *result, rows []faultRow) error {
	checked, err := s.ledger.Check(ctx, s.store)
	if err != nil {
		return err
	}
	dups, err := s.duplicateChildren(ctx)
	if err != nil {
		return err
	}
	r.loadAfter = measure.Loadavg()
	c := s.ledger.Counts()
	printSoak(os.Stdout, s.c, r, rows, c, checked, dups)
	if n := len(c.Violations) + len(dups); n > 0 {
		return fmt.Errorf("%d ledger violations", n)
	}
	return nil
}

// duplicateChildren are the services of the run with more than one InferenceService.
func (s *soak) duplicateChildren(ctx context.Context) ([]string, error) {
	owners := map[string][]string{}
	for i := range s.c.namespaces {
		list, err := s.cl.dyn.Resource(inferenceSvcs).Namespace(s.w.namespace(i)).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range list.Items {
			for _, ref := range o.GetOwnerReferences() {
				if ref.Controller != nil && *ref.Controller && ref.Kind == "AIMService" {
					owners[string(ref.UID)] = append(owners[string(ref.UID)], o.GetNamespace()+"/"+o.GetName())
				}
			}
		}
	}
	var dups []string
	for uid, isvcs := range owners {
		if len(isvcs) > 1 {
			dups = append(dups, fmt.Sprintf("service %s has %d InferenceServices: %v", uid, len(isvcs), isvcs))
		}
	}
	return dups, nil
}

// noiseUser is who the noisy clients are: an authenticated user of no special group, so that API Priority
// and Fairness classifies them apart from the controller's ServiceAccount.
const noiseUser = "soak-dashboard"

// noiseBinding lets the noisy user read and write AIM objects everywhere (aim-edit), as a tenant's tools may.
const noiseBinding = "soak-noise"

func (s *soak) startNoise(ctx context.Context, wg *sync.WaitGroup) {
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: noiseBinding, Labels: map[string]string{runLabel: "controller"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "aim-edit"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: noiseUser}}}
	if _, err := s.cl.kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		logf("noise: %v", err)
		return
	}
	noisy, err := s.cl.as(noiseUser)
	if err != nil {
		logf("noise: %v", err)
		return
	}
	for range s.c.noisyReaders {
		wg.Go(func() {
			for ctx.Err() == nil {
				_, err := noisy.Resource(services).List(ctx, metav1.ListOptions{})
				if err != nil && ctx.Err() == nil {
					s.noise.Failed(err)
				}
			}
		})
	}
	store := configStore{dyn: noisy, namespace: s.w.namespace(1)}
	for w := range s.c.noisyWriters {
		wg.Go(func() { s.noise.Churn(ctx, store, "noise", w, 50, 0) })
	}
}

// fill sets the row's controller write latency, write count, CPU and memory from two readings of the replicas.
func (row *faultRow) fill(before, after []scrape) {
	var buckets histogram
	for i := range after {
		buckets = buckets.plus(after[i].WriteLatency.since(before[i].WriteLatency))
		row.writes += after[i].Controller.since(before[i].Controller).total()
		cpu := after[i].CPUSeconds - before[i].CPUSeconds
		if cpu < 0 { // started again in between: its whole CPU is the window's
			cpu = after[i].CPUSeconds
		}
		row.cpuSeconds += cpu
		row.maxRSS = max(row.maxRSS, after[i].RSSBytes)
	}
	row.writeP50, row.p99 = buckets.quantile(0.5), buckets.quantile(0.99)
}

func printSoak(out io.Writer, c config, r *result, rows []faultRow, l ledger.Counts, checked int, dups []string) {
	fmt.Fprintf(out, "\n## Soak: %d AIMServices over %d AMD GPU Nodes, two aim-apiserver replicas on a three-member etcd\n\n", c.services, c.nodes)
	fmt.Fprintf(out, "%d cores; load %s before, %s after. %d services converged in %s (every InferenceService after %s).\n\n",
		r.cores, r.loadBefore, r.loadAfter, c.services, r.quiet.Round(time.Second), r.allInferenceServices.Round(time.Second))
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "| fault\t| at\t| held\t| churn errors (by status)\t| noisy client errors\t| steady after repair\t| controller writes\t| write p50\t| write p99\t| CPU s (both)\t| max RSS MiB\t|")
	fmt.Fprintln(tw, "|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|")
	for _, r := range rows {
		steady := r.recovery.String()
		if r.recoveryTimeout {
			steady = "not steady after " + steady
		}
		fmt.Fprintf(tw, "| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %.0f\t| %s\t| %s\t| %.1f\t| %.0f\t|\n", r.fault, r.at, r.held, r.churnErrors,
			r.noiseErrors, steady, r.writes, r.writeP50, r.p99, r.cpuSeconds, r.maxRSS/(1<<20))
	}
	_ = tw.Flush()
	fmt.Fprintf(out, "\nLedger: %d writes acknowledged, %d unanswered; %d of %d churned services checked; %d violations (lost, resurrected); %d services with duplicate InferenceServices.\n",
		l.Acked, l.Unanswered, checked, l.Objects, len(l.Violations), len(dups))
	fmt.Fprintf(out, "%d creates were answered AlreadyExists holding their own value (client-go sent them again after a 5xx with Retry-After); %d deletes were answered NotFound.\n",
		l.RetriedCreates, l.AmbiguousDeletes)
	all := append(l.Violations, dups...)
	for i, v := range all {
		if i == 20 {
			fmt.Fprintf(out, "- and %d more\n", len(all)-i)
			break
		}
		fmt.Fprintf(out, "- %s\n", v)
	}
}
