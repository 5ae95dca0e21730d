// Package template reconciles AIMServiceTemplates and AIMClusterServiceTemplates: it resolves the model and
// the runtime config, checks the required AMD GPU is in the cluster, runs discovery, and fills the status
// with the profile, the model sources, the hardware and the node affinity that places workloads.
package template

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/discovery"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/model"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

const (
	// retryingAt joins a failed attempt's message and the time of the next attempt. Statuses written by earlier
	// releases joined it with retryingIn and the time left; failureOf reads both.
	retryingAt = "; retrying at "
	retryingIn = "; retrying in "

	// slotRetry is how often a template waiting for a discovery slot looks again, as aim-engine's (reconcile.go:447):
	// a Job that ends queues its own template only.
	slotRetry = 5 * time.Second
)

// Model is the model a template resolved.
type Model struct {
	Ref                aimv1.AIMResolvedReference
	Image              string
	ImagePullSecrets   []corev1.LocalObjectReference
	ServiceAccountName string
	// Status and Conditions are the model's, for its health (modelComponent).
	Status     aimv1.AIMStatus
	Conditions []metav1.Condition
}

// Observation is what one reconcile of a template saw.
type Observation struct {
	// Mirrors may rewrite the discovery Job's image (rewriteImages).
	Mirrors *mirrors.Config
	// Caching is the caching setting of a namespaced template; cluster templates have none.
	Caching    *aimv1.AIMTemplateCachingConfig
	Kind       string // AIMServiceTemplate or AIMClusterServiceTemplate
	Name       string
	Namespace  string // empty for cluster templates
	UID        types.UID
	Generation int64
	Labels     map[string]string
	Spec       aimv1.AIMServiceTemplateSpecCommon
	Status     aimv1.AIMServiceTemplateStatus

	Model    *Model
	ModelErr error

	RuntimeConfig    runtimeconfig.Resolved
	RuntimeConfigErr error

	Inventory gpu.Inventory

	// JobNamespace is where discovery Jobs of this template run.
	JobNamespace string
	// Job is the discovery Job of the current attempt, if it exists; JobPods its pods and JobEvents the
	// cached events about them (Warnings, Pulling); JobOutput what its pod printed.
	Job          *batchv1.Job
	JobPods      []*corev1.Pod
	JobEvents    []corev1.Event
	JobOutput    string
	JobOutputErr error
	// ActiveDiscoveryJobs counts unfinished discovery Jobs in every namespace (the limit is cluster-wide).
	ActiveDiscoveryJobs int

	Backoff discovery.Backoff
	Now     time.Time
}

// Plan is what the reconcile should do and report.
type Plan struct {
	Components []state.Component
	// Job, when set, is created.
	Job *batchv1.Job
	// Cache, when set, is the template cache a caching template owns.
	Cache *aimv1.AIMTemplateCache
	// Status carries every field but status and conditions, which the state engine derives.
	Status        aimv1.AIMServiceTemplateStatus
	Informational []metav1.Condition
	RequeueAfter  time.Duration
}

// PlanTemplate decides a template's next step. It is pure.
func PlanTemplate(o Observation) Plan {
	p := Plan{Status: *o.Status.DeepCopy()}
	st := &p.Status
	st.ObservedGeneration = o.Generation
	// The discovery inputs' hash, computed once: the record and the result are told by it, the Job by its JobHash.
	js := jobSpec(o, 1)
	hash := js.Hash()
	st.Discovery = recordedDiscovery(o, js, hash)
	done := discovered(o, st.Discovery, hash)

	planRuntimeConfig(o, &p)
	planModel(o, &p)
	gpuOK := planGPU(o, &p)
	blocked := o.Model == nil || o.RuntimeConfigErr != nil || !gpuOK

	switch {
	case len(o.Spec.ModelSources) > 0:
		// As aim-engine's status writes them, through resource.Quantity: sizes in the canonical form.
		st.ModelSources = make([]aimv1.AIMModelSource, len(o.Spec.ModelSources))
		for i := range o.Spec.ModelSources {
			o.Spec.ModelSources[i].DeepCopyInto(&st.ModelSources[i]) // the spec is the informer's: its env too
		}
		model.CanonicalSources(st.ModelSources)
		st.Profile = profileFromSpec(o.Spec)
		// The discovery state goes, the reference to the last Job stays, as aim-engine leaves it (reconcile.go:665).
		st.Discovery = nil
		p.Informational = append(p.Informational, state.Condition(ConditionDiscovered, true, ReasonInlineModelSources, "Model sources provided in-line in spec"))
	case blocked:
		p.Informational = append(p.Informational, state.Condition(ConditionDiscovered, done, ReasonAwaitingDiscovery,
			"discovery waits for the model, the runtime config and the GPU"))
		if done {
			p.Informational[0].Reason = ReasonDiscoveryComplete
		}
	default:
		planDiscovery(o, &p, js, hash)
	}

	if c := o.Caching; c != nil && c.Enabled && len(st.ModelSources) > 0 && !blocked {
		p.Cache = templateCache(o)
	}
	// A result is new when it changes the profile (a rediscovery clears it first); sources from the spec and a
	// result kept, also while the template is blocked, are not.
	planHardware(o, st, equality.Semantic.DeepEqual(o.Status.Profile, st.Profile))
	return p
}

// planRuntimeConfig reports the runtime config and records it in the status.
func planRuntimeConfig(o Observation, p *Plan) {
	rc, recorded := runtimeconfig.Report(o.RuntimeConfig, o.RuntimeConfigErr, p.Status.ResolvedRuntimeConfig)
	p.Components, p.Status.ResolvedRuntimeConfig = append(p.Components, rc), recorded
}

// planModel reports the model and records it in the status.
func planModel(o Observation, p *Plan) {
	// aim-engine names the component after the kind of model: ClusterModelReady on cluster templates.
	name := ComponentModel
	if o.Kind == kindCluster {
		name = ComponentClusterModel
	}
	if o.Model == nil {
		err := o.ModelErr
		if err == nil {
			err = state.NewError(state.MissingUpstream, ReasonModelNotFound, "model %q not found", o.Spec.ModelName)
		}
		p.Components = append(p.Components, state.Component{Name: name, Dependency: state.DependencyUpstream, Errors: []error{err}})
		return
	}
	ref := o.Model.Ref
	p.Status.ResolvedModel = &ref
	p.Components = append(p.Components, modelComponent(name, *o.Model))
}

// modelComponent is the health of a template's model, as aim-engine's GetModelHealth reads it: a Failed or
// Degraded model fails its templates only when something other than its templates failed, or the two would
// keep each other failed.
func modelComponent(component string, m Model) state.Component {
	comp := state.Component{Name: component, Dependency: state.DependencyUpstream, Reason: ReasonModelFound}
	kind, templates, failed := "AIMModel", model.ComponentServiceTemplates+state.ComponentSuffix, ReasonModelFailed
	if m.Ref.Kind == "AIMClusterModel" {
		comp.Reason, kind, templates, failed = ReasonClusterModelFound, "AIMClusterModel", model.ComponentClusterServiceTemplates+state.ComponentSuffix, ReasonClusterModelFailed
	}
	if m.Status != aimv1.AIMStatusFailed && m.Status != aimv1.AIMStatusDegraded {
		return comp
	}
	for _, c := range m.Conditions {
		if c.Type != state.ConditionReady && c.Type != templates && strings.HasSuffix(c.Type, state.ComponentSuffix) && c.Status == metav1.ConditionFalse {
			comp.State, comp.Reason, comp.Message = m.Status, failed, fmt.Sprintf("%s is in %s state", kind, m.Status)
			return comp
		}
	}
	return comp
}

// planGPU reports whether the cluster has the GPU the spec requires; true when it does or none is required.
func planGPU(o Observation, p *Plan) bool {
	req, needGPU := requirement(o.Spec.Hardware)
	if !needGPU {
		return true
	}
	m := o.Inventory.Find(req)
	if m.Available {
		p.Components = append(p.Components, state.Component{Name: ComponentGPU, Dependency: state.DependencyUpstream, Reason: gpu.ReasonGPUAvailable,
			Message: gpuAvailableMessage(req, m)})
	} else {
		p.Components = append(p.Components, state.Component{Name: ComponentGPU, Dependency: state.DependencyUpstream,
			State: aimv1.AIMStatusNotAvailable, Reason: m.Reason, Message: m.Message})
	}
	return m.Available
}

// gpuAvailableMessage is aim-engine's sentence (gpu.go): it names the models, never how many nodes have
// them, so that nodes joining or leaving do not write the status of every template needing a GPU.
func gpuAvailableMessage(req gpu.Requirement, m gpu.Match) string {
	if req.Model != "" {
		return "GPU model '" + gpu.NormalizeModel(req.Model) + "' is available"
	}
	return "GPU available (any model accepted): " + strings.Join(m.Models, ", ")
}

// planHardware fills the status with the hardware the profile resolved, its summary and the node affinity
// of the GPU models that satisfy it. settled says the profile is the one the status already held: no new
// result is written in this reconcile.
func planHardware(o Observation, st *aimv1.AIMServiceTemplateStatus, settled bool) {
	hw := resolvedHardware(o.Spec.Hardware, st.Profile)
	keep := settled && keepsAffinity(o.Status, hw)
	st.ResolvedHardware = hw
	st.HardwareSummary = ""
	if !keep {
		st.ResolvedNodeAffinity = nil
	}
	if hw == nil {
		return
	}
	hasGPU := hw.GPU != nil
	var count int32
	var model string
	if hasGPU {
		count, model = hw.GPU.Requests, hw.GPU.Model
		if r, ok := requirement(placement(o.Spec.Hardware, hw)); ok && !keep {
			if m := o.Inventory.Find(gpu.Requirement{Model: r.Model, MinMemory: r.MinMemory, ResourceName: r.ResourceName}); m.Available {
				st.ResolvedNodeAffinity = o.Inventory.Affinity(m.Models)
			} else if aimv1.SemanticEqual(o.Status.ResolvedHardware, hw) {
				st.ResolvedNodeAffinity = o.Status.ResolvedNodeAffinity // no node has the GPU now: see keepsAffinity
			}
		}
	}
	st.HardwareSummary = gpu.Summary(hasGPU, count, model)
}

// keepsAffinity reports whether the node affinity the status holds stays, for hardware hw resolved from a result
// the status already held. The affinity follows the nodes the cluster has (the models that satisfy minVram, the
// family labels seen on nodes), and a service re-applies its InferenceService, rolling its pods, whenever it
// changes: so, as aim-engine computes it only when it parses a discovery result (decorateTemplateStatusCommon,
// internal/aimservicetemplate/reconcile.go:708-718) and its services use the stored value
// (internal/aimservice/kserve.go:317-321), it is computed again only with a new result, for other hardware,
// when there is none yet, and when the template comes back from NotAvailable (whose nodes may have changed).
// While no node has the GPU (NotAvailable) the affinity for the same hardware stays as written, as aim-engine
// never clears it: a running service would be applied without it, then with it again when the nodes return.
// Templates with inline sources keep theirs too, where aim-engine recomputes it on every reconcile
// (reconcile.go:656-664): their services would roll on the same node changes.
func keepsAffinity(prev aimv1.AIMServiceTemplateStatus, hw *aimv1.AIMHardwareRequirements) bool {
	return prev.ResolvedNodeAffinity != nil && prev.Status != aimv1.AIMStatusNotAvailable &&
		aimv1.SemanticEqual(prev.ResolvedHardware, hw)
}

// placement is the hardware the template's pods are placed by: the spec's GPU model or minVram, as aim-engine
// builds resolvedNodeAffinity from them (BuildNodeAffinityFromGPURequirements), whatever discovery reported; a
// spec that names only a GPU count is placed on the GPU model discovery chose, whose profile is made for it.
func placement(spec, resolved *aimv1.AIMHardwareRequirements) *aimv1.AIMHardwareRequirements {
	if spec != nil && spec.GPU != nil && (gpuModel(spec.GPU) != "" || minVRAM(spec.GPU) != nil) {
		return spec
	}
	return resolved
}

// gpuModel is the GPU model a requirement names; a model of blanks names none, as aim-engine's
// TemplateRequiresGPU reads it.
func gpuModel(g *aimv1.AIMGpuRequirements) string {
	return strings.TrimSpace(g.Model)
}

// minVRAM is a GPU requirement's minVram; 0 asks for nothing and is none, as aim-engine reads it.
func minVRAM(g *aimv1.AIMGpuRequirements) *resource.Quantity {
	if g.MinVRAM == nil {
		return nil
	}
	if v := g.MinVRAM.Amount(); !v.IsZero() {
		return &v
	}
	return nil
}

// templateCache is the AIMTemplateCache a caching template owns: named like it, downloading its sources
// into its namespace. aim-engine's cache has no labels of its own (BuildTemplateCache,
// internal/aimservicetemplate/cache.go:52), so the template's propagated labels win over the controller's
// (internal/controller/utils/reconciler.go:326-333), which is childlabels.For's order.
func templateCache(o Observation) *aimv1.AIMTemplateCache {
	labels := childlabels.For(childlabels.ServiceTemplate, &metav1.ObjectMeta{Name: o.Name, Labels: o.Labels}, o.RuntimeConfig, nil)
	return &aimv1.AIMTemplateCache{
		TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMTemplateCache"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{o.controllerRef()}},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: o.Name, TemplateScope: aimv1.AIMTemplateScopeNamespace,
			Env: o.Caching.Env, RuntimeConfigName: o.Spec.RuntimeConfigName, Mode: aimv1.AIMTemplateCacheModeShared},
	}
}

// controllerRef makes the template the controller of a child.
func (o Observation) controllerRef() metav1.OwnerReference {
	return *metav1.NewControllerRef(&metav1.ObjectMeta{Name: o.Name, UID: o.UID}, aimv1.SchemeGroupVersion.WithKind(o.Kind))
}

// discovered reports whether the status holds a result for the current inputs, whose hash is hash; d is the
// record recordedDiscovery keeps.
func discovered(o Observation, d *aimv1.AIMDiscoveryState, hash string) bool {
	return len(o.Status.ModelSources) > 0 && d != nil && o.Model != nil && d.SpecHash == hash
}

// recordedDiscovery is a copy of status.discovery as this controller records it, under hash (js.Hash()): a result
// aim-engine left (migratedResult) is adopted as the result for the current inputs, so a migrated template keeps
// it; a later change of the inputs discovers again, as for any result (R9.19). A record of an earlier release,
// whose hash also covered the pull secrets and the service account (js.JobHash()), is the same record under
// the hash of today, so that upgrading discovers nothing again and keeps the backoff's count.
func recordedDiscovery(o Observation, js discovery.JobSpec, hash string) *aimv1.AIMDiscoveryState {
	d := o.Status.Discovery.DeepCopy()
	switch {
	case d != nil && d.SpecHash == hash:
		return d
	case migratedResult(o):
		if d == nil {
			d = &aimv1.AIMDiscoveryState{}
		}
	case d == nil || d.SpecHash != js.JobHash():
		return d
	}
	d.SpecHash = hash
	return d
}

// migratedResult reports whether the status holds a discovery result aim-engine recorded. aim-engine writes
// status.discovery only when an attempt fails, under its own hash, and never discovers again once the template
// is Ready: what it leaves is a Ready template with model sources and either no status.discovery or the record
// of a failed attempt under aim-engine's hash of the current inputs. Both hashes are 16 hex digits, so only
// recomputing aim-engine's tells them apart.
func migratedResult(o Observation) bool {
	st := o.Status
	if o.Model == nil || st.Status != aimv1.AIMStatusReady || len(st.ModelSources) == 0 {
		return false
	}
	// Sources the spec once gave are no discovery result (both controllers leave status.discovery unset then).
	if c := meta.FindStatusCondition(st.Conditions, ConditionDiscovered); c != nil && c.Reason == ReasonInlineModelSources {
		return false
	}
	return st.Discovery == nil || st.Discovery.SpecHash == aimEngineDiscoveryHash(o.Spec, o.Model.Image)
}

// aimEngineDiscoveryHash is the status.discovery.specHash aim-engine records (ComputeDiscoverySpecHash in its
// internal/aimservicetemplate/discovery.go): the first 8 bytes of the SHA-256 of its inputs concatenated.
func aimEngineDiscoveryHash(spec aimv1.AIMServiceTemplateSpecCommon, image string) string {
	in := spec.ModelName + image
	if spec.Metric != nil {
		in += string(*spec.Metric)
	}
	if spec.Precision != nil {
		in += string(*spec.Precision)
	}
	if hw := spec.Hardware; hw != nil && hw.GPU != nil {
		in += hw.GPU.Model + strconv.Itoa(int(hw.GPU.Requests))
	}
	in += spec.ProfileID
	sum := sha256.Sum256([]byte(in))
	return hex.EncodeToString(sum[:8])
}

// planDiscovery runs discovery: keep a result for the same inputs (F5), read a finished Job, retry a failed
// one after the backoff, or start one when a slot is free. js is the first attempt's Job, hash its Hash, the
// inputs'.
func planDiscovery(o Observation, p *Plan, js discovery.JobSpec, hash string) {
	st := &p.Status
	if discovered(o, st.Discovery, hash) {
		p.Informational = append(p.Informational, state.Condition(ConditionDiscovered, true, ReasonDiscoveryComplete, "discovery found the profile"))
		return
	}
	if st.Discovery == nil || st.Discovery.SpecHash != hash {
		// New inputs: earlier results and failures do not apply.
		st.Discovery = &aimv1.AIMDiscoveryState{SpecHash: hash}
		st.ModelSources, st.Profile = nil, nil
	}
	js.Attempt = st.Discovery.Attempts + 1
	name := js.JobName()
	if o.Job != nil && o.Job.Name == name {
		st.DiscoveryJob = jobReference(name, o.JobNamespace, o.Job.UID)
		planJob(o, p)
		return
	}
	if waiting(o, p, js, hash) {
		return
	}
	if o.ActiveDiscoveryJobs >= int(o.RuntimeConfig.MaxConcurrentDiscoveryJobs()) {
		waitForSlot(o, p)
		return
	}
	p.Job = discovery.BuildJob(js)
	st.DiscoveryJob = jobReference(name, o.JobNamespace, "")
	jobComponent(p, aimv1.AIMStatusProgressing, ReasonJobCreated, "created discovery Job "+name)
	awaiting(p, "discovery is starting")
}

// planJob follows the Job of the current attempt, o.Job: running, failed, or finished with the result.
func planJob(o Observation, p *Plan) {
	name := o.Job.Name
	switch finished, failedMsg := health.Finished(o.Job); {
	case !finished:
		jobComponent(p, aimv1.AIMStatusProgressing, ReasonJobRunning, "discovery Job "+name+" is running")
		awaiting(p, "discovery is running")
		// A pod that cannot start (a refused pull, no node) says so now, not when the Job times out; so do pods
		// the API refuses to create (the Job's FailedCreate: a LimitRange, a quota).
		if _, refused := health.RefusedPods(o.JobEvents); len(o.JobPods) > 0 || refused {
			p.Components = append(p.Components, health.Pods(ComponentDiscoveryPods, o.JobPods, o.JobEvents))
		}
	case failedMsg != "":
		fail(o, p, ReasonJobFailed, "discovery Job "+name+" failed: "+failedMsg)
	default:
		var gone *state.Error
		switch err := o.JobOutputErr; {
		case errors.As(err, &gone) && gone.Reason == ReasonDiscoveryPodNotFound:
			// The pod that succeeded is gone, and its output with it: the attempt gave nothing; the next one runs again.
			fail(o, p, ReasonDiscoveryPodNotFound, err.Error())
			return
		case err != nil:
			// The API did not give the output this time: no fault of the attempt, which is read again (with backoff).
			p.Components = append(p.Components, state.Component{Name: ComponentDiscoveryJob, Dependency: state.DependencyDownstream,
				Errors: []error{fmt.Errorf("reading the output of discovery Job %s: %w", name, err)}})
			awaiting(p, "reading the output of discovery Job "+name)
			return
		}
		res, err := discovery.Parse([]byte(o.JobOutput))
		if err != nil {
			fail(o, p, ReasonDiscoveryOutputInvalid, err.Error())
			return
		}
		p.Status.ModelSources, p.Status.Profile = res.ModelSources, &res.Profile
		jobComponent(p, aimv1.AIMStatusReady, ReasonDiscoveryComplete, "")
		p.Informational = append(p.Informational, state.Condition(ConditionDiscovered, true, ReasonDiscoveryComplete, "discovery found the profile"))
	}
}

// jobNotCreated replans a template whose discovery Job could not be created: the status keeps the Job it named
// before, as none was made (aim-engine names a Job only once it has read it), and the component reports the error
// in place of the plan's "created".
func jobNotCreated(o Observation, p *Plan, err error) {
	withoutJob(o, p)
	p.Components = append(p.Components, state.Component{Name: ComponentDiscoveryJob, Dependency: state.DependencyDownstream, Errors: []error{err}})
}

// withoutJob takes back a plan's discovery Job: no Job to create, the status naming the Job it named before, and
// no component saying one was created.
func withoutJob(o Observation, p *Plan) {
	p.Job = nil
	p.Status.DiscoveryJob = o.Status.DiscoveryJob.DeepCopy()
	p.Components = slices.DeleteFunc(p.Components, func(c state.Component) bool { return c.Name == ComponentDiscoveryJob })
}

// waitForSlot plans to wait for a free discovery slot instead of starting the Job: the planner's choice when every
// slot is taken, and the controller's when another template took the last one first. Either says the same, from
// the template's own inputs only: the count of running Jobs, cluster-wide, and who won a race change while the
// template waits, and each waiting template looks again every slotRetry; with them in the message it would write
// its status on most looks.
func waitForSlot(o Observation, p *Plan) {
	withoutJob(o, p) // the controller's plan, made to start the Job, reported it
	p.Informational = slices.DeleteFunc(p.Informational, func(c metav1.Condition) bool { return c.Type == ConditionDiscovered })
	jobComponent(p, aimv1.AIMStatusPending, ReasonWaitingForSlot, fmt.Sprintf(
		"waiting for a discovery slot: at most %d discovery Jobs run at once", o.RuntimeConfig.MaxConcurrentDiscoveryJobs()))
	awaiting(p, "waiting for a discovery slot")
	p.RequeueAfter = slotRetry
}

// failedAttempt reports a failed discovery attempt, until the next one starts. A Job that failed is an invalid
// spec, as aim-engine's GetJobHealth classifies every failed Job but an evicted one (health_fetchers.go:600):
// ConfigValid=False/InvalidSpec and Ready's reason InvalidSpec, where the condition keeps JobFailed. The
// failures aim-engine does not have (an unparsable output, a pod gone before its output was read) stay the
// component's alone.
func failedAttempt(reason, msg string) state.Component {
	c := state.Component{Name: ComponentDiscoveryJob, Dependency: state.DependencyDownstream,
		State: aimv1.AIMStatusFailed, Reason: reason, Message: msg}
	if reason == ReasonJobFailed {
		c.Errors = []error{state.NewError(state.InvalidSpec, reason, "%s", msg)}
	}
	return c
}

// jobComponent reports the discovery Job.
func jobComponent(p *Plan, s aimv1.AIMStatus, reason, msg string) {
	p.Components = append(p.Components, state.Component{Name: ComponentDiscoveryJob, Dependency: state.DependencyDownstream,
		State: s, Reason: reason, Message: msg})
}

// awaiting reports Discovered=False while discovery has no result.
func awaiting(p *Plan, msg string) {
	p.Informational = append(p.Informational, state.Condition(ConditionDiscovered, false, ReasonAwaitingDiscovery, msg))
}

// waiting reports whether the next attempt, js, waits for the backoff after a failed one, and reports the wait.
// An attempt whose Job pulls with other pull secrets or another service account than the failed one (its name
// differs from status.discoveryJob's) starts at once: changing them, to fix a refused pull, reset the backoff
// while they were inputs of its hash.
func waiting(o Observation, p *Plan, js discovery.JobSpec, hash string) bool {
	d := p.Status.Discovery
	wait := o.Backoff.Wait(d, hash, o.Now)
	last := js
	last.Attempt = d.Attempts
	if wait <= 0 || (o.Status.DiscoveryJob != nil && o.Status.DiscoveryJob.Name != last.JobName()) {
		return false
	}
	// Keep telling what went wrong (the output excerpt) while waiting.
	reason := cmp.Or(d.LastFailureReason, ReasonJobFailed)
	msg := fmt.Sprintf("attempt %d failed", d.Attempts)
	if prev := meta.FindStatusCondition(o.Status.Conditions, ComponentDiscoveryJob+state.ComponentSuffix); prev != nil && prev.Reason == reason {
		msg = failureOf(prev.Message)
	}
	next := nextAttempt(o.Backoff, d, o.Now)
	p.Components = append(p.Components, failedAttempt(reason, msg+retryingAt+next))
	awaiting(p, fmt.Sprintf("waiting until %s before attempt %d", next, d.Attempts+1))
	p.RequeueAfter = wait
	return true
}

// nextAttempt is when the attempt after d's failed one may start (Backoff.Next), in RFC 3339, UTC. The messages
// of the backoff name this time, which is fixed for the attempt, and not the time left, which would make every
// reconcile during a backoff of up to an hour (resyncs, GPU node changes, the model's changes) write the status.
func nextAttempt(b discovery.Backoff, d *aimv1.AIMDiscoveryState, now time.Time) string {
	return b.Next(d, now).UTC().Format(time.RFC3339)
}

// failureOf is what failed, from a DiscoveryJobReady message about a failed attempt: the message without the
// retry's time, in this release's words or in earlier ones'.
func failureOf(msg string) string {
	for _, sep := range []string{retryingAt, retryingIn} {
		if i := strings.LastIndex(msg, sep); i >= 0 {
			return msg[:i]
		}
	}
	return msg
}

// jobReference names the discovery Job in status; its uid is known once the Job has been observed.
func jobReference(name, namespace string, uid types.UID) *aimv1.AIMResolvedReference {
	return &aimv1.AIMResolvedReference{Kind: "Job", Name: name, Namespace: namespace,
		Scope: aimv1.AIMResolutionScopeNamespace, UID: uid}
}

// fail records a failed attempt once per Job and reports it; the retry waits for the backoff (F8).
func fail(o Observation, p *Plan, reason, msg string) {
	d := p.Status.Discovery
	attempt := discovery.AttemptOf(o.Job.Name)
	if attempt > d.Attempts {
		d.Attempts = attempt
		d.LastAttemptTime = &metav1.Time{Time: o.Now}
		d.LastFailureReason = reason
	}
	wait := o.Backoff.Wait(d, d.SpecHash, o.Now)
	p.Components = append(p.Components, failedAttempt(reason, msg+retryingAt+nextAttempt(o.Backoff, d, o.Now)))
	p.Informational = append(p.Informational, state.Condition(ConditionDiscovered, false, ReasonAwaitingDiscovery, "the last discovery attempt failed"))
	p.RequeueAfter = max(wait, time.Second)
}

// jobSpec is the discovery Job of the template for an attempt.
func jobSpec(o Observation, attempt int32) discovery.JobSpec {
	js := discovery.JobSpec{
		TemplateName: o.Name, TemplateKind: o.Kind, Namespace: o.JobNamespace, Attempt: attempt,
		Owner:      o.controllerRef(),
		Controller: controllerName(o.Kind),
		Labels:     o.RuntimeConfig.PropagatedLabels(o.Labels),
		ProfileID:  o.Spec.ProfileID, Env: o.Spec.Env,
	}
	if o.Model != nil {
		js.Image, js.PullImage = o.Model.Image, o.Mirrors.Rewrite(o.Model.Image)
		js.ImagePullSecrets = nonEmptySecrets(o.Spec.ImagePullSecrets, o.Model.ImagePullSecrets)
		js.ServiceAccountName = cmp.Or(o.Spec.ServiceAccountName, o.Model.ServiceAccountName)
	}
	if d := o.RuntimeConfig.Spec.Discovery; d != nil && d.ServiceAccountName != nil {
		js.ServiceAccountName = *d.ServiceAccountName
	}
	if o.Spec.Metric != nil {
		js.Metric = string(*o.Spec.Metric)
	}
	if o.Spec.Precision != nil {
		js.Precision = string(*o.Spec.Precision)
	}
	if hw := o.Spec.Hardware; hw != nil && hw.GPU != nil {
		js.GPUModel, js.GPUCount = hw.GPU.Model, hw.GPU.Requests
	}
	if r, ok := requirement(o.Spec.Hardware); ok {
		// Discovery runs on the GPU node pool without consuming GPUs.
		if m := o.Inventory.Find(gpu.Requirement{Model: r.Model, MinMemory: r.MinMemory, ResourceName: r.ResourceName}); m.Available {
			js.NodeAffinity = o.Inventory.Affinity(m.Models)
		}
	}
	if s := o.RuntimeConfig.Spec.Scheduling; s != nil {
		js.Tolerations, js.NodeSelector = s.Tolerations, s.NodeSelector
		if s.PriorityClassName != nil {
			js.PriorityClassName = *s.PriorityClassName
		}
	}
	return js
}

// controllerName is the template controller's name in the labels of its children, by the template's kind.
func controllerName(kind string) string {
	if kind == "AIMClusterServiceTemplate" {
		return childlabels.ClusterServiceTemplate
	}
	return childlabels.ServiceTemplate
}

// requirement turns template hardware into a GPU requirement; false when no GPU is needed. A model of blanks
// names none, as in aim-engine's TemplateRequiresGPU (utils.go:113).
func requirement(hw *aimv1.AIMHardwareRequirements) (gpu.Requirement, bool) {
	if hw == nil || hw.GPU == nil {
		return gpu.Requirement{}, false
	}
	g := hw.GPU
	if g.Requests == 0 && gpuModel(g) == "" && minVRAM(g) == nil {
		return gpu.Requirement{}, false
	}
	return gpu.Requirement{Model: gpuModel(g), MinMemory: minVRAM(g), Count: int64(g.Requests), ResourceName: corev1.ResourceName(g.ResourceName)}, true
}

// resolvedHardware is the spec's hardware with the GPU model and count discovery chose.
func resolvedHardware(spec *aimv1.AIMHardwareRequirements, profile *aimv1.AIMProfile) *aimv1.AIMHardwareRequirements {
	var hw *aimv1.AIMHardwareRequirements
	if spec != nil {
		hw = spec.DeepCopy()
		model.CanonicalHardware(hw) // as aim-engine's status writes them, through resource.Quantity
	}
	if profile == nil || (profile.Metadata.GPU == "" && profile.Metadata.GPUCount == 0) {
		return hw
	}
	if hw == nil {
		hw = &aimv1.AIMHardwareRequirements{}
	}
	if hw.GPU == nil {
		hw.GPU = &aimv1.AIMGpuRequirements{ResourceName: aimv1.DefaultGPUResourceName}
	}
	if profile.Metadata.GPU != "" {
		hw.GPU.Model = gpu.NormalizeModel(profile.Metadata.GPU)
		hw.GPU.MinVRAM = nil
	}
	hw.GPU.Requests = profile.Metadata.GPUCount
	return hw
}

func profileFromSpec(spec aimv1.AIMServiceTemplateSpecCommon) *aimv1.AIMProfile {
	p := &aimv1.AIMProfile{}
	if spec.Metric != nil {
		p.Metadata.Metric = *spec.Metric
	}
	if spec.Precision != nil {
		p.Metadata.Precision = *spec.Precision
	}
	p.Metadata.Type = aimv1.AIMProfileTypeUnoptimized
	if spec.Type != nil {
		p.Metadata.Type = *spec.Type
	}
	if hw := spec.Hardware; hw != nil && hw.GPU != nil {
		p.Metadata.GPU, p.Metadata.GPUCount = hw.GPU.Model, hw.GPU.Requests
	}
	return p
}

func nonEmptySecrets(a, b []corev1.LocalObjectReference) []corev1.LocalObjectReference {
	if len(a) > 0 {
		return a
	}
	return b
}
