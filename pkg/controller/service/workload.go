package service

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/jobhealth"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Labels on the workloads of a service.
const (
	LabelTemplate  = "aim.eai.amd.com/template"
	LabelModel     = "aim.eai.amd.com/model"
	LabelMetric    = "aim.eai.amd.com/metric"
	LabelPrecision = "aim.eai.amd.com/precision"
	labelComponent = "app.kubernetes.io/component"

	// LabelInferenceService is the label KServe puts on predictor pods.
	LabelInferenceService = "serving.kserve.io/inferenceservice"
)

// predictorSuffix and the namespace make up KServe's host name label of the predictor, which must fit in 63
// characters.
const predictorSuffix = "-predictor-"

// minWorkloadName is the shortest InferenceService name aim-engine allows: a character, a dash and the hash.
// Namespaces longer than 42 characters leave less room; aim-engine then creates no InferenceService at all,
// this controller still creates one of this length (KServe's host label of it is longer than 63 characters).
const minWorkloadName = 10

// WorkloadName is the name of a service's InferenceService, as aim-engine derives it: the service's name and a
// hash of the namespace, short enough that KServe's "<name>-predictor-<namespace>" host label fits in 63
// characters.
func WorkloadName(svc *aimv1.AIMService) string {
	limit := naming.MaxLength - len(predictorSuffix) - len(svc.Namespace)
	return naming.DerivedName([]string{svc.Name}, naming.HashLength, max(limit, minWorkloadName), svc.Namespace)
}

// RouteName is the name of a service's HTTPRoute, as aim-engine derives it: the service's name and a hash of
// the namespace, unlike the InferenceService's name not shortened for KServe's host label.
func RouteName(svc *aimv1.AIMService) string {
	return naming.DerivedName([]string{svc.Name}, naming.HashLength, naming.MaxLength, svc.Namespace)
}

// Endpoint is where the service answers inside the cluster (F4), and its routed path.
func Endpoint(svc *aimv1.AIMService, path string) *aimv1.AIMServiceEndpoint {
	return &aimv1.AIMServiceEndpoint{
		Internal: fmt.Sprintf("http://%s-predictor.%s.svc.cluster.local", WorkloadName(svc), svc.Namespace),
		Path:     path,
	}
}

// CachingMode is the effective caching mode: the legacy Auto and Always mean Shared, absent means Shared.
func CachingMode(svc *aimv1.AIMService) aimv1.AIMCachingMode {
	if c := svc.Spec.Caching; c != nil {
		switch c.Mode {
		case aimv1.AIMCachingModeDedicated, aimv1.AIMCachingModeNever:
			return c.Mode
		}
	}
	return aimv1.AIMCachingModeShared
}

// ReasonCacheConflict is the Cache component's reason when another template's cache holds the name of the
// service's shared cache.
const ReasonCacheConflict = "CacheConflict"

// CachePlan is what the service does about its model cache.
type CachePlan struct {
	// Create is a template cache to create; Use the one the service reads.
	Create, Use *aimv1.AIMTemplateCache
	// Mounts are the ready artifacts the InferenceService mounts.
	Mounts []kserve.CacheMount
	// Component is nil when the service needs no cache: caching mode Never (F9), or nothing to download.
	Component *state.Component
}

// PlanCache decides on the cache of a service running template t. existing are the namespace's template
// caches, artifacts its artifacts (for the progress of downloads). A Shared cache is any shared cache of the template and belongs to no service; a Dedicated one is the
// service's own.
func PlanCache(svc *aimv1.AIMService, t Template, existing []*aimv1.AIMTemplateCache, artifacts []*aimv1.AIMArtifact, rc runtimeconfig.Resolved) CachePlan {
	mode := CachingMode(svc)
	if mode == aimv1.AIMCachingModeNever || len(t.Status.ModelSources) == 0 {
		return CachePlan{}
	}
	scope := aimv1.AIMTemplateScopeNamespace
	if t.Namespace == "" {
		scope = aimv1.AIMTemplateScopeCluster
	}
	want := &aimv1.AIMTemplateCache{
		TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMTemplateCache"},
		// aim-engine's labels: the service (the one that made a shared cache) and the framework label.
		ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace,
			Labels: childlabels.For(childlabels.Service, svc, rc, map[string]string{
				aimv1.LabelService: naming.LabelValue(svc.Name), LabelTemplate: naming.LabelValue(t.Name)})},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: t.Name, TemplateScope: scope, RuntimeConfigName: svc.Spec.RuntimeConfigName,
			StorageClassName: storageClass(svc, rc)},
	}
	var cachingEnv []corev1.EnvVar
	if t.Caching != nil {
		cachingEnv = t.Caching.Env
	}
	want.Spec.Env = env.Merge(t.Spec.Env, cachingEnv, svc.Spec.Env)
	var use *aimv1.AIMTemplateCache
	if mode == aimv1.AIMCachingModeDedicated {
		want.Name = naming.DerivedName([]string{t.Name, svc.Name}, naming.HashLength, naming.MaxLength, string(svc.UID))
		want.Spec.Mode = aimv1.AIMTemplateCacheModeDedicated
		want.OwnerReferences = []metav1.OwnerReference{ownerRef(svc)}
		for _, c := range existing {
			if c.Name == want.Name {
				use = c
			}
		}
	} else {
		want.Name = naming.DerivedName([]string{t.Name}, naming.HashLength, naming.MaxLength, svc.Namespace)
		want.Spec.Mode = aimv1.AIMTemplateCacheModeShared
		var shared []*aimv1.AIMTemplateCache
		for _, c := range existing {
			if c.Spec.TemplateName == t.Name && c.Spec.Mode != aimv1.AIMTemplateCacheModeDedicated &&
				(c.Spec.TemplateScope == scope || c.Spec.TemplateScope == "" || c.Spec.TemplateScope == aimv1.AIMTemplateScopeUnknown) {
				shared = append(shared, c)
			}
		}
		// The best of them: Ready first, then by name for a stable choice.
		slices.SortFunc(shared, func(a, b *aimv1.AIMTemplateCache) int {
			if ra, rb := a.Status.Status == aimv1.AIMStatusReady, b.Status.Status == aimv1.AIMStatusReady; ra != rb {
				if ra {
					return -1
				}
				return 1
			}
			return strings.Compare(a.Name, b.Name)
		})
		if len(shared) > 0 {
			use = shared[0]
		}
	}
	comp := state.Component{Name: ComponentCache, Dependency: state.DependencyDownstream}
	if use == nil {
		// aim-engine's shared cache name hashes only the namespace: a namespaced and a cluster template of the
		// same name would share it, and the second could never be created.
		for _, c := range existing {
			if c.Name == want.Name {
				comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonCacheConflict,
					"AIMTemplateCache %s, the name of this template's shared cache, already caches template %s (scope %s, mode %s); rename one of the templates",
					c.Name, c.Spec.TemplateName, cmp.Or(string(c.Spec.TemplateScope), "unset"), cmp.Or(string(c.Spec.Mode), "Shared"))}
				return CachePlan{Component: &comp}
			}
		}
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "CacheCreating", "creating AIMTemplateCache "+want.Name
		return CachePlan{Create: want, Component: &comp}
	}
	plan := CachePlan{Use: use, Mounts: Mounts(use), Component: &comp}
	what := "AIMTemplateCache " + use.Name
	switch use.Status.Status {
	case aimv1.AIMStatusReady:
		comp.Reason, comp.Message = "CacheReady", what
	case aimv1.AIMStatusFailed, aimv1.AIMStatusDegraded:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, "CacheFailed", what+" is "+string(use.Status.Status)
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "CacheNotReady", what+" is downloading the model"
		byName := map[string]*aimv1.AIMArtifact{}
		for _, a := range artifacts {
			byName[a.Name] = a
		}
		if p := DownloadProgress(use, byName); p != "" {
			comp.Message += ": " + p
		}
	}
	return plan
}

// DownloadProgress says how far a cache's downloads are, for the CacheReady message: each artifact not yet
// Ready with the progress its downloader reports.
func DownloadProgress(c *aimv1.AIMTemplateCache, artifacts map[string]*aimv1.AIMArtifact) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(c.Status.Artifacts)) {
		entry := c.Status.Artifacts[name]
		if entry.Status == aimv1.AIMStatusReady {
			continue
		}
		progress := cmp.Or(string(entry.Status), "Pending")
		if a := artifacts[name]; a != nil && a.Status.Progress != nil && a.Status.Progress.DisplayPercentage != "" {
			progress = a.Status.Progress.DisplayPercentage
		}
		parts = append(parts, fmt.Sprintf("%s %s", cmp.Or(entry.Model, name), progress))
	}
	return strings.Join(parts, ", ")
}

// Mounts are a cache's ready artifacts as volumes, in a stable order.
func Mounts(c *aimv1.AIMTemplateCache) []kserve.CacheMount {
	var out []kserve.CacheMount
	for _, a := range c.Status.Artifacts {
		if a.Status != aimv1.AIMStatusReady || a.PersistentVolumeClaim == "" || a.Model == "" {
			continue
		}
		// The volume is named after the artifact, as aim-engine names it, so that adopting an InferenceService
		// aim-engine made does not rewrite its volumes (and restart its pods).
		out = append(out, kserve.CacheMount{ModelID: a.Model, PVC: a.PersistentVolumeClaim, Volume: naming.RFC1123Label(a.Name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ModelID < out[j].ModelID })
	return out
}

// storageClass is the service's storage class, else the runtime config's, else the cluster default ("").
func storageClass(svc *aimv1.AIMService, rc runtimeconfig.Resolved) string {
	if s := svc.Spec.Storage; s != nil && s.DefaultStorageClassName != nil {
		return *s.DefaultStorageClassName
	}
	if s := rc.Spec.Storage; s != nil && s.DefaultStorageClassName != nil {
		return *s.DefaultStorageClassName
	}
	return rc.Spec.DefaultStorageClassName
}

// Fixed environment of every inference container.
var baseEnv = []corev1.EnvVar{{Name: "AIM_CACHE_PATH", Value: kserve.CacheRoot}, {Name: "VLLM_ENABLE_METRICS", Value: "true"}}

// Environment is the inference container's environment, merged by name from the lowest layer to the highest:
// the fixed variables, the runtime config, the model, the template's profile parameters, the template, the
// custom model's id, the service.
func Environment(svc *aimv1.AIMService, m Model, t Template, rc runtimeconfig.Resolved) []corev1.EnvVar {
	var profile []corev1.EnvVar
	add := func(k, v string) {
		if v != "" {
			profile = append(profile, corev1.EnvVar{Name: k, Value: v})
		}
	}
	c := t.candidate()
	add("AIM_PROFILE_ID", t.Spec.ProfileID)
	add("AIM_METRIC", string(c.Metric))
	add("AIM_PRECISION", string(c.Precision))
	var modelID []corev1.EnvVar
	if len(t.Spec.ModelSources) > 0 {
		modelID = []corev1.EnvVar{{Name: "AIM_MODEL_ID", Value: t.Spec.ModelSources[0].ModelID}}
	} else if len(m.Spec.ModelSources) > 0 {
		modelID = []corev1.EnvVar{{Name: "AIM_MODEL_ID", Value: m.Spec.ModelSources[0].ModelID}}
	}
	return env.Merge(baseEnv, rc.Spec.Env, m.Spec.Env, profile, t.Spec.Env, modelID, svc.Spec.Env)
}

// InferenceService is the input of the service's InferenceService.
func InferenceService(svc *aimv1.AIMService, m Model, t Template, rc runtimeconfig.Resolved, mounts []kserve.CacheMount) kserve.Input {
	own := map[string]string{labelComponent: "inference", aimv1.LabelService: naming.LabelValue(svc.Name),
		LabelTemplate: naming.LabelValue(t.Name), LabelModel: naming.LabelValue(m.Name)}
	c := t.candidate()
	if c.Metric != "" {
		own[LabelMetric] = string(c.Metric)
	}
	if c.Precision != "" {
		own[LabelPrecision] = string(c.Precision)
	}
	labels := childlabels.For(childlabels.Service, svc, rc, own)
	in := kserve.Input{
		Name: WorkloadName(svc), Namespace: svc.Namespace, Owner: ownerRef(svc), Labels: labels,
		Image: m.Spec.Image, NodeAffinity: t.Status.ResolvedNodeAffinity, Scheduling: rc.Spec.Scheduling,
		Env: Environment(svc, m, t, rc), ServiceResources: svc.Spec.Resources,
		ImagePullSecrets:   unionSecrets(svc.Spec.ImagePullSecrets, t.Spec.ImagePullSecrets, m.Spec.ImagePullSecrets),
		ServiceAccountName: cmp.Or(svc.Spec.ServiceAccountName, cmp.Or(t.Spec.ServiceAccountName, m.Spec.ServiceAccountName)),
		Scale:              kserve.ScaleOf(&svc.Spec), AutoScaling: svc.Spec.AutoScaling,
		Caches: mounts,
	}
	hw := t.Status.ResolvedHardware
	if hw == nil {
		hw = t.Spec.Hardware
	}
	if hw != nil && hw.GPU != nil {
		in.GPUs, in.GPUResource = hw.GPU.Requests, corev1.ResourceName(hw.GPU.ResourceName)
	}
	in.TemplateResources = templateResources(hw, t.Spec.Resources)
	return in
}

// templateResources are the template's resources, with a CPU-only template's cpu requirements under them.
func templateResources(hw *aimv1.AIMHardwareRequirements, res *corev1.ResourceRequirements) *corev1.ResourceRequirements {
	if hw == nil || hw.CPU == nil {
		return res
	}
	out := &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: hw.CPU.Requests.DeepCopy()}}
	if hw.CPU.Limits != nil {
		out.Limits = corev1.ResourceList{corev1.ResourceCPU: hw.CPU.Limits.DeepCopy()}
	}
	if res != nil {
		for k, v := range res.Requests {
			out.Requests[k] = v.DeepCopy()
		}
		for k, v := range res.Limits {
			if out.Limits == nil {
				out.Limits = corev1.ResourceList{}
			}
			out.Limits[k] = v.DeepCopy()
		}
	}
	return out
}

// unionSecrets lists every pull secret once, in order of precedence.
func unionSecrets(lists ...[]corev1.LocalObjectReference) []corev1.LocalObjectReference {
	var out []corev1.LocalObjectReference
	for _, l := range lists {
		for _, s := range l {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// RoutePlan is what the service does about its HTTPRoute.
type RoutePlan struct {
	// Route is the route to apply; nil when routing is off (an existing route is deleted) or broken (an
	// existing route is kept as it is).
	Route *gateway.Input
	// Path is the routed path.
	Path string
	// Component is nil when routing is off.
	Component *state.Component
}

// PlanRoute decides on the service's HTTPRoute from its routing settings over the runtime config's. A mistake
// in them fails the route only; the InferenceService does not depend on it.
func PlanRoute(svc *aimv1.AIMService, rc runtimeconfig.Resolved) RoutePlan {
	var s, c aimv1.AIMRuntimeRoutingConfig
	if svc.Spec.Routing != nil {
		s = *svc.Spec.Routing
	}
	if rc.Spec.Routing != nil {
		c = *rc.Spec.Routing
	}
	if !ptr.Deref(s.Enabled, ptr.Deref(c.Enabled, false)) {
		return RoutePlan{}
	}
	comp := state.Component{Name: ComponentRoute, Dependency: state.DependencyDownstream}
	gw := s.GatewayRef
	if gw == nil {
		gw = c.GatewayRef
	}
	if gw == nil {
		comp.Errors = []error{state.NewError(state.InvalidSpec, "GatewayNotConfigured",
			"routing is enabled but neither spec.routing.gatewayRef nor the runtime config names a gateway")}
		return RoutePlan{Component: &comp}
	}
	path := DefaultPath(svc)
	if tmpl := ptr.Deref(s.PathTemplate, ptr.Deref(c.PathTemplate, "")); tmpl != "" {
		p, err := RenderPath(svc, tmpl)
		if err != nil {
			comp.Errors = []error{state.NewError(state.InvalidSpec, "PathTemplateInvalid", "routing path template %q: %v", tmpl, err)}
			return RoutePlan{Component: &comp}
		}
		path = p
	}
	timeout := s.RequestTimeout
	if timeout == nil {
		timeout = c.RequestTimeout
	}
	annotations := map[string]string{}
	for _, m := range []map[string]string{c.Annotations, s.Annotations} {
		for k, v := range m {
			annotations[k] = v
		}
	}
	if len(annotations) == 0 {
		annotations = nil
	}
	name := RouteName(svc)
	in := &gateway.Input{
		Name: name, Namespace: svc.Namespace, Owner: ownerRef(svc), Annotations: annotations,
		Labels: childlabels.For(childlabels.Service, svc, rc, map[string]string{labelComponent: "routing", aimv1.LabelService: naming.LabelValue(svc.Name)}),
		Parent: *gw, Path: path, Backend: WorkloadName(svc) + "-predictor", Timeout: timeout,
	}
	comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "HTTPRouteCreating", "creating HTTPRoute "+name
	return RoutePlan{Route: in, Path: path, Component: &comp}
}

// RouteComponent reports an existing route by what its gateways say.
func RouteComponent(comp state.Component, a gateway.Acceptance) state.Component {
	switch {
	case a.Accepted:
		comp.State, comp.Reason, comp.Message = "", "HTTPRouteAccepted", ""
	case a.Known:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, cmp.Or(a.Reason, "HTTPRouteRejected"), a.Message
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "HTTPRoutePending", "waiting for the gateway to accept the route"
	}
	return comp
}

// ISVCState is what the controller observed of the InferenceService.
type ISVCState struct {
	Exists, Ready bool
	// Reason and Message of its Ready condition when not ready.
	Reason, Message string
}

// ISVCComponent reports the InferenceService; warnings are KServe's Warning events about it.
func ISVCComponent(s ISVCState, warnings []corev1.Event) state.Component {
	comp := state.Component{Name: ComponentISVC, Dependency: state.DependencyDownstream}
	switch {
	case !s.Exists:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "CreatingRuntime", "creating the InferenceService"
	case s.Ready:
		comp.Reason = "RuntimeReady"
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "CreatingRuntime",
			cmp.Or(redact.Excerpt(s.Message, redact.DefaultLimit), "the InferenceService is not ready yet")
		if e := jobhealth.Latest(warnings); e != nil {
			comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, cmp.Or(e.Reason, "InternalError"), redact.Excerpt(e.Message, redact.DefaultLimit)
			if strings.Contains(strings.ToLower(e.Message), "serverless") || strings.Contains(e.Message, "Knative") {
				comp.Reason, comp.Message = "ServerlessModeRejected", comp.Message+"; configure KServe for RawDeployment (Standard) mode"
			}
		}
	}
	return comp
}

// PodsComponent reports the predictor pods from their container states and the latest Warning event about
// each pod. Image pulls are judged by jobhealth.PullError (a refused credential or a missing image Failed, other
// pull failures Degraded); crashes and OOM kills make the component Degraded; scheduling problems keep it Pending.
func PodsComponent(pods []*corev1.Pod, events []corev1.Event, isvcReady bool) state.Component {
	comp := state.Component{Name: ComponentPods, Dependency: state.DependencyDownstream}
	if len(pods) == 0 {
		if isvcReady {
			return comp
		}
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "NoPods", "no predictor pods yet"
		return comp
	}
	byPod := map[string][]corev1.Event{}
	for _, e := range events {
		byPod[e.InvolvedObject.Name] = append(byPod[e.InvolvedObject.Name], e)
	}
	ready := 0
	for _, p := range sortedPods(pods) {
		if problem := podProblem(p, byPod[p.Name]); problem != nil {
			return *problem
		}
		if jobhealth.Ready(p) {
			ready++
		}
	}
	if ready == len(pods) {
		comp.Reason = "PodsReady"
		return comp
	}
	comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, "PodsStarting", fmt.Sprintf("%d of %d pods ready", ready, len(pods))
	return comp
}

func podProblem(p *corev1.Pod, events []corev1.Event) *state.Component {
	bad := func(st aimv1.AIMStatus, reason, msg string) *state.Component {
		// msg is kubelet's or an Event's text, which may quote a registry's answer.
		return &state.Component{Name: ComponentPods, Dependency: state.DependencyDownstream, State: st, Reason: reason,
			Message: fmt.Sprintf("pod %s: %s", p.Name, redact.Excerpt(msg, redact.DefaultLimit))}
	}
	// Image pulls are judged as every pod's are (jobhealth.PullError), so that one registry answer gives one
	// reason and one state everywhere, as the reference does.
	pullFailed := func(msg string) *state.Component {
		return &state.Component{Name: ComponentPods, Dependency: state.DependencyDownstream,
			Errors: []error{jobhealth.PullError(fmt.Sprintf("pod %s: %s", p.Name, msg))}}
	}
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "ImagePullBackOff", "ErrImagePull":
				return pullFailed(cmp.Or(w.Message, w.Reason+" for "+cs.Image))
			case "InvalidImageName", "ErrImageNeverPull":
				return bad(aimv1.AIMStatusDegraded, w.Reason, cmp.Or(w.Message, w.Reason+" for "+cs.Image))
			case "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError":
				msg := cmp.Or(w.Message, w.Reason)
				if t := cs.LastTerminationState.Terminated; t != nil && t.Reason == "OOMKilled" {
					return bad(aimv1.AIMStatusDegraded, "PodOOMKilled", "container "+cs.Name+" was killed for running out of memory")
				}
				return bad(aimv1.AIMStatusDegraded, w.Reason, msg)
			}
		}
		if t := cs.State.Terminated; t != nil && t.Reason == "OOMKilled" {
			return bad(aimv1.AIMStatusDegraded, "PodOOMKilled", "container "+cs.Name+" was killed for running out of memory")
		}
	}
	switch {
	case p.Status.Phase == corev1.PodFailed && p.Status.Reason == "Evicted":
		return bad(aimv1.AIMStatusDegraded, "PodEvicted", cmp.Or(p.Status.Message, "evicted"))
	case p.Status.Phase == corev1.PodFailed:
		return bad(aimv1.AIMStatusDegraded, "PodFailed", cmp.Or(p.Status.Message, "failed"))
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return bad(aimv1.AIMStatusPending, "FailedScheduling", cmp.Or(c.Message, "unschedulable"))
		}
	}
	if p.Status.Phase == corev1.PodPending {
		if e := jobhealth.Latest(events); e != nil {
			switch {
			case slices.Contains(jobhealth.PendingEvents, e.Reason):
				return bad(aimv1.AIMStatusPending, e.Reason, e.Message)
			case (e.Reason == "Failed" || e.Reason == "BackOff") && strings.Contains(e.Message, "pull"):
				return pullFailed(e.Message)
			}
		}
	}
	return nil
}

func sortedPods(pods []*corev1.Pod) []*corev1.Pod {
	out := slices.Clone(pods)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HPAName is the HorizontalPodAutoscaler KEDA makes for an autoscaled InferenceService's predictor.
func HPAName(isvc string) string { return "keda-hpa-" + isvc + "-predictor" }

// Runtime is the replica summary, by the rule of kserve.ScaleOf; an autoscaled service's bounds and desired count
// are its HPA's once KEDA has made one. currentReplicas counts the ready predictor pods. replicas shows "N" (the
// ready replicas) when the bounds are equal, else "ready/desired (min-max)", as aim-engine's does.
func Runtime(svc *aimv1.AIMService, pods []*corev1.Pod, hpa *autoscalingv2.HorizontalPodAutoscaler) *aimv1.AIMServiceRuntimeStatus {
	ready := int32(0)
	for _, p := range pods {
		if jobhealth.Ready(p) {
			ready++
		}
	}
	scale := kserve.ScaleOf(&svc.Spec)
	r := &aimv1.AIMServiceRuntimeStatus{CurrentReplicas: ready, MinReplicas: scale.Min, MaxReplicas: scale.Max, DesiredReplicas: scale.Min}
	if scale.Autoscaled && hpa != nil {
		r.MinReplicas, r.MaxReplicas = ptr.Deref(hpa.Spec.MinReplicas, r.MinReplicas), hpa.Spec.MaxReplicas
		r.DesiredReplicas = r.MinReplicas // until the HPA has computed a count
		if hpa.Status.DesiredReplicas > 0 {
			r.DesiredReplicas = hpa.Status.DesiredReplicas
		}
	}
	if r.MinReplicas == r.MaxReplicas {
		r.Replicas = fmt.Sprintf("%d", ready)
	} else {
		r.Replicas = fmt.Sprintf("%d/%d (%d-%d)", ready, r.DesiredReplicas, r.MinReplicas, r.MaxReplicas)
	}
	return r
}

// FinalizerCacheCleanup lets a deleted service remove the shared cache it started when nobody needs it.
const FinalizerCacheCleanup = "aim.eai.amd.com/template-cache-cleanup"

// CachesToClean are the shared caches a deleted service leaves that nobody needs: made by this controller for
// the service's template (so not a template's own or a user's cache), not Ready (a ready cache is worth keeping
// for the next service), and not for the template of another live service of the namespace. Dedicated caches
// need no finalizer: the service owns them.
func CachesToClean(svc *aimv1.AIMService, caches []*aimv1.AIMTemplateCache, services []*aimv1.AIMService) []*aimv1.AIMTemplateCache {
	tmpl := func(s *aimv1.AIMService) string {
		if s.Status.ResolvedTemplate != nil {
			return s.Status.ResolvedTemplate.Name
		}
		return ""
	}
	mine := tmpl(svc)
	if mine == "" {
		return nil
	}
	for _, o := range services {
		if o.UID != svc.UID && o.DeletionTimestamp == nil && tmpl(o) == mine {
			return nil
		}
	}
	var out []*aimv1.AIMTemplateCache
	for _, c := range caches {
		if c.Spec.TemplateName == mine && c.Spec.Mode != aimv1.AIMTemplateCacheModeDedicated && len(c.OwnerReferences) == 0 &&
			c.Labels[aimv1.LabelManagedBy] == aimv1.ManagedByValue && c.Status.Status != aimv1.AIMStatusReady {
			out = append(out, c)
		}
	}
	return out
}
