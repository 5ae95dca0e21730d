package main

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
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
	CPUSeconds float64
	RSSBytes   float64
	HeapBytes  float64
	// QueueDepth is the service controller's queue depth.
	QueueDepth float64
}

// parseMetrics reads the metrics the benchmark uses from Prometheus text.
func parseMetrics(r io.Reader) (scrape, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return scrape{}, fmt.Errorf("parsing metrics: %w", err)
	}
	s := scrape{Requests: writes{}, Controller: writes{}}
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
	for _, m := range families["workqueue_depth"].GetMetric() {
		if labels(m)["name"] == "service" {
			s.QueueDepth = m.GetGauge().GetValue()
		}
	}
	s.CPUSeconds = single(families["process_cpu_seconds_total"])
	s.RSSBytes = single(families["process_resident_memory_bytes"])
	s.HeapBytes = single(families["go_memstats_heap_inuse_bytes"])
	return s, nil
}

func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// single is the value of a metric without labels (0 when the server does not export it).
func single(f *dto.MetricFamily) float64 {
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Untyped != nil:
			return m.GetUntyped().GetValue()
		}
	}
	return 0
}

// metricsReader reads one server's /metrics.
type metricsReader struct {
	client *http.Client
	url    string
}

// collect has the server collect garbage (its heap profile does, first) and returns the profile, so that
// the next reading of its heap counts live objects only.
func (r metricsReader) collect() ([]byte, error) {
	url := strings.TrimSuffix(r.url, "/metrics") + "/debug/pprof/heap?gc=1"
	resp, err := r.client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading %s: %s %v", url, resp.Status, err)
	}
	return body, nil
}

func (r metricsReader) read() (scrape, error) {
	resp, err := r.client.Get(r.url)
	if err != nil {
		return scrape{}, fmt.Errorf("reading %s: %w", r.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return scrape{}, fmt.Errorf("reading %s: %s: %s", r.url, resp.Status, strings.TrimSpace(string(body)))
	}
	return parseMetrics(resp.Body)
}
