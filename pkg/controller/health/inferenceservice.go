package health

import (
	"cmp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Reasons of an InferenceService component. A fatal KServe event's own reason (InternalError) is copied.
const (
	ReasonCreatingRuntime        = "CreatingRuntime"
	ReasonRuntimeReady           = "RuntimeReady"
	ReasonServerlessModeRejected = "ServerlessModeRejected"
	ReasonInternalError          = "InternalError"
)

// InferenceServiceState is what the controller observed of an InferenceService.
type InferenceServiceState struct {
	Exists, Ready bool
	// Reason and Message of its Ready condition when not ready.
	Reason, Message string
}

// InferenceService reports an InferenceService as the component name; warnings are KServe's Warning events about
// it (of its current UID).
func InferenceService(name string, s InferenceServiceState, warnings []corev1.Event) state.Component {
	comp := state.Component{Name: name, Dependency: state.DependencyDownstream}
	switch {
	case !s.Exists:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonCreatingRuntime, "creating the InferenceService"
	case s.Ready:
		comp.Reason, comp.Message = ReasonRuntimeReady, "InferenceService is ready" // aim-engine's words (reconcile.go:459)
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonCreatingRuntime,
			cmp.Or(redact.Excerpt(s.Message, redact.DefaultLimit), "the InferenceService is not ready yet")
		if e := Latest(fatalInferenceServiceEvents(warnings)); e != nil {
			comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, cmp.Or(e.Reason, ReasonInternalError), redact.Excerpt(e.Message, redact.DefaultLimit)
			if e.Reason == ReasonServerlessModeRejected {
				comp.Message += "; configure KServe for RawDeployment (Standard) mode"
			}
		}
	}
	return comp
}

// fatalInferenceServiceEvents are the Warning events that fail an InferenceService, as aim-engine reads them:
// KServe's ServerlessModeRejected and InternalError, except its transient conflicts (it retries those itself);
// other Warnings pass.
func fatalInferenceServiceEvents(events []corev1.Event) []corev1.Event {
	return matching(events, func(e *corev1.Event) bool {
		transient := strings.Contains(e.Message, "the object has been modified") || strings.Contains(e.Message, "Operation cannot be fulfilled")
		return e.Reason == ReasonServerlessModeRejected || e.Reason == ReasonInternalError && !transient
	})
}
