// Package service holds the AIMService controller's planning: which template a service runs and how its
// workloads look. Everything here is pure.
package service

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Candidate reasons recorded in status.templateMatching (F3); a tie is ReasonAmbiguous.
const (
	ReasonBestMatch              = "BestMatch"
	ReasonDefaultTemplate        = "DefaultServiceTemplate"
	ReasonTemplateNotReady       = "TemplateNotReady"
	ReasonUnoptimizedFiltered    = "UnoptimizedTemplateFiltered"
	ReasonOverridesNotMatched    = "ServiceOverridesNotMatched"
	ReasonGPUNotInCluster        = "RequiredGPUNotInCluster"
	ReasonNamespaceScopePrefered = "NamespaceTemplatePreferred"
	ReasonLowerPreferenceRank    = "LowerPreferenceRank"
	ReasonPreviouslyResolved     = "PreviouslyResolved"

	StatusChosen   = "chosen"
	StatusRejected = "rejected"
)

// Candidate is a template of the service's model as selection sees it.
type Candidate struct {
	Name      string
	Namespace string // empty for cluster templates
	Status    aimv1.AIMStatus
	// Profile values: from the discovered profile when present, else from the spec.
	Type      aimv1.AIMProfileType
	Metric    aimv1.AIMMetric
	Precision aimv1.AIMPrecision
	GPUModel  string
	GPUCount  int32
}

// Request is what the service asks of its template.
type Request struct {
	AllowUnoptimized bool
	// Overrides narrow the choice; empty fields match anything.
	Metric    aimv1.AIMMetric
	Precision aimv1.AIMPrecision
	GPUModel  string
	GPUCount  int32
	// DefaultTemplate is the model's defaultServiceTemplate (F6).
	DefaultTemplate string
	// GPUModels present in the cluster (F11).
	GPUModels []string
	// Resolved is the candidate (namespace/name) the service resolved before: it stays chosen while it is
	// Ready, whatever else qualifies.
	Resolved string
}

// Selection is the outcome: the chosen template, or none with a reason, and every candidate's verdict.
type Selection struct {
	Chosen     *Candidate
	Candidates []aimv1.AIMTemplateCandidate
	// Ambiguous is true when several candidates tie for best (F3): nothing is chosen.
	Ambiguous bool
	// Reason and Message explain the outcome for the TemplateReady condition.
	Reason, Message string
}

// Select picks a service's template: it filters candidates (Ready; optimized unless allowed; matching the
// overrides; GPU present in the cluster; namespaced before cluster), prefers the model's default template,
// then ranks by profile type, GPU generation (newest first), metric (latency first) and precision (fewest
// bits first). A tie is reported, not broken arbitrarily.
func Select(cands []Candidate, req Request) Selection {
	var s Selection
	verdict := map[string]aimv1.AIMTemplateCandidate{}
	reject := func(c Candidate, reason, msg string) {
		verdict[key(c)] = c.verdict(StatusRejected, reason, msg)
	}
	present := map[string]bool{}
	for _, m := range req.GPUModels {
		present[gpu.NormalizeModel(m)] = true
	}

	var left []Candidate
	for _, c := range cands {
		switch {
		case c.Status != aimv1.AIMStatusReady:
			reject(c, ReasonTemplateNotReady, fmt.Sprintf("template is %s", cmp.Or(string(c.Status), "Pending")))
		case !req.AllowUnoptimized && c.Type != aimv1.AIMProfileTypeOptimized:
			reject(c, ReasonUnoptimizedFiltered, fmt.Sprintf("profile is %s; set spec.template.allowUnoptimized to use it", cmp.Or(string(c.Type), "unoptimized")))
		case !matches(c, req):
			reject(c, ReasonOverridesNotMatched, "the profile does not match spec.overrides")
		case c.GPUModel != "" && !present[gpu.NormalizeModel(c.GPUModel)]:
			reject(c, ReasonGPUNotInCluster, fmt.Sprintf("no node has %s", gpu.NormalizeModel(c.GPUModel)))
		default:
			left = append(left, c)
		}
	}
	if slices.ContainsFunc(left, func(c Candidate) bool { return c.Namespace != "" }) {
		left = slices.DeleteFunc(left, func(c Candidate) bool {
			if c.Namespace == "" {
				reject(c, ReasonNamespaceScopePrefered, "a template in the service's namespace qualifies")
				return true
			}
			return false
		})
	}

	switch {
	case len(cands) == 0:
		s.Reason, s.Message = ReasonTemplateNotFound, "the model has no templates"
	case len(left) == 0:
		s.Reason, s.Message = ReasonTemplateNotFound, fmt.Sprintf("none of the model's %d templates qualifies (see status.templateMatching)", len(cands))
	default:
		s.pick(left, req, verdict)
	}
	s.keepResolved(cands, req.Resolved, verdict)
	for _, c := range cands {
		s.Candidates = append(s.Candidates, verdict[key(c)])
	}
	return s
}

func (s *Selection) pick(left []Candidate, req Request, verdict map[string]aimv1.AIMTemplateCandidate) {
	choose := func(c Candidate, reason string) {
		cc := c
		s.Chosen = &cc
		verdict[key(c)] = c.verdict(StatusChosen, reason, "")
		s.Reason = ReasonTemplateResolved
	}
	lower := func(c Candidate, msg string) {
		verdict[key(c)] = c.verdict(StatusRejected, ReasonLowerPreferenceRank, msg)
	}
	if req.DefaultTemplate != "" {
		if i := slices.IndexFunc(left, func(c Candidate) bool { return c.Name == req.DefaultTemplate }); i >= 0 {
			choose(left[i], ReasonDefaultTemplate)
			for j, c := range left {
				if j != i {
					lower(c, "the model's defaultServiceTemplate is preferred")
				}
			}
			return
		}
	}
	slices.SortStableFunc(left, func(a, b Candidate) int { return compareRank(a, b) })
	best := left[0]
	var tied []Candidate
	for _, c := range left {
		if compareRank(c, best) == 0 {
			tied = append(tied, c)
		}
	}
	if len(tied) > 1 {
		var names []string
		for _, c := range tied {
			names = append(names, c.Name)
			verdict[key(c)] = c.verdict(StatusRejected, ReasonAmbiguous, "ties with another template for best")
		}
		s.Ambiguous = true
		s.Reason = ReasonAmbiguous
		s.Message = fmt.Sprintf("templates %s tie for best; set spec.template.name or the model's defaultServiceTemplate", strings.Join(names, ", "))
		for _, c := range left[len(tied):] {
			lower(c, "ranks below "+best.Name)
		}
		return
	}
	choose(best, ReasonBestMatch)
	for _, c := range left[1:] {
		lower(c, "ranks below "+best.Name)
	}
}

// keepResolved keeps the template the service resolved before while it is Ready, as aim-engine reuses
// status.resolvedTemplate (tryFetchResolvedTemplate, template.go:157): a template added later, a GPU gone from
// the cluster or a tie does not move (or fail) a running service.
func (s *Selection) keepResolved(cands []Candidate, resolved string, verdict map[string]aimv1.AIMTemplateCandidate) {
	i := slices.IndexFunc(cands, func(c Candidate) bool { return resolved != "" && key(c) == resolved })
	if i < 0 || cands[i].Status != aimv1.AIMStatusReady || s.Chosen != nil && key(*s.Chosen) == resolved {
		return
	}
	kept := cands[i]
	for k, v := range verdict {
		if v.Status == StatusChosen || v.Reason == ReasonAmbiguous {
			v.Status, v.Reason, v.Message = StatusRejected, ReasonLowerPreferenceRank, "the service keeps "+kept.Name+", which it resolved before, while it is Ready"
			verdict[k] = v
		}
	}
	verdict[resolved] = kept.verdict(StatusChosen, ReasonPreviouslyResolved, "")
	s.Chosen, s.Ambiguous = &kept, false
	s.Reason, s.Message = ReasonTemplateResolved, ""
}

// compareRank orders candidates best first: profile type, GPU generation, metric, precision.
func compareRank(a, b Candidate) int {
	return cmp.Or(
		cmp.Compare(typeRank(a.Type), typeRank(b.Type)),
		cmp.Compare(gpuRank(a.GPUModel), gpuRank(b.GPUModel)),
		cmp.Compare(metricRank(a.Metric), metricRank(b.Metric)),
		cmp.Compare(precisionRank(a.Precision), precisionRank(b.Precision)),
	)
}

func typeRank(t aimv1.AIMProfileType) int {
	return rank([]string{"optimized", "preview", "unoptimized"}, string(t))
}

func gpuRank(model string) int {
	if model == "" {
		return gpu.Rank("") + 1 // CPU-only and unspecified come after every GPU
	}
	return gpu.Rank(model)
}

func metricRank(m aimv1.AIMMetric) int { return rank([]string{"latency", "throughput"}, string(m)) }

func precisionRank(p aimv1.AIMPrecision) int {
	return rank([]string{"fp4", "int4", "fp8", "int8", "fp16", "bf16", "fp32"}, string(p))
}

// rank is the position of v in order; unknown values rank last.
func rank(order []string, v string) int {
	if i := slices.Index(order, strings.ToLower(v)); i >= 0 {
		return i
	}
	return len(order)
}

func matches(c Candidate, r Request) bool {
	eq := func(want, have string) bool { return want == "" || strings.EqualFold(want, have) }
	return eq(string(r.Metric), string(c.Metric)) && eq(string(r.Precision), string(c.Precision)) &&
		(r.GPUModel == "" || c.GPUModel == "" || gpu.NormalizeModel(r.GPUModel) == gpu.NormalizeModel(c.GPUModel)) &&
		(r.GPUCount == 0 || c.GPUCount == 0 || r.GPUCount == c.GPUCount)
}

func key(c Candidate) string { return c.Namespace + "/" + c.Name }

// verdict is the candidate as status.templateMatching lists it.
func (c Candidate) verdict(status, reason, msg string) aimv1.AIMTemplateCandidate {
	return aimv1.AIMTemplateCandidate{Name: c.Name, Namespace: c.Namespace, Scope: state.ScopeOf(c.Namespace), Status: status, Reason: reason, Message: msg}
}
