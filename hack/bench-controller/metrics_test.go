package main

import (
	"math"
	"strings"
	"testing"
)

const sample = `# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="aim.eai.amd.com",resource="aimservices",scope="resource",subresource="",verb="POST",version="v1alpha1"} 1000
apiserver_request_total{code="200",component="apiserver",dry_run="",group="aim.eai.amd.com",resource="aimservices",scope="resource",subresource="status",verb="PUT",version="v1alpha1"} 2000
apiserver_request_total{code="200",component="apiserver",dry_run="",group="aim.eai.amd.com",resource="aimservices",scope="resource",subresource="",verb="GET",version="v1alpha1"} 5
apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 7
# TYPE aim_controller_write_requests_total counter
aim_controller_write_requests_total{group="serving.kserve.io",resource="inferenceservices",verb="APPLY"} 1000
# TYPE workqueue_depth gauge
workqueue_depth{name="service"} 3
workqueue_depth{name="template"} 9
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1.048576e+08
# TYPE go_memstats_heap_inuse_bytes gauge
go_memstats_heap_inuse_bytes 5e+07
`

func TestParseMetrics(t *testing.T) {
	s, err := parseMetrics(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	post := writeKey{Group: "aim.eai.amd.com", Resource: "aimservices", Verb: "POST"}
	status := writeKey{Group: "aim.eai.amd.com", Resource: "aimservices", Subresource: "status", Verb: "PUT"}
	if s.Requests[post] != 1000 || s.Requests[status] != 2000 || len(s.Requests) != 3 {
		t.Errorf("write requests (GET left out): %v", s.Requests)
	}
	if got := s.Controller[writeKey{Group: "serving.kserve.io", Resource: "inferenceservices", Verb: "APPLY"}]; got != 1000 {
		t.Errorf("controller applies = %v", got)
	}
	if s.QueueDepth != 3 || s.CPUSeconds != 12.5 || s.RSSBytes != 1<<20*100 || s.HeapBytes != 5e7 {
		t.Errorf("depth %v, cpu %v, rss %v, heap %v", s.QueueDepth, s.CPUSeconds, s.RSSBytes, s.HeapBytes)
	}
}

func TestAPIWritesLeaveOutLeasesAndProxiedAIMRequests(t *testing.T) {
	lease := writeKey{Group: "coordination.k8s.io", Resource: "leases", Verb: "PUT"}
	svc := writeKey{Group: "aim.eai.amd.com", Resource: "aimservices", Subresource: "status", Verb: "PUT"}
	isvc := writeKey{Group: "serving.kserve.io", Resource: "inferenceservices", Verb: "APPLY"}
	before := scrape{Requests: writes{lease: 1, svc: 1, isvc: 1}}
	after := scrape{Requests: writes{lease: 5, svc: 4, isvc: 3}}
	aim, kube := apiWrites(before, after, before, after)
	if aim.total() != 5 || aim[lease] != 0 {
		t.Errorf("aim-apiserver writes: %v", aim)
	}
	if kube.total() != 2 || kube[isvc] != 2 {
		t.Errorf("kube-apiserver writes (AIM requests are counted where served): %v", kube)
	}
	if got := breakdown(aim, kube, 2); got != "aim PUT aimservices/status.aim.eai.amd.com 1.50, aim APPLY inferenceservices.serving.kserve.io 1.00, kube APPLY inferenceservices.serving.kserve.io 1.00" {
		t.Errorf("breakdown: %s", got)
	}
}

func TestHistogramQuantileAndRestart(t *testing.T) {
	inf := math.Inf(1)
	before := histogram{0.001: 10, 0.01: 20, 0.1: 20, inf: 20}
	after := histogram{0.001: 10, 0.01: 110, 0.1: 119, inf: 120}
	d := after.since(before)
	if got := d.quantile(0.5); got != "<= 0.01s" {
		t.Errorf("p50 of 100 writes, 90 under 10 ms = %q", got)
	}
	if got := d.quantile(0.99); got != "<= 0.1s" {
		t.Errorf("p99 = %q", got)
	}
	// A replica that started again counts from zero: its reading is what it did since.
	restarted := histogram{0.001: 1, 0.01: 1, 0.1: 1, inf: 2}
	if got := restarted.since(before).quantile(0.99); got != "> the largest bucket" {
		t.Errorf("after a restart p99 = %q", got)
	}
	if got := (histogram{}).quantile(0.5); got != "-" {
		t.Errorf("no samples: %q", got)
	}
}

func TestHistogramOfTextFormat(t *testing.T) {
	s, err := parseMetrics(strings.NewReader(`# TYPE aim_controller_write_duration_seconds histogram
aim_controller_write_duration_seconds_bucket{verb="APPLY",le="0.001"} 50
aim_controller_write_duration_seconds_bucket{verb="APPLY",le="0.002"} 99
aim_controller_write_duration_seconds_bucket{verb="APPLY",le="0.004"} 100
aim_controller_write_duration_seconds_bucket{verb="APPLY",le="+Inf"} 100
aim_controller_write_duration_seconds_sum{verb="APPLY"} 0.1
aim_controller_write_duration_seconds_count{verb="APPLY"} 100
`))
	if err != nil {
		t.Fatal(err)
	}
	if p50, p99 := s.WriteLatency.quantile(0.5), s.WriteLatency.quantile(0.99); p50 != "<= 0.001s" || p99 != "<= 0.002s" {
		t.Errorf("p50 %q, p99 %q", p50, p99)
	}
}
