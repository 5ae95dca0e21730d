package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/discovery"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

const goodOutput = `[{"filename":"f","profile":{"metadata":{"engine":"vllm","gpu":"MI300X","gpu_count":2,"metric":"latency","precision":"fp8","type":"optimized"}},
"models":[{"name":"org/m","source":"hf://org/m","size_gb":1}]}]`

func inventory(deviceIDs ...string) gpu.Inventory {
	var nodes []corev1.Node
	for i, id := range deviceIDs {
		if id == "" {
			continue
		}
		nodes = append(nodes, corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{gpu.LabelDeviceID: id}},
			Status:     corev1.NodeStatus{Allocatable: corev1.ResourceList{"amd.com/gpu": resource.MustParse("8")}},
		})
	}
	return gpu.NewInventory(nodes)
}

func observation() Observation {
	return Observation{
		Kind: "AIMClusterServiceTemplate", Name: "tpl", UID: "uid-1", Generation: 2, JobNamespace: "aim-system",
		Spec: aimv1.AIMServiceTemplateSpecCommon{ModelName: "m",
			AIMRuntimeParameters: aimv1.AIMRuntimeParameters{Metric: ptr.To(aimv1.AIMMetricLatency),
				Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI300X", ResourceName: "amd.com/gpu"}}}},
		Model:     &Model{Ref: aimv1.AIMResolvedReference{Name: "m", Kind: "AIMClusterModel"}, Image: "repo/m:1"},
		Inventory: inventory("74a1"),
		Backoff:   discovery.Backoff{Base: time.Minute, Max: time.Hour},
		Now:       now,
	}
}

func component(p Plan, name string) *state.Component {
	for i := range p.Components {
		if p.Components[i].Name == name {
			return &p.Components[i]
		}
	}
	return nil
}

// TestJobNotCreated: a discovery Job whose create failed is not named in the status (the one named before stays),
// and its component carries the error, not the plan's "created".
func TestJobNotCreated(t *testing.T) {
	o := observation()
	o.Status.DiscoveryJob = jobReference("discover-earlier", "aim-system", "uid-earlier")
	p := PlanTemplate(o)
	if p.Job == nil || p.Status.DiscoveryJob.Name != p.Job.Name {
		t.Fatalf("planned job %v, status ref %+v", p.Job, p.Status.DiscoveryJob)
	}
	jobNotCreated(o, &p, errors.New("quota exceeded"))
	if d := cmp.Diff(o.Status.DiscoveryJob, p.Status.DiscoveryJob); d != "" {
		t.Errorf("status.discoveryJob after a failed create (-before +after):\n%s", d)
	}
	var jobs []state.Component
	for _, c := range p.Components {
		if c.Name == ComponentDiscoveryJob {
			jobs = append(jobs, c)
		}
	}
	if len(jobs) != 1 || len(jobs[0].Errors) != 1 || jobs[0].Reason == ReasonJobCreated {
		t.Errorf("DiscoveryJob components after a failed create: %+v", jobs)
	}
}

func TestPlanStartsDiscovery(t *testing.T) {
	p := PlanTemplate(observation())
	if p.Job == nil {
		t.Fatal("no discovery Job planned")
	}
	if !strings.HasSuffix(p.Job.Name, "-1") || p.Job.Namespace != "aim-system" || p.Status.DiscoveryJob.Name != p.Job.Name {
		t.Errorf("job %s/%s, status ref %+v", p.Job.Namespace, p.Job.Name, p.Status.DiscoveryJob)
	}
	if aff := p.Job.Spec.Template.Spec.Affinity; aff == nil || aff.NodeAffinity == nil {
		t.Error("discovery must go to the GPU node pool")
	}
	if c := component(p, "DiscoveryJob"); c == nil || c.State != aimv1.AIMStatusProgressing {
		t.Errorf("DiscoveryJob component %+v", c)
	}
	if p.Status.HardwareSummary != "1 x MI300X" || p.Status.ResolvedNodeAffinity == nil || p.Status.ObservedGeneration != 2 {
		t.Errorf("status %+v", p.Status)
	}
}

// TestPlacementFollowsTheSpec: the spec's GPU model places the pods even when discovery reports another one
// (aim-engine builds the affinity from the spec); a spec with only a count is placed on the model discovery
// chose.
func TestPlacementFollowsTheSpec(t *testing.T) {
	o := observation() // spec: 1 x MI300X; the cluster has MI300X (74a1) only
	o.Status.Profile = &aimv1.AIMProfile{Metadata: aimv1.AIMProfileMetadata{GPU: "MI325X", GPUCount: 1}}
	var st aimv1.AIMServiceTemplateStatus
	st.Profile = o.Status.Profile
	planHardware(o, &st, false)
	if st.ResolvedNodeAffinity == nil || !strings.Contains(st.ResolvedNodeAffinity.String(), "74a1") {
		t.Errorf("spec MI300X, discovery MI325X: affinity %v, want MI300X's nodes", st.ResolvedNodeAffinity)
	}

	o.Spec.Hardware.GPU.Model = ""
	o.Status.Profile.Metadata.GPU = "MI300X"
	st = aimv1.AIMServiceTemplateStatus{Profile: o.Status.Profile}
	planHardware(o, &st, false)
	if st.ResolvedNodeAffinity == nil || !strings.Contains(st.ResolvedNodeAffinity.String(), "74a1") {
		t.Errorf("spec with a count only, discovery MI300X: affinity %v, want MI300X's nodes", st.ResolvedNodeAffinity)
	}

	// minVram 0 asks for nothing, as aim-engine reads it: the count alone places the pods.
	o.Spec.Hardware.GPU.MinVRAM = ptr.To(aimv1.MustParseQuantity("0"))
	if placement(o.Spec.Hardware, &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Model: "MI300X"}}).GPU.Model != "MI300X" {
		t.Error("minVram 0 placed the pods by memory")
	}
	if r, ok := requirement(o.Spec.Hardware); !ok || r.MinMemory != nil {
		t.Errorf("minVram 0: requirement %+v", r)
	}
	// A model of blanks and no count needs no GPU, as in aim-engine (TestTemplateRequiresGPU).
	if r, ok := requirement(&aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Model: "  "}}); ok {
		t.Errorf("model of blanks, no count: requirement %+v, want none", r)
	}
	// With a count, a model of blanks names no model: the pods go where discovery's model is, as for "".
	o.Spec.Hardware.GPU.MinVRAM = nil
	o.Spec.Hardware.GPU.Model = "  "
	o.Inventory = inventory("74a1", "75a3") // MI300X and MI355X
	st = aimv1.AIMServiceTemplateStatus{Profile: o.Status.Profile}
	planHardware(o, &st, false)
	if a := st.ResolvedNodeAffinity.String(); !strings.Contains(a, "74a1") || strings.Contains(a, "75a3") {
		t.Errorf("model of blanks with a count, discovery MI300X: affinity %v, want MI300X's nodes only", a)
	}
}

func TestPlanBlockedTemplatesStartNothing(t *testing.T) {
	noModel := observation()
	noModel.Model, noModel.ModelErr = nil, state.NewError(state.MissingUpstream, "ModelNotFound", "no model")
	noGPU := observation()
	noGPU.Inventory = inventory("75a3") // MI355X only
	noConfig := observation()
	noConfig.RuntimeConfigErr = &runtimeconfig.NotFoundError{Name: "gold"}
	full := observation()
	full.ActiveDiscoveryJobs = 10
	for name, o := range map[string]Observation{"no model": noModel, "no GPU": noGPU, "no config": noConfig, "no slot": full} {
		if p := PlanTemplate(o); p.Job != nil {
			t.Errorf("%s: planned Job %s", name, p.Job.Name)
		}
	}
	if c := component(PlanTemplate(noGPU), "GPU"); c == nil || c.State != aimv1.AIMStatusNotAvailable || c.Reason != gpu.ReasonGPUNotAvailable {
		t.Errorf("GPU component %+v", c)
	}
	if p := PlanTemplate(full); p.RequeueAfter == 0 || component(p, "DiscoveryJob").Reason != ReasonWaitingForSlot {
		t.Errorf("waiting for a slot: %+v", p)
	}
}

func TestPlanInlineSourcesSkipDiscovery(t *testing.T) {
	o := observation()
	o.Spec.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "s3://b/m"}}
	p := PlanTemplate(o)
	if p.Job != nil || component(p, "DiscoveryJob") != nil || len(p.Status.ModelSources) != 1 || p.Status.Profile == nil {
		t.Errorf("inline sources: job %v status %+v", p.Job, p.Status)
	}
	if len(p.Informational) != 1 || p.Informational[0].Reason != ReasonInlineModelSources || p.Informational[0].Status != metav1.ConditionTrue ||
		p.Informational[0].Message != "Model sources provided in-line in spec" {
		t.Errorf("Discovered %+v", p.Informational)
	}
	// The status writes quantities as aim-engine's does, through resource.Quantity: canonical, whatever the spec's
	// spelling, which stays as written.
	o.Spec.ModelSources[0].WeightsSize = &aimv1.Quantity{Text: "10737418240", Number: true}
	o.Spec.Hardware = &aimv1.AIMHardwareRequirements{CPU: &aimv1.AIMCpuRequirements{Requests: aimv1.MustParseQuantity("2000m")},
		GPU: &aimv1.AIMGpuRequirements{Requests: 1, MinVRAM: ptr.To(aimv1.MustParseQuantity("65536Mi"))}}
	st := PlanTemplate(o).Status
	if got, _ := json.Marshal(st.ModelSources[0].WeightsSize); string(got) != `"10737418240"` {
		t.Errorf("status size %s, want the string \"10737418240\"", got)
	}
	if hw := st.ResolvedHardware; hw == nil || hw.CPU.Requests.String() != "2" || hw.GPU.MinVRAM.String() != "64Gi" {
		t.Errorf("resolved hardware %+v", hw)
	}
	if got, _ := json.Marshal(o.Spec.ModelSources[0].WeightsSize); string(got) != "10737418240" || o.Spec.Hardware.CPU.Requests.String() != "2000m" {
		t.Errorf("the spec was rewritten: size %s, cpu %s", got, o.Spec.Hardware.CPU.Requests)
	}
	// The status shares nothing with the spec, which is the informer's: not the sources' env either.
	o.Spec.ModelSources[0].Env = []corev1.EnvVar{{Name: "HF_TOKEN", Value: "spec"}}
	if st := PlanTemplate(o).Status; &st.ModelSources[0].Env[0] == &o.Spec.ModelSources[0].Env[0] {
		t.Error("the status's source env is the spec's own list")
	}
	o.Spec.Hardware = nil
	// Sources added to a template that ran discovery: its discovery state goes, the reference to its last Job
	// stays, as aim-engine leaves status.discoveryJob (reconcile.go:665).
	o.Status.Discovery = &aimv1.AIMDiscoveryState{Attempts: 2}
	o.Status.DiscoveryJob = &aimv1.AIMResolvedReference{Name: "discover-tpl-0123abcd-2", Namespace: "aim-system"}
	if p := PlanTemplate(o); p.Status.Discovery != nil || p.Status.DiscoveryJob == nil || p.Status.DiscoveryJob.Name != "discover-tpl-0123abcd-2" {
		t.Errorf("inline sources after discovery: discovery %+v, discoveryJob %+v", p.Status.Discovery, p.Status.DiscoveryJob)
	}
}

// finished returns the observation after the first Job finished with output.
func finished(output string, outErr error) Observation {
	o := observation()
	first := PlanTemplate(o)
	o.Status = first.Status
	o.Job = first.Job.DeepCopy()
	o.Job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	o.JobOutput, o.JobOutputErr = output, outErr
	return o
}

func TestPlanReadsTheResult(t *testing.T) {
	p := PlanTemplate(finished(goodOutput, nil))
	if p.Job != nil || len(p.Status.ModelSources) != 1 || p.Status.Profile.Metadata.GPUCount != 2 {
		t.Fatalf("result not taken: %+v", p.Status)
	}
	// Discovery chose 2 GPUs: hardware, summary and affinity follow it.
	if p.Status.ResolvedHardware.GPU.Requests != 2 || p.Status.HardwareSummary != "2 x MI300X" {
		t.Errorf("hardware %+v summary %q", p.Status.ResolvedHardware, p.Status.HardwareSummary)
	}
	// Once discovered, the template stays discovered without a Job (F5).
	o := observation()
	o.Status = p.Status
	again := PlanTemplate(o)
	if again.Job != nil || component(again, "DiscoveryJob") != nil || again.Informational[0].Status != metav1.ConditionTrue {
		t.Errorf("rediscovered a discovered template: %+v", again)
	}
	// A spec change (new inputs) discovers again.
	o.Spec.ProfileID = "other"
	if changed := PlanTemplate(o); changed.Job == nil || len(changed.Status.ModelSources) != 0 {
		t.Errorf("a changed spec kept stale sources: %+v", changed.Status)
	}
}

func TestPlanFailsOnBadOutputAndRetriesAfterBackoff(t *testing.T) {
	for name, tc := range map[string]struct {
		o      Observation
		reason string
	}{
		"malformed": {finished("Traceback: KeyError 'gpu'", nil), ReasonDiscoveryOutputInvalid},
		// The succeeded pod is gone with its output: the attempt failed, with the reason that says so.
		"pod gone": {finished("", state.NewError(state.MissingDownstream, ReasonDiscoveryPodNotFound, "no succeeded pod of Job j")), ReasonDiscoveryPodNotFound},
	} {
		p := PlanTemplate(tc.o)
		c := component(p, "DiscoveryJob")
		if c == nil || c.State != aimv1.AIMStatusFailed || c.Reason != tc.reason || !strings.HasSuffix(c.Message, "; retrying at 2026-11-23T12:01:00Z") {
			t.Errorf("%s: component %+v", name, c)
		}
		if p.Status.Discovery.Attempts != 1 || p.Status.Discovery.LastFailureReason != tc.reason || len(p.Status.ModelSources) != 0 {
			t.Errorf("%s: discovery state %+v", name, p.Status.Discovery)
		}
		if p.RequeueAfter != time.Minute {
			t.Errorf("%s: requeue %s", name, p.RequeueAfter)
		}
	}
	// An output the API did not give this time (a log read that failed) is no failed attempt: it is an
	// infrastructure error, retried, and the next reconcile reads it again.
	unread := PlanTemplate(finished("", errors.New("reading the log of discovery pod p: the server is currently unable to handle the request")))
	if c := component(unread, "DiscoveryJob"); c == nil || len(c.Errors) != 1 || state.Categorize(c.Errors[0]) != state.Infrastructure ||
		unread.Status.Discovery.Attempts != 0 || unread.Job != nil {
		t.Errorf("unread output: component %+v discovery %+v job %v", c, unread.Status.Discovery, unread.Job)
	}
	o := finished("garbage", nil)
	failed := PlanTemplate(o)
	// During the backoff: no new Job, and the failure (with its excerpt) stays visible.
	o2 := observation()
	o2.Status = failed.Status
	o2.Status.Conditions = []metav1.Condition{{Type: "DiscoveryJobReady", Status: "False", Reason: ReasonDiscoveryOutputInvalid,
		Message: component(failed, "DiscoveryJob").Message}}
	o2.Now = now.Add(30 * time.Second)
	waiting := PlanTemplate(o2)
	if waiting.Job != nil || !strings.Contains(component(waiting, "DiscoveryJob").Message, "garbage") || waiting.RequeueAfter != 30*time.Second {
		t.Errorf("during backoff: job %v component %+v requeue %s", waiting.Job, component(waiting, "DiscoveryJob"), waiting.RequeueAfter)
	}
	// After it: attempt 2.
	o2.Now = now.Add(61 * time.Second)
	if retry := PlanTemplate(o2); retry.Job == nil || !strings.HasSuffix(retry.Job.Name, "-2") {
		t.Errorf("after backoff: %+v", retry.Job)
	}
}

// TestPlanBackoffMessagesStayDuringTheWait: the messages of a discovery backoff name the time of the next
// attempt, not the time left, so the reconciles during a wait of up to an hour (resyncs, GPU node changes) write
// nothing new. A message an earlier release stored, with the time left ("retrying in"), keeps its failure's text.
func TestPlanBackoffMessagesStayDuringTheWait(t *testing.T) {
	o := observation()
	long := metav1.NewTime(now.Add(-2 * time.Hour))
	o.Status.Discovery = &aimv1.AIMDiscoveryState{SpecHash: jobSpec(o, 1).Hash(), Attempts: 6, LastAttemptTime: &long,
		LastFailureReason: ReasonJobFailed}
	seventh := PlanTemplate(o)
	if seventh.Job == nil || !strings.HasSuffix(seventh.Job.Name, "-7") {
		t.Fatalf("planned Job %v, want attempt 7", seventh.Job)
	}
	// Attempt 7 fails within the second after now; the next waits the longest backoff, an hour.
	o.Status, o.Job = seventh.Status, seventh.Job.DeepCopy()
	o.Job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
		Reason: "BackoffLimitExceeded"}}
	o.Now = now.Add(400 * time.Millisecond)
	failed := PlanTemplate(o)
	const retry = "; retrying at 2026-11-23T13:00:00Z"
	failedMsg := component(failed, ComponentDiscoveryJob).Message
	if !strings.HasSuffix(failedMsg, retry) || !strings.Contains(failedMsg, "BackoffLimitExceeded") {
		t.Errorf("DiscoveryJob message of the failed attempt %q, want the failure and %q", failedMsg, retry)
	}
	// The status as the API server keeps it: lastAttemptTime to the second, the conditions derived.
	stored := failed.Status.DeepCopy()
	at := stored.Discovery.LastAttemptTime.Rfc3339Copy()
	stored.Discovery.LastAttemptTime = &at
	stored.Conditions = state.Derive(state.Input{Components: failed.Components, Informational: state.Normal(failed.Informational...),
		Generation: o.Generation, Now: o.Now}).Conditions
	// A failed Job is an invalid spec, as in aim-engine: ConfigValid and Ready say InvalidSpec, the component JobFailed.
	reasons := func(conds []metav1.Condition) string {
		var out []string
		for _, typ := range []string{state.ConditionConfigValid, state.ConditionReady, ComponentDiscoveryJob + state.ComponentSuffix} {
			c := meta.FindStatusCondition(conds, typ)
			out = append(out, fmt.Sprintf("%s=%s/%s", typ, c.Status, c.Reason))
		}
		return strings.Join(out, " ")
	}
	const failedReasons = "ConfigValid=False/InvalidSpec Ready=False/InvalidSpec DiscoveryJobReady=False/JobFailed"
	if got := reasons(stored.Conditions); got != failedReasons {
		t.Errorf("conditions of the failed attempt %s, want %s", got, failedReasons)
	}

	type messages struct{ DiscoveryJob, Discovered, Ready, ConfigValid string }
	plan := func(st *aimv1.AIMServiceTemplateStatus, at time.Time) messages {
		w := observation()
		w.Status, w.Now = *st, at
		p := PlanTemplate(w)
		if p.Job != nil {
			t.Errorf("at %s, within the backoff: Job %s", at, p.Job.Name)
		}
		conds := state.Derive(state.Input{Components: p.Components, Informational: state.Normal(p.Informational...), Previous: st.Conditions,
			Generation: w.Generation, Now: at}).Conditions
		if got := reasons(conds); got != failedReasons {
			t.Errorf("at %s, within the backoff: %s, want %s", at, got, failedReasons)
		}
		return messages{DiscoveryJob: component(p, ComponentDiscoveryJob).Message,
			Discovered:  meta.FindStatusCondition(conds, ConditionDiscovered).Message,
			Ready:       meta.FindStatusCondition(conds, state.ConditionReady).Message,
			ConfigValid: meta.FindStatusCondition(conds, state.ConditionConfigValid).Message}
	}
	early, late := plan(stored, now.Add(time.Minute)), plan(stored, now.Add(11*time.Minute))
	if diff := cmp.Diff(early, late); diff != "" {
		t.Errorf("messages 1 and 11 minutes into the backoff (-1m +11m):\n%s", diff)
	}
	want := messages{DiscoveryJob: failedMsg, Discovered: "waiting until 2026-11-23T13:00:00Z before attempt 8", Ready: late.Ready,
		ConfigValid: failedMsg}
	if diff := cmp.Diff(want, late); diff != "" || !strings.HasSuffix(late.Ready, retry) {
		t.Errorf("messages during the backoff (-want +got):\n%s\nReady %q", diff, late.Ready)
	}

	old := stored.DeepCopy()
	for i := range old.Conditions {
		if c := &old.Conditions[i]; c.Type == ComponentDiscoveryJob+state.ComponentSuffix {
			c.Message = strings.TrimSuffix(c.Message, retry) + "; retrying in 59m0s"
		}
	}
	if got := plan(old, now.Add(11*time.Minute)).DiscoveryJob; got != failedMsg {
		t.Errorf("after a message in earlier words: %q, want %q", got, failedMsg)
	}
}

// TestPlanSlotWaitIgnoresRunningJobs: a template waiting for a discovery slot says so with its own limit only.
// The count of discovery Jobs running in the cluster moves all the time, and each waiting template looks again
// every slotRetry.
func TestPlanSlotWaitIgnoresRunningJobs(t *testing.T) {
	plan := func(active int) Plan {
		o := observation()
		o.ActiveDiscoveryJobs = active
		return PlanTemplate(o)
	}
	full, more := plan(10), plan(14)
	// Pending, as aim-engine's DiscoveryJob component is while no Job exists (discovery.go:338): nothing runs.
	want := state.Component{Name: ComponentDiscoveryJob, Dependency: state.DependencyDownstream, State: aimv1.AIMStatusPending,
		Reason: ReasonWaitingForSlot, Message: "waiting for a discovery slot: at most 10 discovery Jobs run at once"}
	if diff := cmp.Diff(&want, component(full, ComponentDiscoveryJob)); diff != "" {
		t.Errorf("DiscoveryJob with 10 Jobs running (-want +got):\n%s", diff)
	}
	if got := state.Derive(state.Input{Components: full.Components, Now: now}).Status; got != aimv1.AIMStatusPending {
		t.Errorf("a template waiting for a discovery slot is %s, want Pending", got)
	}
	if diff := cmp.Diff(full.Components, more.Components); diff != "" {
		t.Errorf("components with 10 and 14 Jobs running (-10 +14):\n%s", diff)
	}
	if diff := cmp.Diff(full.Informational, more.Informational); diff != "" {
		t.Errorf("Discovered with 10 and 14 Jobs running (-10 +14):\n%s", diff)
	}
}

func TestPlanCachingTemplateOwnsItsCache(t *testing.T) {
	o := observation()
	o.Kind, o.Namespace = "AIMServiceTemplate", "team"
	o.Spec.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "s3://b/m"}}
	o.Caching = &aimv1.AIMTemplateCachingConfig{Enabled: true, Env: []corev1.EnvVar{{Name: "HF_HUB_OFFLINE", Value: "0"}}}
	p := PlanTemplate(o)
	c := p.Cache
	if c == nil || c.Name != "tpl" || c.Namespace != "team" || c.Spec.TemplateName != "tpl" || c.Spec.TemplateScope != aimv1.AIMTemplateScopeNamespace ||
		len(c.Spec.Env) != 1 || len(c.OwnerReferences) != 1 || !*c.OwnerReferences[0].Controller || c.OwnerReferences[0].UID != "uid-1" {
		t.Errorf("cache %+v", c)
	}
	o.Caching.Enabled = false
	if PlanTemplate(o).Cache != nil {
		t.Error("caching disabled, cache planned")
	}
	o.Caching.Enabled = true
	o.Spec.ModelSources = nil // no sources yet: nothing to cache
	if PlanTemplate(o).Cache != nil {
		t.Error("cache planned before the template has sources")
	}
}

// TestPlanChildLabelPrecedence: as in aim-engine, a propagated label of the controller label's key wins over the
// controller's value on the discovery Job, its pods and the template's cache (their own labels aside).
func TestPlanChildLabelPrecedence(t *testing.T) {
	o := observation()
	o.Kind, o.Namespace, o.JobNamespace = "AIMServiceTemplate", "team", "team"
	o.Labels = map[string]string{"aim.eai.amd.com/service-template.name": "propagated", "team": "a", "other": "x"}
	o.RuntimeConfig = runtimeconfig.Resolved{Spec: aimv1.AIMRuntimeConfigSpec{
		LabelPropagation: &aimv1.AIMLabelPropagationConfig{Enabled: ptr.To(true), Match: []string{"team"}}}}
	job := PlanTemplate(o).Job
	if job == nil {
		t.Fatal("no discovery Job planned")
	}
	for what, l := range map[string]map[string]string{"job": job.Labels, "pod": job.Spec.Template.Labels} {
		if l["aim.eai.amd.com/service-template.name"] != "propagated" || l["team"] != "a" || l["other"] != "" || l[aimv1.LabelTemplate] != "tpl" {
			t.Errorf("%s labels %v", what, l)
		}
	}
	o.Spec.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "s3://b/m"}}
	o.Caching = &aimv1.AIMTemplateCachingConfig{Enabled: true}
	c := PlanTemplate(o).Cache
	if c == nil {
		t.Fatal("no cache planned")
	}
	want := map[string]string{"aim.eai.amd.com/service-template.name": "propagated", "team": "a", aimv1.LabelManagedBy: aimv1.ManagedByValue}
	if diff := cmp.Diff(want, c.Labels); diff != "" {
		t.Errorf("cache labels (-want +got):\n%s", diff)
	}
}

// TestPlanReportsDiscoveryPods: a running discovery Job whose pod cannot pull its image shows it in
// DiscoveryPodsReady at once (aim-engine's component), instead of JobRunning until the Job times out.
func TestPlanReportsDiscoveryPods(t *testing.T) {
	o := observation()
	first := PlanTemplate(o)
	o.Status, o.Job = first.Status, first.Job.DeepCopy()
	if p := PlanTemplate(o); component(p, ComponentDiscoveryPods) != nil {
		t.Errorf("a Job without pods yet has a pods component: %+v", component(p, ComponentDiscoveryPods))
	}
	o.JobPods = []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "d-1-abc", Namespace: "aim-system"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "discovery",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
				Message: `failed to pull image "repo/m:1": unexpected status: 403 Forbidden`}}}}}}}
	p := PlanTemplate(o)
	c := component(p, ComponentDiscoveryPods)
	if c == nil {
		t.Fatal("no DiscoveryPods component for a pod that cannot pull")
	}
	st, reason, _ := state.Outcome(*c)
	if st != aimv1.AIMStatusFailed || reason != "ImagePullAuthFailure" {
		t.Errorf("DiscoveryPods %s/%s, want Failed/ImagePullAuthFailure", st, reason)
	}
	if j := component(p, "DiscoveryJob"); j == nil || j.Reason != ReasonJobRunning {
		t.Errorf("DiscoveryJob %+v, want still JobRunning", j)
	}
}

// TestPlanNamesTheModelComponentByKind: aim-engine's ClusterModelReady on cluster templates, ModelReady on
// namespaced ones.
func TestPlanNamesTheModelComponentByKind(t *testing.T) {
	o := observation()
	if c := component(PlanTemplate(o), "ClusterModel"); c == nil || c.Reason != "ClusterModelFound" {
		t.Errorf("cluster template: ClusterModel component %+v", c)
	}
	o.Kind, o.Namespace = kindNamespaced, "team"
	if p := PlanTemplate(o); component(p, "Model") == nil || component(p, "ClusterModel") != nil {
		t.Errorf("namespaced template: components %+v", p.Components)
	}
}

// TestPlanReflectsAFailedModel: a Failed or Degraded model fails its templates when something other than its
// templates failed (aim-engine's GetModelHealth), not when only its templates did (they would keep each other
// failed).
func TestPlanReflectsAFailedModel(t *testing.T) {
	o := observation()
	o.Model.Status = aimv1.AIMStatusFailed
	o.Model.Conditions = []metav1.Condition{{Type: "ClusterServiceTemplatesReady", Status: metav1.ConditionFalse}, {Type: "Ready", Status: metav1.ConditionFalse}}
	if c := component(PlanTemplate(o), "ClusterModel"); c == nil || c.State != "" || c.Reason != "ClusterModelFound" {
		t.Errorf("a model failed by its templates only: %+v", c)
	}
	o.Model.Conditions = append(o.Model.Conditions, metav1.Condition{Type: "ImageMetadataReady", Status: metav1.ConditionFalse})
	c := component(PlanTemplate(o), "ClusterModel")
	if c == nil || c.State != aimv1.AIMStatusFailed || c.Reason != "ClusterModelFailed" || c.Message != "AIMClusterModel is in Failed state" {
		t.Errorf("a model failed by its image metadata: %+v", c)
	}
}

// TestMissingModelIsReferenceNotFound: a template whose model does not exist reports it as aim-engine's fetch of
// an upstream does, ReferenceNotFound, on ClusterModelReady for a cluster template.
func TestMissingModelIsReferenceNotFound(t *testing.T) {
	o := observation()
	o.Model, o.ModelErr = nil, nil
	p := PlanTemplate(o)
	for _, c := range p.Components {
		if c.Name == ComponentClusterModel {
			if st, reason, _ := state.Outcome(c); st != aimv1.AIMStatusFailed || reason != "ReferenceNotFound" {
				t.Errorf("ClusterModelReady: %s/%s, want Failed/ReferenceNotFound", st, reason)
			}
			return
		}
	}
	t.Errorf("no %s component in %+v", ComponentClusterModel, p.Components)
}

// TestDiscoveryImageRewritten: with rewriteImages on, the discovery Job runs the model's image from its mirror.
func TestDiscoveryImageRewritten(t *testing.T) {
	o := observation()
	cfg, err := mirrors.Parse([]byte("rewriteImages: true\nregistries: {docker.io: {mirrors: [{endpoint: \"https://mirror.example/proxy\"}]}}"))
	if err != nil {
		t.Fatal(err)
	}
	o.Mirrors = cfg
	p := PlanTemplate(o)
	if p.Job == nil {
		t.Fatal("no discovery Job")
	}
	if got, want := p.Job.Spec.Template.Spec.Containers[0].Image, cfg.Rewrite(o.Model.Image); got != want || !strings.HasPrefix(got, "mirror.example/proxy/") {
		t.Errorf("discovery image %s, want %s", got, want)
	}
	// Where the image is pulled from is no input of discovery: turning rewriting on or off runs it not again.
	o.Mirrors = nil
	if plain := PlanTemplate(o); plain.Job == nil || plain.Job.Name != p.Job.Name {
		t.Errorf("the Job without rewriting is %v, with it %s", plain.Job, p.Job.Name)
	}
}

// readyStatus is what a template's status holds after a successful discovery: Ready, with its model sources and
// profile.
func readyStatus() aimv1.AIMServiceTemplateStatus {
	return aimv1.AIMServiceTemplateStatus{Status: aimv1.AIMStatusReady,
		ModelSources: []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "hf://org/m", WeightsSize: ptr.To(aimv1.MustParseQuantity("1Gi"))}},
		Profile: &aimv1.AIMProfile{Metadata: aimv1.AIMProfileMetadata{Engine: "vllm", GPU: "MI300X", GPUCount: 2,
			Metric: aimv1.AIMMetricLatency, Precision: aimv1.AIMPrecisionFP8, Type: aimv1.AIMProfileTypeOptimized}},
		Conditions: []metav1.Condition{{Type: ConditionDiscovered, Status: metav1.ConditionTrue, Reason: ReasonDiscoveryComplete}},
	}
}

// TestPlanKeepsAResultMigratedFromAIMEngine: aim-engine records status.discovery only when an attempt fails,
// under its own hash, and never discovers a Ready template again. A Ready template migrated from it keeps its
// result, with no Job, and has our hash stamped in its record; a later change of its inputs discovers again.
func TestPlanKeepsAResultMigratedFromAIMEngine(t *testing.T) {
	failedAt := metav1.NewTime(now.Add(-time.Hour))
	// aim-engine's ComputeDiscoverySpecHash of observation(): sha256("m" + "repo/m:1" + "latency" + "MI300X" + "1")[:8].
	const aimEngineHash = "508721204f77806f"
	for name, record := range map[string]*aimv1.AIMDiscoveryState{
		"no status.discovery": nil,
		"aim-engine's failure record": {Attempts: 1, LastAttemptTime: &failedAt,
			LastFailureReason: "Job has reached the specified backoff limit", SpecHash: aimEngineHash},
	} {
		t.Run(name, func(t *testing.T) {
			o := observation()
			o.Status = readyStatus()
			o.Status.Discovery = record
			p := PlanTemplate(o)
			if p.Job != nil {
				t.Errorf("planned discovery Job %s for a migrated result", p.Job.Name)
			}
			if diff := cmp.Diff(o.Status.ModelSources, p.Status.ModelSources); diff != "" {
				t.Errorf("model sources (-migrated +planned):\n%s", diff)
			}
			if diff := cmp.Diff(o.Status.Profile, p.Status.Profile); diff != "" {
				t.Errorf("profile (-migrated +planned):\n%s", diff)
			}
			want := &aimv1.AIMDiscoveryState{SpecHash: jobSpec(o, 1).Hash()}
			if record != nil {
				want = record.DeepCopy()
				want.SpecHash = jobSpec(o, 1).Hash()
			}
			if diff := cmp.Diff(want, p.Status.Discovery); diff != "" {
				t.Errorf("status.discovery (-want +got):\n%s", diff)
			}
			if len(p.Informational) != 1 || p.Informational[0].Type != ConditionDiscovered || p.Informational[0].Status != metav1.ConditionTrue ||
				p.Informational[0].Reason != ReasonDiscoveryComplete {
				t.Errorf("Discovered %+v, want True/DiscoveryComplete", p.Informational)
			}
			if diff := cmp.Diff(record, o.Status.Discovery); diff != "" {
				t.Errorf("planning changed the observed status (-before +after):\n%s", diff)
			}

			// Adopted, the result is ours: new inputs discover again.
			o.Status.Discovery = p.Status.Discovery
			o.Model.Image = "repo/m:2"
			if changed := PlanTemplate(o); changed.Job == nil || len(changed.Status.ModelSources) != 0 || changed.Status.Profile != nil {
				t.Errorf("a changed image kept the adopted result: job %v status %+v", changed.Job, changed.Status)
			}
		})
	}
}

// TestPlanDoesNotAdoptWhatItDidNotDiscover: only a Ready template's result for its current inputs is adopted; a
// template of ours whose inputs changed, whose sources came from its spec, or that is not Ready discovers again.
func TestPlanDoesNotAdoptWhatItDidNotDiscover(t *testing.T) {
	ours := observation()
	ours.Status = readyStatus()
	ours.Status.Discovery = &aimv1.AIMDiscoveryState{SpecHash: jobSpec(ours, 1).Hash()}
	if p := PlanTemplate(ours); p.Job != nil {
		t.Fatalf("our own result for the current inputs rediscovered: %s", p.Job.Name)
	}

	changedSpec := ours
	changedSpec.Spec.ProfileID = "other"
	changedImage := ours
	changedImage.Model = &Model{Ref: ours.Model.Ref, Image: "repo/m:2"}
	wasInline := observation()
	wasInline.Status = readyStatus()
	wasInline.Status.Conditions = []metav1.Condition{{Type: ConditionDiscovered, Status: metav1.ConditionTrue, Reason: ReasonInlineModelSources}}
	otherInputs := observation()
	otherInputs.Status = readyStatus()
	otherInputs.Status.Discovery = &aimv1.AIMDiscoveryState{Attempts: 1, SpecHash: aimEngineDiscoveryHash(otherInputs.Spec, "repo/m:0")}
	notReady := observation()
	notReady.Status = readyStatus()
	notReady.Status.Status = aimv1.AIMStatusProgressing

	for name, o := range map[string]Observation{
		"ours, spec changed": changedSpec, "ours, model image changed": changedImage,
		"sources once inline": wasInline, "aim-engine's record of other inputs": otherInputs, "not Ready": notReady,
	} {
		p := PlanTemplate(o)
		if p.Job == nil || len(p.Status.ModelSources) != 0 || p.Status.Profile != nil {
			t.Errorf("%s: kept the stored result: job %v status %+v", name, p.Job, p.Status)
		}
		if p.Status.Discovery == nil || p.Status.Discovery.SpecHash != jobSpec(o, 1).Hash() || p.Status.Discovery.Attempts != 0 {
			t.Errorf("%s: status.discovery %+v, want a fresh record of the current inputs", name, p.Status.Discovery)
		}
	}
}

// gpuNodes is an inventory of nodes with 8 allocatable GPUs each, labelled as given.
func gpuNodes(labels ...map[string]string) gpu.Inventory {
	var nodes []corev1.Node
	for i, l := range labels {
		nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n" + strconv.Itoa(i), Labels: l},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{"amd.com/gpu": resource.MustParse("8")}}})
	}
	return gpu.NewInventory(nodes)
}

// discoveredTemplate is a template of ours whose discovery succeeded (or whose sources are inline): the
// observation of the reconcile after the result was written, with the template Ready.
func discoveredTemplate(o Observation) Observation {
	first := PlanTemplate(o)
	o.Status = first.Status
	if first.Job == nil {
		o.Status.Status = aimv1.AIMStatusReady
		return o
	}
	o.Job = first.Job.DeepCopy()
	o.Job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	o.JobOutput = goodOutput
	done := PlanTemplate(o)
	o.Job, o.JobOutput = nil, ""
	o.Status = done.Status
	o.Status.Status = aimv1.AIMStatusReady
	return o
}

// TestPlanKeepsTheResultWhenPullSettingsChange: pull secrets and service accounts decide whether the discovery
// pod can pull the image, not what it finds. Changing them (the template's, the model's, the runtime config's
// discovery account) leaves a Ready template's result, with no Job; a discovery needed anyway runs with them.
func TestPlanKeepsTheResultWhenPullSettingsChange(t *testing.T) {
	for name, change := range map[string]func(*Observation){
		"template's pull secrets": func(o *Observation) {
			o.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred-2"}}
		},
		"template's service account": func(o *Observation) { o.Spec.ServiceAccountName = "puller-2" },
		"model's pull secret rotated": func(o *Observation) {
			o.Model.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "model-regcred-2"}}
		},
		"model's service account": func(o *Observation) { o.Model.ServiceAccountName = "model-puller-2" },
		"runtime config's discovery account": func(o *Observation) {
			o.RuntimeConfig.Spec.Discovery = &aimv1.AIMDiscoveryConfig{ServiceAccountName: ptr.To("discovery")}
		},
	} {
		t.Run(name, func(t *testing.T) {
			o := observation()
			o.Model.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "model-regcred"}}
			o.Model.ServiceAccountName = "model-puller"
			o = discoveredTemplate(o)
			before := o.Status.DeepCopy()
			change(&o)
			p := PlanTemplate(o)
			if p.Job != nil {
				t.Errorf("rediscovered a Ready template: Job %s", p.Job.Name)
			}
			if diff := cmp.Diff(before, &p.Status); diff != "" {
				t.Errorf("status changed (-before +after):\n%s", diff)
			}

			// New inputs discover again, with the new pull settings.
			o.Spec.ProfileID = "other"
			js := jobSpec(o, 1)
			again := PlanTemplate(o)
			if again.Job == nil {
				t.Fatal("new inputs, no Job")
			}
			pod := again.Job.Spec.Template.Spec
			if again.Job.Name != js.JobName() || pod.ServiceAccountName != js.ServiceAccountName ||
				!cmp.Equal(pod.ImagePullSecrets, js.ImagePullSecrets) {
				t.Errorf("Job %s pulls with %v as %q, want %s with %v as %q", again.Job.Name, pod.ImagePullSecrets, pod.ServiceAccountName,
					js.JobName(), js.ImagePullSecrets, js.ServiceAccountName)
			}
		})
	}
}

// TestPlanTakesAnEarlierReleasesRecord: earlier releases recorded status.discovery.specHash with the pull secrets
// and the service account among the inputs (JobHash). Such a record is taken under today's hash: a Ready
// template discovers nothing again after the upgrade, and a template in its backoff keeps waiting with its
// count. One write restamps the hash; then the status stays, and rotating a secret rediscovers nothing.
func TestPlanTakesAnEarlierReleasesRecord(t *testing.T) {
	o := observation()
	o.Model.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	o = discoveredTemplate(o)
	js := jobSpec(o, 1)
	if js.JobHash() == js.Hash() {
		t.Fatal("test needs the two hashes to differ")
	}
	o.Status.Discovery = &aimv1.AIMDiscoveryState{SpecHash: js.JobHash()}
	p := PlanTemplate(o)
	if p.Job != nil || len(p.Status.ModelSources) != 1 || p.Status.Profile == nil {
		t.Fatalf("an earlier release's result rediscovered: job %v status %+v", p.Job, p.Status)
	}
	if diff := cmp.Diff(&aimv1.AIMDiscoveryState{SpecHash: js.Hash()}, p.Status.Discovery); diff != "" {
		t.Errorf("status.discovery (-want +got):\n%s", diff)
	}
	o.Status = p.Status
	if again := PlanTemplate(o); !cmp.Equal(o.Status, again.Status) || again.Job != nil {
		t.Errorf("the restamped status does not stay (-before +after):\n%s", cmp.Diff(o.Status, again.Status))
	}
	o.Model.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred-2"}}
	if rotated := PlanTemplate(o); rotated.Job != nil || len(rotated.Status.ModelSources) != 1 {
		t.Errorf("after the upgrade, a rotated secret rediscovered: job %v", rotated.Job)
	}

	// A template in its backoff keeps the count and the wait.
	failing := observation()
	failing.Model.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	js = jobSpec(failing, 1)
	failedAt := metav1.NewTime(now.Add(-30 * time.Second))
	failing.Status = aimv1.AIMServiceTemplateStatus{Status: aimv1.AIMStatusFailed,
		Discovery:    &aimv1.AIMDiscoveryState{SpecHash: js.JobHash(), Attempts: 1, LastAttemptTime: &failedAt, LastFailureReason: ReasonJobFailed},
		DiscoveryJob: jobReference(js.JobName(), "aim-system", "")}
	w := PlanTemplate(failing)
	if w.Job != nil || w.RequeueAfter != 30*time.Second || w.Status.Discovery.Attempts != 1 || w.Status.Discovery.SpecHash != js.Hash() {
		t.Errorf("backoff across the upgrade: job %v requeue %s discovery %+v", w.Job, w.RequeueAfter, w.Status.Discovery)
	}
}

// TestPlanRetriesAtOnceWithNewPullSettings: a failed attempt (a refused pull) waits for the backoff, but
// changing the pull secret, the fix, runs the next attempt at once with it, as when the secret was an input of
// the hash; the count goes on.
func TestPlanRetriesAtOnceWithNewPullSettings(t *testing.T) {
	o := observation()
	first := PlanTemplate(o)
	o.Status, o.Job = first.Status, first.Job.DeepCopy()
	o.Job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"}}
	failed := PlanTemplate(o)
	o.Status, o.Job = failed.Status, nil
	o.Now = now.Add(10 * time.Second)
	if p := PlanTemplate(o); p.Job != nil {
		t.Fatalf("no backoff after a failure: Job %s", p.Job.Name)
	}
	o.Model.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	p := PlanTemplate(o)
	if p.Job == nil || !strings.HasSuffix(p.Job.Name, "-2") || p.Job.Name == first.Job.Name[:len(first.Job.Name)-1]+"2" {
		t.Fatalf("a new pull secret during the backoff: Job %v, want attempt 2 with the secret", p.Job)
	}
	if got := p.Job.Spec.Template.Spec.ImagePullSecrets; len(got) != 1 || got[0].Name != "regcred" {
		t.Errorf("pull secrets %v", got)
	}
	if p.Status.Discovery.Attempts != 1 || p.Status.Discovery.SpecHash != jobSpec(o, 1).Hash() {
		t.Errorf("status.discovery %+v, want the count kept", p.Status.Discovery)
	}
}

// TestPlanKeepsTheNodeAffinity: a template's resolvedNodeAffinity follows the nodes (the family labels seen on
// them, the models that satisfy minVram), and a service rolls its pods whenever it changes. Once written it
// stays while nodes come and go, as aim-engine's, computed when it parses the discovery output; it is computed
// again with a new result, when there is none, and when the template comes back from NotAvailable. Templates
// with inline sources keep theirs too.
func TestPlanKeepsTheNodeAffinity(t *testing.T) {
	mi300 := map[string]string{gpu.LabelDeviceID: "74a1"}
	family300 := map[string]string{gpu.LabelFamily: "MI300X"}
	mi325 := map[string]string{gpu.LabelDeviceID: "74a5"}
	byModel := func(*Observation) {} // observation()'s spec names MI300X
	byVRAM := func(o *Observation) {
		o.Spec.Hardware.GPU.Model, o.Spec.Hardware.GPU.MinVRAM = "", ptr.To(aimv1.MustParseQuantity("128Gi"))
	}
	inline := func(o *Observation) {
		o.Spec.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "s3://b/m"}}
	}
	for name, tc := range map[string]struct {
		spec          func(*Observation)
		before, after gpu.Inventory // the nodes when the result was written, and after some came or went
	}{
		"gpu model, a node labelled by family joins": {byModel, gpuNodes(mi300), gpuNodes(mi300, family300)},
		"minVram, a node of another model joins":     {byVRAM, gpuNodes(mi300), gpuNodes(mi300, mi325)},
		"minVram, a node of another model leaves":    {byVRAM, gpuNodes(mi300, mi325), gpuNodes(mi300)},
		"inline sources, a family-labelled node":     {inline, gpuNodes(mi300), gpuNodes(mi300, family300)},
	} {
		t.Run(name, func(t *testing.T) {
			o := observation()
			tc.spec(&o)
			o.Inventory = tc.before
			o = discoveredTemplate(o)
			written := o.Status.ResolvedNodeAffinity
			if written == nil {
				t.Fatal("no affinity written")
			}
			o.Inventory = tc.after
			fresh := o
			fresh.Status.ResolvedNodeAffinity = nil
			recomputed := PlanTemplate(fresh).Status.ResolvedNodeAffinity
			if recomputed == nil || cmp.Equal(written, recomputed) {
				t.Fatalf("the node change does not change the affinity (a template without one gets it): %v", recomputed)
			}

			p := PlanTemplate(o)
			if diff := cmp.Diff(o.Status, p.Status); diff != "" {
				t.Errorf("a Ready template's status followed the nodes (-before +after):\n%s", diff)
			}
			failed := o
			failed.Status.Status = aimv1.AIMStatusFailed
			if got := PlanTemplate(failed).Status.ResolvedNodeAffinity; !cmp.Equal(written, got) {
				t.Errorf("a template failed by its model (it keeps its result) changed its affinity:\n%s", cmp.Diff(written, got))
			}
			blocked := o
			blocked.Model, blocked.Status.Status = nil, aimv1.AIMStatusFailed
			if got := PlanTemplate(blocked).Status.ResolvedNodeAffinity; !cmp.Equal(written, got) {
				t.Errorf("a template whose model is gone (it keeps its result) changed its affinity:\n%s", cmp.Diff(written, got))
			}
			back := o
			back.Status.Status = aimv1.AIMStatusNotAvailable
			if got := PlanTemplate(back).Status.ResolvedNodeAffinity; !cmp.Equal(recomputed, got) {
				t.Errorf("back from NotAvailable, affinity (-want +got):\n%s", cmp.Diff(recomputed, got))
			}
			// While no node has the GPU the template is NotAvailable and keeps the affinity, as aim-engine's: a
			// running service's InferenceService is not applied without it, then with it again.
			for _, status := range []aimv1.AIMStatus{aimv1.AIMStatusReady, aimv1.AIMStatusNotAvailable} {
				gone := o
				gone.Inventory, gone.Status.Status = gpu.Inventory{}, status
				p := PlanTemplate(gone)
				if c := component(p, "GPU"); c == nil || c.State != aimv1.AIMStatusNotAvailable {
					t.Errorf("no GPU nodes, previously %s: GPU component %+v", status, c)
				}
				if !cmp.Equal(written, p.Status.ResolvedNodeAffinity) {
					t.Errorf("no GPU nodes, previously %s: affinity (-written +got):\n%s", status, cmp.Diff(written, p.Status.ResolvedNodeAffinity))
				}
			}
		})
	}
}

// TestGPUMessageIgnoresNodeCount: the GPU component names the models in aim-engine's words, not how many nodes
// have them, so a node joining writes no template's status.
func TestGPUMessageIgnoresNodeCount(t *testing.T) {
	mi300 := map[string]string{gpu.LabelDeviceID: "74a1"}
	for name, tc := range map[string]struct {
		spec func(*Observation)
		want string
	}{
		"by model": {func(*Observation) {}, "GPU model 'MI300X' is available"},
		"by VRAM": {func(o *Observation) {
			o.Spec.Hardware.GPU.Model, o.Spec.Hardware.GPU.MinVRAM = "", ptr.To(aimv1.MustParseQuantity("128Gi"))
		}, "GPU available (any model accepted): MI300X"},
	} {
		for _, nodes := range []gpu.Inventory{gpuNodes(mi300), gpuNodes(mi300, mi300, mi300)} {
			o := observation()
			tc.spec(&o)
			o.Inventory = nodes
			c := component(PlanTemplate(o), ComponentGPU)
			if c == nil || c.Reason != gpu.ReasonGPUAvailable || c.Message != tc.want {
				t.Errorf("%s, %d node(s): GPU component %+v, want %s: %q", name, len(nodes.Nodes()), c, gpu.ReasonGPUAvailable, tc.want)
			}
		}
	}
}

// TestPlanComputesTheNodeAffinityOfANewResult: a result written in this reconcile, one for other inputs, or
// other hardware brings the affinity of the nodes there are now.
func TestPlanComputesTheNodeAffinityOfANewResult(t *testing.T) {
	o := observation()
	o.Inventory = gpuNodes(map[string]string{gpu.LabelDeviceID: "74a1"})
	stale := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gone", Operator: corev1.NodeSelectorOpExists}}}}}}
	want := PlanTemplate(o).Status.ResolvedNodeAffinity

	parsed := finished(goodOutput, nil)
	parsed.Inventory = o.Inventory
	// The same hardware as the new result's, and Ready: only the new result tells the affinity is stale.
	parsed.Status.ResolvedHardware = PlanTemplate(parsed).Status.ResolvedHardware
	parsed.Status.Status, parsed.Status.ResolvedNodeAffinity = aimv1.AIMStatusReady, stale
	if got := PlanTemplate(parsed).Status.ResolvedNodeAffinity; !cmp.Equal(want, got) {
		t.Errorf("a new result kept the affinity (-want +got):\n%s", cmp.Diff(want, got))
	}

	ready := discoveredTemplate(o)
	ready.Status.ResolvedNodeAffinity = stale
	otherHardware := ready
	otherHardware.Status.ResolvedHardware = &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Model: "MI325X", Requests: 2}}
	if got := PlanTemplate(otherHardware).Status.ResolvedNodeAffinity; cmp.Equal(stale, got) {
		t.Errorf("the affinity of other hardware stayed: %v", got)
	}
	ready.Spec.ProfileID = "other" // new inputs: discovery again
	if got := PlanTemplate(ready).Status.ResolvedNodeAffinity; cmp.Equal(stale, got) {
		t.Errorf("new inputs kept the affinity of the old result: %v", got)
	}
}
