// Command bench-controller measures the embedded controller at cluster scale on the real-cluster harness
// (hack/local-up.sh; `make bench-controller` brings it up and down). It creates AMD GPU Nodes as API objects
// (no kubelet behind them), cluster models with templates whose discovery it plays to Ready, then applies many
// AIMServices at once and reports, as a table: the time until every InferenceService exists, the API writes
// per service on the way (from both servers' apiserver_request_total), the writes during resyncs afterwards,
// aim-apiserver's CPU and memory, and the time until hand-edited InferenceServices are reverted. It prints
// figures and whether each target is met; it asserts nothing.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

type config struct {
	kubeconfig  string
	aimServer   string
	aimCA       string
	nodes       int
	models      int
	services    int
	namespaces  int
	edits       int
	resyncs     int
	resync      time.Duration
	concurrency int
	timeout     time.Duration
	keep        bool
	heapProfile string
	cpuProfile  string

	// The soak (-soak): its faults in order, how long each is held, and the clients next to the controller.
	soak         bool
	faults       string
	hold         time.Duration
	churnWorkers int
	noisyReaders int
	noisyWriters int
}

func main() {
	var c config
	root := "."
	flag.StringVar(&c.kubeconfig, "kubeconfig", harnessdir.Local(root, "kubeconfig"), "Cluster admin kubeconfig of the harness.")
	flag.StringVar(&c.aimServer, "aim-server", "https://127.0.0.1:"+measure.EnvOr("AIM_PORT", "18443"), "aim-apiserver's address, for its /metrics (read directly, past the aggregator).")
	flag.StringVar(&c.aimCA, "aim-ca", harnessdir.Local(root, "pki", "aim-apiserver-ca.crt"), "CA of aim-apiserver's serving certificate.")
	flag.IntVar(&c.nodes, "nodes", 100, "AMD GPU Nodes (API objects, 8 MI300X GPUs each).")
	flag.IntVar(&c.models, "models", 20, "Cluster models, each with one cluster template played to Ready.")
	flag.IntVar(&c.services, "services", 1000, "AIMServices applied at once, spread over the models.")
	flag.IntVar(&c.namespaces, "namespaces", 10, "Namespaces the services are spread over.")
	flag.IntVar(&c.edits, "edits", 100, "InferenceServices edited by hand (spec.predictor.minReplicas) after convergence.")
	flag.IntVar(&c.resyncs, "resyncs", 3, "Resync periods to count steady-state writes over.")
	flag.DurationVar(&c.resync, "resync-period", 10*time.Second, "aim-apiserver's --controller-resync-period.")
	flag.IntVar(&c.concurrency, "concurrency", 16, "Parallel requests of the benchmark's own writes.")
	flag.DurationVar(&c.timeout, "timeout", 15*time.Minute, "Give up after this long.")
	flag.BoolVar(&c.keep, "keep", false, "Leave the objects in the cluster.")
	flag.StringVar(&c.heapProfile, "heap-profile", "", "Keep aim-apiserver's heap profile after the steady state in this file.")
	flag.StringVar(&c.cpuProfile, "cpu-profile", "", "Keep aim-apiserver's CPU profile of the steady-state resyncs in this file.")
	flag.BoolVar(&c.soak, "soak", false, "Run the soak instead of the benchmark: two replicas on a three-member etcd of their own, a churn with a ledger, and -faults.")
	flag.StringVar(&c.faults, "faults", "noise,kill-leader,rolling-restart,etcd-member,etcd-leader,etcd-cutoff", "The soak's faults, in order.")
	flag.DurationVar(&c.hold, "hold", 30*time.Second, "How long the soak holds a fault (noise, an etcd member down, etcd cut off).")
	flag.IntVar(&c.churnWorkers, "churn-workers", 4, "The soak's churn workers (creates, updates and deletes of AIMServices, in the ledger).")
	flag.IntVar(&c.noisyReaders, "noisy-readers", 2, "Clients listing every AIMService in a loop during the noise fault.")
	flag.IntVar(&c.noisyWriters, "noisy-writers", 4, "Clients creating, updating and deleting AIMRuntimeConfigs during the noise fault.")
	flag.Parse()

	measure.Main("bench-controller", c.timeout, func(ctx context.Context) error {
		if c.soak {
			return runSoak(ctx, c)
		}
		return run(ctx, c)
	})
}

// logf reports progress on stderr; the table goes to stdout.
func logf(format string, args ...any) { measure.Logf("bench-controller", format, args...) }

// clients are the benchmark's clients: as the cluster admin through kube-apiserver, and metrics readers for
// both servers.
type clients struct {
	kubeconfig string
	kube       kubernetes.Interface
	dyn        dynamic.Interface
	kubeMet    measure.Server
	aimMet     measure.Server
}

func newClients(c config) (*clients, error) {
	rc, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s (is the harness up? hack/local-up.sh): %w", c.kubeconfig, err)
	}
	// The benchmark's own requests must not be what limits the controller.
	rc.QPS, rc.Burst = 1000, 2000
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	kubeHTTP, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, err
	}
	aim := rest.CopyConfig(rc)
	aim.Host = c.aimServer
	aim.CAData, aim.CAFile, aim.ServerName = nil, c.aimCA, "localhost"
	aimHTTP, err := rest.HTTPClientFor(aim)
	if err != nil {
		return nil, err
	}
	return &clients{
		kubeconfig: c.kubeconfig, kube: kube, dyn: dyn,
		kubeMet: measure.Server{Name: "kube-apiserver", Client: kubeHTTP, MetricsURL: strings.TrimSuffix(rc.Host, "/") + "/metrics"},
		aimMet:  measure.Server{Name: "aim-apiserver", Client: aimHTTP, MetricsURL: strings.TrimSuffix(aim.Host, "/") + "/metrics", Profiling: true},
	}, nil
}

func run(ctx context.Context, c config) error {
	if c.services < 1 || c.models < 1 || c.nodes < 1 || c.namespaces < 1 || c.edits < 0 || c.edits > c.services {
		return fmt.Errorf("need at least one node, model, namespace and service, and no more edits than services")
	}
	cl, err := newClients(c)
	if err != nil {
		return err
	}
	r := &result{config: c, cores: runtime.NumCPU(), loadBefore: measure.Loadavg()}
	w := newWorld(cl, c)
	if !c.keep {
		defer w.cleanup()
	}
	if err := w.setup(ctx); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	if err := w.converge(ctx, r); err != nil {
		return fmt.Errorf("applying the services: %w", err)
	}
	if err := w.steady(ctx, r); err != nil {
		return fmt.Errorf("steady state: %w", err)
	}
	if err := w.handEdits(ctx, r); err != nil {
		return fmt.Errorf("hand edits: %w", err)
	}
	r.loadAfter = measure.Loadavg()
	r.print(os.Stdout)
	return nil
}
