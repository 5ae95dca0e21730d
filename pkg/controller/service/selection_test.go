package service

import (
	"testing"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

func cand(name string, mods ...func(*Candidate)) Candidate {
	c := Candidate{Name: name, Status: aimv1.AIMStatusReady, Type: aimv1.AIMProfileTypeOptimized,
		Metric: aimv1.AIMMetricLatency, Precision: aimv1.AIMPrecisionFP8, GPUModel: "MI300X", GPUCount: 1}
	for _, m := range mods {
		m(&c)
	}
	return c
}

func ns(c *Candidate)                           { c.Namespace = "team" }
func gpuModel(m string) func(*Candidate)        { return func(c *Candidate) { c.GPUModel = m } }
func status(s aimv1.AIMStatus) func(*Candidate) { return func(c *Candidate) { c.Status = s } }
func typ(t aimv1.AIMProfileType) func(*Candidate) {
	return func(c *Candidate) { c.Type = t }
}
func metric(m aimv1.AIMMetric) func(*Candidate)       { return func(c *Candidate) { c.Metric = m } }
func precision(p aimv1.AIMPrecision) func(*Candidate) { return func(c *Candidate) { c.Precision = p } }

var allGPUs = []string{"MI355X", "MI300X", "MI210"}

func TestSelect(t *testing.T) {
	cases := []struct {
		name      string
		cands     []Candidate
		req       Request
		chosen    string
		reason    string
		ambiguous bool
		rejected  map[string]string // name -> reason
	}{
		{name: "no templates", reason: "TemplateNotFound"},
		{name: "only ready templates", cands: []Candidate{cand("pending", status(aimv1.AIMStatusPending)), cand("ready")},
			chosen: "ready", rejected: map[string]string{"pending": ReasonTemplateNotReady}},
		{name: "unoptimized filtered", cands: []Candidate{cand("opt", metric(aimv1.AIMMetricThroughput)), cand("prev", typ(aimv1.AIMProfileTypePreview))},
			chosen: "opt", rejected: map[string]string{"prev": ReasonUnoptimizedFiltered}},
		{name: "unoptimized allowed but optimized first", req: Request{AllowUnoptimized: true},
			cands:  []Candidate{cand("unopt", typ(aimv1.AIMProfileTypeUnoptimized)), cand("opt", metric(aimv1.AIMMetricThroughput))},
			chosen: "opt", rejected: map[string]string{"unopt": ReasonLowerPreferenceRank}},
		{name: "overrides", req: Request{Precision: "FP16"},
			cands:  []Candidate{cand("fp8"), cand("fp16", precision(aimv1.AIMPrecisionFP16))},
			chosen: "fp16", rejected: map[string]string{"fp8": ReasonOverridesNotMatched}},
		{name: "override GPU count", req: Request{GPUCount: 8},
			cands: []Candidate{cand("one")}, reason: "TemplateNotFound", rejected: map[string]string{"one": ReasonOverridesNotMatched}},
		{name: "GPU must be present", cands: []Candidate{cand("mi355", gpuModel("MI355X")), cand("mi300")}, req: Request{GPUModels: []string{"MI300X"}},
			chosen: "mi300", rejected: map[string]string{"mi355": ReasonGPUNotInCluster}},
		{name: "newest GPU first (F11)", cands: []Candidate{cand("mi210", gpuModel("MI210")), cand("mi355", gpuModel("mi355x")), cand("mi300")},
			chosen: "mi355", rejected: map[string]string{"mi210": ReasonLowerPreferenceRank, "mi300": ReasonLowerPreferenceRank}},
		// Ranked by the canonical name, as GPU presence reads it (compatibility.md, GPU ranking).
		{name: "a GPU spelt otherwise ranks as its model", cands: []Candidate{cand("mi210", gpuModel("MI210")), cand("instinct", gpuModel("Instinct MI300X"))},
			chosen: "instinct", rejected: map[string]string{"mi210": ReasonLowerPreferenceRank}},
		{name: "metric then precision", cands: []Candidate{cand("thr", metric(aimv1.AIMMetricThroughput), precision(aimv1.AIMPrecisionFP4)), cand("lat16", precision(aimv1.AIMPrecisionFP16)), cand("lat8")},
			chosen: "lat8"},
		{name: "namespace before cluster", cands: []Candidate{cand("cluster", gpuModel("MI355X")), cand("local", ns)},
			chosen: "local", rejected: map[string]string{"cluster": ReasonNamespaceScopePrefered}},
		{name: "tie is ambiguous (F3)", cands: []Candidate{cand("a"), cand("b"), cand("c", gpuModel("MI210"))},
			ambiguous: true, reason: ReasonAmbiguous, rejected: map[string]string{"a": ReasonAmbiguous, "b": ReasonAmbiguous, "c": ReasonLowerPreferenceRank}},
		{name: "default template wins a tie (F6)", req: Request{DefaultTemplate: "b"}, cands: []Candidate{cand("a"), cand("b")},
			chosen: "b", rejected: map[string]string{"a": ReasonLowerPreferenceRank}},
		{name: "default template must qualify", req: Request{DefaultTemplate: "b"},
			cands: []Candidate{cand("a"), cand("b", status(aimv1.AIMStatusFailed))}, chosen: "a", rejected: map[string]string{"b": ReasonTemplateNotReady}},
		// aim-engine's tryFetchResolvedTemplate: the template resolved before stays while it is Ready.
		{name: "resolved stays over a better one", req: Request{Resolved: "/mi300"}, cands: []Candidate{cand("mi300"), cand("mi355", gpuModel("MI355X"))},
			chosen: "mi300", reason: ReasonTemplateResolved, rejected: map[string]string{"mi300": ReasonPreviouslyResolved, "mi355": ReasonLowerPreferenceRank}},
		{name: "resolved breaks a tie", req: Request{Resolved: "/b"}, cands: []Candidate{cand("a"), cand("b")},
			chosen: "b", reason: ReasonTemplateResolved, rejected: map[string]string{"a": ReasonLowerPreferenceRank}},
		{name: "resolved stays without its GPU", req: Request{Resolved: "/mi355", GPUModels: []string{"MI300X"}},
			cands: []Candidate{cand("mi355", gpuModel("MI355X")), cand("mi300")}, chosen: "mi355", rejected: map[string]string{"mi300": ReasonLowerPreferenceRank}},
		{name: "resolved and best keeps its reason", req: Request{Resolved: "/mi355"}, cands: []Candidate{cand("mi300"), cand("mi355", gpuModel("MI355X"))},
			chosen: "mi355", rejected: map[string]string{"mi355": ReasonBestMatch}},
		{name: "resolved not Ready is selected anew", req: Request{Resolved: "/a"}, cands: []Candidate{cand("a", status(aimv1.AIMStatusProgressing)), cand("b")},
			chosen: "b", rejected: map[string]string{"a": ReasonTemplateNotReady}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.req.GPUModels == nil {
				tc.req.GPUModels = allGPUs
			}
			s := Select(tc.cands, tc.req)
			got := ""
			if s.Chosen != nil {
				got = s.Chosen.Name
			}
			if got != tc.chosen || s.Ambiguous != tc.ambiguous || (tc.reason != "" && s.Reason != tc.reason) {
				t.Errorf("chosen %q ambiguous %v reason %q (%s)", got, s.Ambiguous, s.Reason, s.Message)
			}
			if len(s.Candidates) != len(tc.cands) {
				t.Fatalf("%d candidates recorded, want %d", len(s.Candidates), len(tc.cands))
			}
			for _, c := range s.Candidates {
				switch {
				case c.Name == tc.chosen && c.Status != StatusChosen:
					t.Errorf("%s: %+v, want chosen", c.Name, c)
				case c.Name != tc.chosen && c.Status != StatusRejected:
					t.Errorf("%s: %+v, want rejected", c.Name, c)
				case tc.rejected[c.Name] != "" && c.Reason != tc.rejected[c.Name]:
					t.Errorf("%s rejected for %s, want %s", c.Name, c.Reason, tc.rejected[c.Name])
				}
			}
		})
	}
}
