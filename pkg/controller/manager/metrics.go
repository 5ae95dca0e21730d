package manager

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	// leader_election_master_status{name="aim-apiserver-controller"}: 1 on the replica that leads, as on
	// kube-controller-manager.
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"
	// Queue depth, adds, latency, work duration and retries of every controller queue, labelled by its name.
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
)

// The controller's metrics, on aim-apiserver's /metrics. README "Controller metrics" lists them.
var (
	reconcileTotal = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "aim", Subsystem: "controller", Name: "reconcile_total",
		Help:           "Reconciles by controller and result: success, requeue (asked to look again later, or a write conflicted) or error (retried with backoff).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"controller", "result"})
	reconcileDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: "aim", Subsystem: "controller", Name: "reconcile_duration_seconds",
		Help:           "Time one reconcile took, by controller.",
		Buckets:        metrics.ExponentialBuckets(0.0005, 2, 16),
		StabilityLevel: metrics.ALPHA,
	}, []string{"controller"})
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

func registerControllerMetrics() {
	registerMetrics.Do(func() {
		legacyregistry.MustRegister(reconcileTotal, reconcileDuration, writeTotal, writeDuration)
	})
}

// The results of a reconcile, as aim_controller_reconcile_total counts them.
const (
	resultSuccess = "success"
	resultError   = "error"
	// resultRequeue: the reconcile asked to come back (a sync interval, a discovery slot) or met a conflict.
	resultRequeue = "requeue"
)

// observeReconcile records one reconcile's result and duration.
func observeReconcile(controller string, start time.Time, result string) {
	reconcileTotal.WithLabelValues(controller, result).Inc()
	reconcileDuration.WithLabelValues(controller).Observe(time.Since(start).Seconds())
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
