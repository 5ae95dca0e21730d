package health

import (
	"cmp"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Reasons of a Job component.
const (
	ReasonResourceNotReady        = state.ReasonResourceNotReady
	ReasonJobRunning              = "JobRunning"
	ReasonJobFailed               = "JobFailed"
	ReasonJobBackoffLimitExceeded = "JobBackoffLimitExceeded"
	ReasonJobDeadlineExceeded     = "JobDeadlineExceeded"
	ReasonJobEvicted              = "JobEvicted"
)

// Job reports a Job as the component name; a nil Job is being created.
func Job(name string, j *batchv1.Job) state.Component {
	comp := state.Component{Name: name, Dependency: state.DependencyDownstream}
	if j == nil {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonResourceNotReady, "Downstream resource not found or being created"
		return comp
	}
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			comp.State, comp.Reason = aimv1.AIMStatusReady, state.ReasonReady
			return comp
		case batchv1.JobFailed:
			msg := redact.Excerpt(cmp.Or(c.Message, "Job failed"), redact.DefaultLimit)
			cat, reason := state.InvalidSpec, ReasonJobFailed
			switch c.Reason {
			case batchv1.JobReasonBackoffLimitExceeded:
				reason = ReasonJobBackoffLimitExceeded
			case batchv1.JobReasonDeadlineExceeded:
				reason = ReasonJobDeadlineExceeded
			case "Evicted":
				cat, reason = state.Infrastructure, ReasonJobEvicted
			}
			comp.Errors = []error{state.NewError(cat, reason, "%s", msg)}
			return comp
		}
	}
	comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonJobRunning, "Job is in progress"
	return comp
}

// Succeeded reports whether a Job completed.
func Succeeded(j *batchv1.Job) bool { return condition(j, batchv1.JobComplete) }

// Failed reports whether a Job failed for good.
func Failed(j *batchv1.Job) bool { return condition(j, batchv1.JobFailed) }

func condition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	if j == nil {
		return false
	}
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// EventCache lists the cached events about one object (manager.PodEvents).
type EventCache interface {
	About(kind, namespace, name string) []corev1.Event
}

// JobPods are a Job's pods and the cached events about them (the controllers cache Warning events and pods'
// Pulling events only); Pods tells each pod's from an earlier pod's of its name by UID (EventsOf). Without pods,
// the Job's own Warnings: a FailedCreate says why it has none.
func JobPods(pods corelisters.PodLister, events EventCache, j *batchv1.Job) ([]*corev1.Pod, []corev1.Event) {
	list, _ := pods.Pods(j.Namespace).List(labels.SelectorFromSet(labels.Set{batchv1.JobNameLabel: j.Name}))
	var out []corev1.Event
	for _, p := range list {
		out = append(out, events.About("Pod", p.Namespace, p.Name)...)
	}
	if len(list) == 0 {
		out = events.About("Job", j.Namespace, j.Name)
	}
	return list, out
}

// Finished reports whether a Job finished and, when it failed, why (redacted: it goes into conditions).
func Finished(job *batchv1.Job) (finished bool, failed string) {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return true, ""
		case batchv1.JobFailed:
			if msg := strings.TrimSpace(c.Reason + ": " + c.Message); msg != ":" {
				return true, redact.Excerpt(msg, redact.DefaultLimit)
			}
			return true, "failed"
		}
	}
	return false, ""
}
