package manager

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/utils/ptr"

	// leader_election_master_status{name="aim-apiserver-controller"}: 1 on the replica that leads, as on
	// kube-controller-manager.
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"
	// Queue depth, adds, latency, work duration and retries of every controller queue, labelled by its name.
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
)

// The controller's metrics, on aim-apiserver's /metrics. README "Controller metrics" lists them. The reconcile
// metrics are controller-runtime's, by name, labels and buckets, with aim-engine's controller names: its manager
// exposes them and its monitoring guide names them, so the dashboards and alerts written for it read ours.
var (
	reconcileTotal = metrics.NewCounterVec(ptr.To(metrics.CounterOpts(controllerRuntime("reconcile_total",
		"Reconciles by controller and result: success, error (retried with backoff), requeue (a write conflicted or was frozen by a migration; retried with backoff) or requeue_after (asked to look again later)."))),
		[]string{"controller", "result"})
	reconcileErrors = metrics.NewCounterVec(ptr.To(metrics.CounterOpts(controllerRuntime("reconcile_errors_total",
		"Reconciles that ended in an error, by controller."))), byController)
	reconcilePanics = metrics.NewCounterVec(ptr.To(metrics.CounterOpts(controllerRuntime("reconcile_panics_total",
		"Reconciles that panicked (recovered, counted as errors too), by controller."))), byController)
	reconcileTime = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Subsystem: "controller_runtime", Name: "reconcile_time_seconds",
		Help: "Time one reconcile took, by controller.",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
			1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60},
		StabilityLevel: metrics.ALPHA,
	}, []string{"controller"})
	maxWorkers = metrics.NewGaugeVec(ptr.To(metrics.GaugeOpts(controllerRuntime("max_concurrent_reconciles",
		"Workers of each controller (--controller-workers)."))), byController)
	activeWorkers = metrics.NewGaugeVec(ptr.To(metrics.GaugeOpts(controllerRuntime("active_workers",
		"Workers of each controller reconciling now."))), byController)
	writeTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "aim", Subsystem: "controller", Name: "write_requests_total",
		Help:           "Write requests the controller sent, by API group, resource and verb (APPLY for server-side apply).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"group", "resource", "verb"})
	writeDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: "aim", Subsystem: "controller", Name: "write_duration_seconds",
		Help:           "Time from sending a write request to its answer (or failure), by API group, resource and verb: the controller's side of the API's mutating-call latency objective.",
		Buckets:        metrics.ExponentialBuckets(0.001, 2, 15),
		StabilityLevel: metrics.ALPHA,
	}, []string{"group", "resource", "verb"})
	registerMetrics sync.Once
)

// byController labels a metric with the controller only.
var byController = []string{"controller"}

// controllerRuntime names a metric as controller-runtime does (controller_runtime_<name>); counters and gauges
// take these options alike.
func controllerRuntime(name, help string) metrics.KubeOpts {
	return metrics.KubeOpts{Subsystem: "controller_runtime", Name: name, Help: help, StabilityLevel: metrics.ALPHA}
}

func registerControllerMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(reconcileTotal, reconcileErrors, reconcilePanics, reconcileTime, maxWorkers, activeWorkers,
			writeTotal, writeDuration)
	})
}

// The results of a reconcile, as controller_runtime_reconcile_total counts them (controller-runtime's values).
const (
	resultSuccess = "success"
	resultError   = "error"
	// resultRequeue: a write conflicted or was frozen by a migration; the key is retried with backoff.
	resultRequeue = "requeue"
	// resultRequeueAfter: the reconcile asked to come back later (a sync interval, a discovery slot, a grace).
	resultRequeueAfter = "requeue_after"
)

// initMetrics gives a controller's series their values before its first reconcile, as controller-runtime does:
// a rate of errors is 0, not absent, on a controller that never failed.
func initMetrics(controller string, workers int) {
	for _, result := range []string{resultSuccess, resultError, resultRequeue, resultRequeueAfter} {
		reconcileTotal.WithLabelValues(controller, result).Add(0)
	}
	reconcileErrors.WithLabelValues(controller).Add(0)
	reconcilePanics.WithLabelValues(controller).Add(0)
	activeWorkers.WithLabelValues(controller).Set(0)
	maxWorkers.WithLabelValues(controller).Set(float64(workers))
}

// observeReconcile records one reconcile's result and duration.
func observeReconcile(controller string, start time.Time, result string) {
	reconcileTotal.WithLabelValues(controller, result).Inc()
	if result == resultError {
		reconcileErrors.WithLabelValues(controller).Inc()
	}
	reconcileTime.WithLabelValues(controller).Observe(time.Since(start).Seconds())
}

// countWrites counts the write requests a client sends and times their answers (see writeTotal, writeDuration).
func countWrites(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet || req.Method == http.MethodHead {
			return rt.RoundTrip(req)
		}
		group, resource := resourceOf(req.URL.Path)
		verb := req.Method
		if req.Method == http.MethodPatch && req.Header.Get("Content-Type") == string(types.ApplyPatchType) {
			verb = "APPLY"
		}
		writeTotal.WithLabelValues(group, resource, verb).Inc()
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		writeDuration.WithLabelValues(group, resource, verb).Observe(time.Since(start).Seconds())
		return resp, err
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// resourceOf reads the group and resource of an API path: /api/v1[/namespaces/<ns>]/<resource>/... or
// /apis/<group>/<version>[/namespaces/<ns>]/<resource>/...; a subresource is written <resource>/<sub>.
func resourceOf(path string) (group, resource string) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		group, rest = parts[1], parts[3:]
	default:
		return "", "other"
	}
	if len(rest) >= 3 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	switch len(rest) {
	case 0:
		return group, "namespaces"
	case 1, 2:
		return group, rest[0]
	default:
		return group, rest[0] + "/" + rest[2]
	}
}
