// Command bench measures the AIM API on the real-cluster harness (hack/local-up.sh; `make bench` brings it up
// with the controller off and down again) side by side with a CRD twin of the same kinds: the same schemas,
// generated from aim-apiserver's published OpenAPI, served by kube-apiserver under another group. Paths: the
// aggregated API (kube-apiserver -> aim-apiserver), the CRD twin, aim-apiserver directly, and raw etcd puts of
// the bytes aim-apiserver stores. It measures creates, updates, status updates, lists, watch delivery, memory
// and etcd bytes, in rounds with the paths interleaved, and prints one table with the median (and best) of the
// rounds, the ratio aggregated/CRD and the targets of issue 13. It asserts nothing.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/grpclog"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

type config struct {
	kubeconfig    string
	aimServer     string
	aimCA         string
	etcdServer    string
	etcdCerts     string
	etcdMetrics   string
	twinGroup     string
	objects       int
	serial        int
	concurrency   int
	rounds        int
	listRepeats   int
	watchers      int
	watchEvents   int
	keep          bool
	settle        time.Duration
	timeout       time.Duration
	namespaceBase string
	// only names the paths to run (all when empty), e.g. to profile one.
	only []string
}

func main() {
	var c config
	// A flag set of its own: imported packages register flags on the global one.
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	fs.StringVar(&c.kubeconfig, "kubeconfig", harnessdir.Local(".", "kubeconfig"), "Cluster admin kubeconfig of the harness.")
	fs.StringVar(&c.aimServer, "aim-server", "https://127.0.0.1:"+measure.EnvOr("AIM_PORT", "18443"), "aim-apiserver's address, for the direct path and its /metrics.")
	fs.StringVar(&c.aimCA, "aim-ca", harnessdir.Local(".", "pki", "aim-apiserver-ca.crt"), "CA of aim-apiserver's serving certificate (hack/local-up.sh writes it).")
	fs.StringVar(&c.etcdServer, "etcd-server", "https://127.0.0.1:"+measure.EnvOr("ETCD_PORT", "23790"), "The harness's etcd.")
	fs.StringVar(&c.etcdCerts, "etcd-certs", harnessdir.Local(".", "pki", "etcd"), "Directory with etcd's ca.crt and a client.crt/client.key (hack/local-up.sh's).")
	fs.StringVar(&c.etcdMetrics, "etcd-metrics", "http://127.0.0.1:"+measure.EnvOr("ETCD_METRICS_PORT", "23810")+"/metrics", "etcd's metrics URL.")
	fs.StringVar(&c.twinGroup, "twin-group", "twin.aim.eai.amd.com", "Group of the CRD twin.")
	fs.IntVar(&c.objects, "objects", 10000, "AIMServices per path and round (the LIST size).")
	fs.IntVar(&c.serial, "serial", 500, "Of those, how many are created one at a time (concurrency 1).")
	fs.IntVar(&c.concurrency, "concurrency", 16, "Parallel requests for the other creates, the updates and the status updates.")
	fs.IntVar(&c.rounds, "rounds", 3, "Rounds; each runs every path once, in a rotated order.")
	fs.IntVar(&c.listRepeats, "list-repeats", 3, "Each LIST is read this many times per round; the fastest counts.")
	fs.IntVar(&c.watchers, "watchers", 100, "Concurrent watches for the watch delivery measure.")
	fs.IntVar(&c.watchEvents, "watch-events", 1000, "Changes each watcher must receive.")
	fs.BoolVar(&c.keep, "keep", false, "Leave the CRD twin and the namespaces in the cluster.")
	fs.DurationVar(&c.settle, "settle", 30*time.Second, "After each path, wait at most this long for the servers to go idle, so that the work it left behind is not charged to the next path (0: go on at once, for a run that only checks the program).")
	fs.DurationVar(&c.timeout, "timeout", 90*time.Minute, "Give up after this long.")
	fs.StringVar(&c.namespaceBase, "namespace", "bench-api", "Prefix of the namespaces the benchmark works in.")
	fs.Func("paths", "Comma-separated paths to run (aggregated, CRD twin, direct, etcd); all unless set. For profiling one path.", func(v string) error {
		for _, p := range strings.Split(v, ",") {
			c.only = append(c.only, strings.TrimSpace(p))
		}
		return nil
	})
	_ = fs.Parse(os.Args[1:])
	if c.serial >= c.objects {
		fmt.Fprintln(os.Stderr, "bench: -serial must be smaller than -objects")
		os.Exit(2)
	}
	measure.Main("bench", c.timeout, func(ctx context.Context) error { return run(ctx, c) })
}

// logf reports progress on stderr; the table goes to stdout.
func logf(format string, args ...any) { measure.Logf("bench", format, args...) }

// harness is what the benchmark talks to.
type harness struct {
	// admin sends what is not measured (namespaces, the CRD twin) to kube-apiserver; base is its address.
	admin *apiPath
	// paths are the measured ones, in the order of the table.
	paths                   []*apiPath
	aggregated, crd, direct *apiPath
	servers                 []measure.Server
	etcd                    *clientv3.Client
	// maxSettle bounds the wait for idle servers after each path (-settle).
	maxSettle time.Duration
}

func connect(c config) (*harness, error) {
	kube, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", c.kubeconfig, err)
	}
	kube.QPS, kube.Burst = -1, 0 // no client-side rate limit: the servers are measured
	httpClient := func(cfg *rest.Config) (*http.Client, error) {
		rt, err := rest.TransportFor(cfg)
		if err != nil {
			return nil, err
		}
		return &http.Client{Transport: rt, Timeout: 5 * time.Minute}, nil
	}
	// Each path has its own connections, as separate clients would.
	agg, err := httpClient(kube)
	if err != nil {
		return nil, err
	}
	twin, err := httpClient(kube)
	if err != nil {
		return nil, err
	}
	kubeHTTP, err := httpClient(kube)
	if err != nil {
		return nil, err
	}
	aimCfg := rest.CopyConfig(kube)
	aimCfg.Host = c.aimServer
	aimCfg.TLSClientConfig.CAData, aimCfg.TLSClientConfig.CAFile = nil, c.aimCA
	direct, err := httpClient(aimCfg)
	if err != nil {
		return nil, err
	}
	aimMetrics, err := httpClient(aimCfg)
	if err != nil {
		return nil, err
	}
	etcd, err := etcdClient(c)
	if err != nil {
		return nil, err
	}
	h := &harness{
		admin: &apiPath{name: "kube-apiserver", base: kube.Host, client: kubeHTTP},
		aggregated: &apiPath{name: pathAggregated, base: kube.Host + "/apis/aim.eai.amd.com/v1alpha1", group: "aim.eai.amd.com", client: agg, protobuf: true,
			etcdPrefix: "/registry/aim.eai.amd.com/aim.eai.amd.com/aimservices/"},
		crd: &apiPath{name: pathCRD, base: kube.Host + "/apis/" + c.twinGroup + "/v1alpha1", group: c.twinGroup, client: twin,
			etcdPrefix: "/registry/" + c.twinGroup + "/aimservices/"},
		direct: &apiPath{name: pathDirect, base: c.aimServer + "/apis/aim.eai.amd.com/v1alpha1", group: "aim.eai.amd.com", client: direct, protobuf: true,
			etcdPrefix: "/registry/aim.eai.amd.com/aim.eai.amd.com/aimservices/"},
		etcd:      etcd,
		maxSettle: c.settle,
		servers: []measure.Server{
			{Name: "kube-apiserver", Client: kubeHTTP, MetricsURL: kube.Host + "/metrics", Profiling: true},
			{Name: "aim-apiserver", Client: aimMetrics, MetricsURL: c.aimServer + "/metrics", Profiling: true},
			{Name: "etcd", Client: http.DefaultClient, MetricsURL: c.etcdMetrics},
		},
	}
	h.paths = []*apiPath{h.aggregated, h.crd, h.direct}
	return h, nil
}

func etcdClient(c config) (*clientv3.Client, error) {
	pair, err := tls.LoadX509KeyPair(filepath.Join(c.etcdCerts, "client.crt"), filepath.Join(c.etcdCerts, "client.key"))
	if err != nil {
		return nil, fmt.Errorf("etcd client certificate: %w", err)
	}
	pool, err := cert.NewPool(filepath.Join(c.etcdCerts, "ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("etcd CA: %w", err)
	}
	// The etcd client's gRPC logs every dial it gives up as a warning; only errors matter here.
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, os.Stderr))
	// Connect before starting, so that a wrong address or certificate fails here with its cause instead of
	// every etcd read waiting until the run's timeout.
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{c.etcdServer}, DialTimeout: 10 * time.Second,
		DialOptions: []grpc.DialOption{grpc.WithBlock(), grpc.WithReturnConnectionError()},
		TLS:         &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}})
	if err != nil {
		return nil, fmt.Errorf("connecting to etcd at %s with the certificates of %s: %w", c.etcdServer, c.etcdCerts, err)
	}
	return client, nil
}

func run(ctx context.Context, c config) error {
	h, err := connect(c)
	if err != nil {
		return err
	}
	defer h.etcd.Close()
	r := newResults(c)
	r.loadBefore = measure.Loadavg()
	r.cores = runtime.NumCPU()
	logf("installing the CRD twin (group %s) from aim-apiserver's OpenAPI", c.twinGroup)
	if err := h.installTwin(ctx, c); err != nil {
		return fmt.Errorf("CRD twin: %w", err)
	}
	for _, p := range h.paths {
		if err := h.ensureNamespace(ctx, c.namespace(p)); err != nil {
			return err
		}
	}
	if !c.keep {
		defer h.cleanup(c)
	}
	for round := range c.rounds {
		// Rotate the order so that no path always runs first (or on a warmer machine).
		for i := range h.paths {
			p := h.paths[(i+round)%len(h.paths)]
			if !c.runs(p.name) {
				continue
			}
			logf("round %d/%d: %s", round+1, c.rounds, p.name)
			if err := h.benchPath(ctx, c, r, p); err != nil {
				return fmt.Errorf("round %d, %s: %w", round+1, p.name, err)
			}
		}
		if !c.runs(pathEtcd) {
			continue
		}
		logf("round %d/%d: raw etcd puts", round+1, c.rounds)
		if err := h.benchEtcd(ctx, c, r); err != nil {
			return fmt.Errorf("round %d, etcd: %w", round+1, err)
		}
	}
	r.loadAfter = measure.Loadavg()
	r.print(os.Stdout)
	return nil
}

func (c config) namespace(p *apiPath) string {
	switch p.name {
	case pathAggregated:
		return c.namespaceBase + "-agg"
	case pathDirect:
		return c.namespaceBase + "-direct"
	}
	return c.namespaceBase + "-crd"
}

// runs says whether the path is to run.
func (c config) runs(path string) bool { return len(c.only) == 0 || slices.Contains(c.only, path) }
