package health

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// PredictorPods reports an InferenceService's predictor pods as the component name, from their container states
// and the latest event about each pod (a Warning or kubelet's Pulling). Image pulls are judged by PullError (a
// refused credential or a missing image Failed, other pull failures Degraded); crashes and OOM kills make the
// component Degraded; scheduling problems keep it Pending, a pull under way Progressing. With no pods, a Ready
// InferenceService (scaled to zero) is healthy.
//
// Once a pod is ready the predictor serves, and it is Ready, as aim-engine reports it (PodsReady while any pod
// is, after image pulls and failed pods): a replica of a scale-up or a rollout that waits to be scheduled or
// starts does not take the service out of Running, nor does a pod that ended. A pull that fails is reported as it
// is with no pod ready, a failed pod only while no pod is ready; a pod that crash-loops or cannot create its
// container makes a serving predictor Degraded (docs/compatibility.md, InferenceServicePodsReady).
//
// replicaSetEvents are the Warning events of the predictor's ReplicaSets: with no pods, the latest FailedCreate
// among them says why none exists (a ResourceQuota on GPUs, a LimitRange, Pod Security admission, a webhook), where
// "no predictor pods yet" alone would leave the service Progressing without a word.
func PredictorPods(name string, pods []*corev1.Pod, events, replicaSetEvents []corev1.Event, isvcReady bool) state.Component {
	comp := state.Component{Name: name, Dependency: state.DependencyDownstream}
	ready := 0
	for _, p := range pods {
		if Ready(p) && !ended(p) {
			ready++
		}
	}
	if ready > 0 || isvcReady {
		// A pod that ended (evicted, its node shut down) is no replica any more while another serves or the
		// InferenceService is Ready (scaled to zero): its ReplicaSet has replaced it, and its object lingers until
		// someone deletes it (the pod garbage collector waits for 12,500 of them). The ReplicaSet controller counts
		// only active pods (IsPodActive); so does a serving predictor.
		pods = slices.DeleteFunc(slices.Clone(pods), ended)
	}
	if len(pods) == 0 {
		if isvcReady {
			return comp
		}
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonNoPods, "no predictor pods yet"
		if why, ok := RefusedPods(replicaSetEvents); ok {
			comp.Message += ": " + why
		}
		return comp
	}
	pods = slices.SortedFunc(slices.Values(pods), func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	byPod := make(map[string][]corev1.Event, len(pods))
	for _, p := range pods {
		byPod[p.Name] = EventsOf(p, events)
	}
	for _, problem := range predictorProblems(name, pods, byPod) {
		st, reason, msg := state.Outcome(*problem)
		switch {
		case ready == 0 || len(problem.Errors) > 0:
			// A refused or failing pull is reported whatever else serves, as aim-engine checks pulls before
			// readiness; with no pod ready, so is a failed pod.
			return *problem
		case st != aimv1.AIMStatusPending:
			comp.State, comp.Reason = aimv1.AIMStatusDegraded, reason
			comp.Message = fmt.Sprintf("%d of %d pods ready; %s", ready, len(pods), msg)
			return comp
		}
	}
	switch {
	case ready == len(pods):
		comp.Reason = ReasonPodsReady
	case ready > 0:
		comp.Reason, comp.Message = ReasonPodsReady, fmt.Sprintf("%d of %d pods ready", ready, len(pods))
	case !slices.ContainsFunc(pods, inPhase(corev1.PodRunning)) && slices.ContainsFunc(pods, inPhase(corev1.PodPending)):
		return pendingPredictor(comp, pods, byPod)
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonPodsStarting, fmt.Sprintf("%d of %d pods ready", ready, len(pods))
	}
	return comp
}

// predictorProblems are the pods' problems in the order aim-engine looks for them across pods
// (health_fetchers.go:388): a failed pull of any pod first, then a failed pod, then the rest by pod name.
func predictorProblems(name string, pods []*corev1.Pod, byPod map[string][]corev1.Event) []*state.Component {
	var problems []*state.Component
	for _, p := range pods {
		if problem := predictorProblem(name, p, byPod[p.Name]); problem != nil {
			problems = append(problems, problem)
		}
	}
	rank := func(c *state.Component) int {
		switch {
		case len(c.Errors) > 0:
			return 0
		case c.Reason == ReasonPodFailed || c.Reason == ReasonPodEvicted:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(problems, func(a, b *state.Component) int { return cmp.Compare(rank(a), rank(b)) })
	return problems
}

// pendingPredictor reports predictor pods none of which runs, some pending for no reason of predictorProblem's:
// as aim-engine, an image pull under way (Explaining gives kubelet's Pulling for a pending pod, the first by name)
// is Progressing, anything else PodsPending.
func pendingPredictor(comp state.Component, pods []*corev1.Pod, byPod map[string][]corev1.Event) state.Component {
	for _, p := range pods {
		if e := Explaining(byPod[p.Name]); p.Status.Phase == corev1.PodPending && e != nil && e.Reason == ReasonPulling {
			comp.State, comp.Reason = aimv1.AIMStatusProgressing, ReasonPulling
			comp.Message = fmt.Sprintf("pod %s: %s", p.Name, redact.Excerpt(e.Message, redact.DefaultLimit))
			return comp
		}
	}
	comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonPodsPending, "Pods are pending"
	return comp
}

// ended reports a pod in a terminal phase, which no container of runs again.
func ended(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
}

func inPhase(phase corev1.PodPhase) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return p.Status.Phase == phase }
}

func predictorProblem(name string, p *corev1.Pod, events []corev1.Event) *state.Component {
	bad := func(st aimv1.AIMStatus, reason, msg string) *state.Component {
		// msg is kubelet's or an Event's text, which may quote a registry's answer.
		return &state.Component{Name: name, Dependency: state.DependencyDownstream, State: st, Reason: reason,
			Message: fmt.Sprintf("pod %s: %s", p.Name, redact.Excerpt(msg, quoteLimit(reason)))}
	}
	pullFailed := func(msg string) *state.Component {
		return &state.Component{Name: name, Dependency: state.DependencyDownstream,
			Errors: []error{PullError("pod "+p.Name, msg)}}
	}
	oomKilled := func(container string) *state.Component {
		return bad(aimv1.AIMStatusDegraded, ReasonPodOOMKilled, "container "+container+" was killed for running out of memory")
	}
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil {
			switch w.Reason {
			case "ImagePullBackOff", "ErrImagePull":
				return pullFailed(cmp.Or(w.Message, w.Reason+" for "+cs.Image))
			case "InvalidImageName", "ErrImageNeverPull":
				return bad(aimv1.AIMStatusDegraded, w.Reason, cmp.Or(w.Message, w.Reason+" for "+cs.Image))
			case "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError":
				if t := cs.LastTerminationState.Terminated; t != nil && t.Reason == "OOMKilled" {
					return oomKilled(cs.Name)
				}
				return bad(aimv1.AIMStatusDegraded, w.Reason, cmp.Or(w.Message, w.Reason))
			}
		}
		if t := cs.State.Terminated; t != nil && t.Reason == "OOMKilled" {
			return oomKilled(cs.Name)
		}
	}
	switch {
	case p.Status.Phase == corev1.PodFailed && p.Status.Reason == "Evicted":
		return bad(aimv1.AIMStatusDegraded, ReasonPodEvicted, cmp.Or(p.Status.Message, "evicted"))
	case p.Status.Phase == corev1.PodFailed:
		return bad(aimv1.AIMStatusDegraded, ReasonPodFailed, cmp.Or(p.Status.Message, "failed"))
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return bad(aimv1.AIMStatusPending, ReasonFailedScheduling, cmp.Or(c.Message, "unschedulable"))
		}
	}
	if p.Status.Phase == corev1.PodPending {
		if e := Latest(events); e != nil && (e.Reason == "Failed" || e.Reason == "BackOff") && strings.Contains(e.Message, "pull") {
			return pullFailed(e.Message)
		}
		if e := Explaining(events); e != nil && e.Reason != ReasonPulling {
			return bad(aimv1.AIMStatusPending, e.Reason, e.Message)
		}
	}
	return nil
}
