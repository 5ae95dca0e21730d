package main

import (
	"fmt"
	"io"
	"sort"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/aim-apiserver/aim-apiserver/hack/bench/measure"
)

// writeKey names one kind of write request a server received (apiserver_request_total) or the controller sent
// (aim_controller_write_requests_total, where subresource is part of resource).
type writeKey struct {
	Group, Resource, Subresource, Verb string
}

func (k writeKey) String() string {
	r := k.Resource
	if k.Subresource != "" {
		r += "/" + k.Subresource
	}
	if k.Group != "" {
		r += "." + k.Group
	}
	return k.Verb + " " + r
}

// writes counts write requests by kind.
type writes map[writeKey]float64

func (w writes) total() float64 {
	var sum float64
	for _, v := range w {
		sum += v
	}
	return sum
}

// minus is what happened between an earlier count and this one.
func (w writes) minus(earlier writes) writes {
	out := writes{}
	for k, v := range w {
		if d := v - earlier[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// since is what was written after earlier; a process that started again in between counts from zero.
func (w writes) since(earlier writes) writes {
	if w.total() < earlier.total() {
		return w
	}
	return w.minus(earlier)
}

// without drops the kinds of writes keep says no to.
func (w writes) without(drop func(writeKey) bool) writes {
	out := writes{}
	for k, v := range w {
		if !drop(k) {
			out[k] = v
		}
	}
	return out
}

// sorted lists the kinds of writes, most first.
func (w writes) sorted() []writeKey {
	keys := make([]writeKey, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if w[keys[i]] != w[keys[j]] {
			return w[keys[i]] > w[keys[j]]
		}
		return keys[i].String() < keys[j].String()
	})
	return keys
}

// mutatingVerbs are the verbs of apiserver_request_total that write.
var mutatingVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// scrape is one reading of a server's /metrics.
type scrape struct {
	Requests   writes // apiserver_request_total, write verbs only
	Controller writes // aim_controller_write_requests_total
	// Reconciles are controller_runtime_reconcile_total by controller, every result.
	Reconciles map[string]float64
	CPUSeconds float64
	RSSBytes   float64
	HeapBytes  float64
	// QueueDepth is the service controller's queue depth.
	QueueDepth float64
	// WriteLatency is aim_controller_write_duration_seconds over every kind of write.
	WriteLatency histogram
}

// parseMetrics reads the metrics the benchmark uses from Prometheus text.
func parseMetrics(r io.Reader) (scrape, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return scrape{}, fmt.Errorf("parsing metrics: %w", err)
	}
	return fromFamilies(families), nil
}

// readScrape reads a server's metrics.
func readScrape(s measure.Server) (scrape, error) {
	families, err := s.Families()
	if err != nil {
		return scrape{}, err
	}
	return fromFamilies(families), nil
}

func fromFamilies(families map[string]*dto.MetricFamily) scrape {
	s := scrape{Requests: writes{}, Controller: writes{}, Reconciles: map[string]float64{}}
	for _, m := range families["apiserver_request_total"].GetMetric() {
		l := labels(m)
		if mutatingVerbs[l["verb"]] {
			s.Requests[writeKey{Group: l["group"], Resource: l["resource"], Subresource: l["subresource"], Verb: l["verb"]}] += m.GetCounter().GetValue()
		}
	}
	for _, m := range families["aim_controller_write_requests_total"].GetMetric() {
		l := labels(m)
		s.Controller[writeKey{Group: l["group"], Resource: l["resource"], Verb: l["verb"]}] += m.GetCounter().GetValue()
	}
	for _, m := range families["controller_runtime_reconcile_total"].GetMetric() {
		s.Reconciles[labels(m)["controller"]] += m.GetCounter().GetValue()
	}
	for _, m := range families["workqueue_depth"].GetMetric() {
		if labels(m)["name"] == "service" {
			s.QueueDepth = m.GetGauge().GetValue()
		}
	}
	s.WriteLatency = histogramOf(families["aim_controller_write_duration_seconds"])
	s.CPUSeconds = measure.Single(families["process_cpu_seconds_total"])
	s.RSSBytes = measure.Single(families["process_resident_memory_bytes"])
	s.HeapBytes = measure.Single(families["go_memstats_heap_inuse_bytes"])
	return s
}

func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
