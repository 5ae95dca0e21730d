package runtimeconfig

import (
	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// ComponentName is the component every kind reports its runtime config as; its condition is
// RuntimeConfigReady.
const ComponentName = "RuntimeConfig"

// Reasons of RuntimeConfigReady.
const (
	ReasonConfigFound           = "ConfigFound"
	ReasonDefaultConfigNotFound = "DefaultConfigNotFound"
	ReasonConfigNotFound        = "ConfigNotFound"
)

// Component is the RuntimeConfigReady of an object whose runtime config Lookup resolved to rc (or failed with
// err), with aim-engine's reasons: ConfigFound, or DefaultConfigNotFound (Ready: a runtime config is optional)
// when none exists; a named config that does not exist is ConfigNotFound, an error of the upstream.
func Component(rc Resolved, err error) state.Component {
	c := state.Component{Name: ComponentName, Dependency: state.DependencyUpstream}
	switch {
	case err != nil:
		c.Errors, c.Reason = []error{state.UpstreamError(err)}, ReasonConfigNotFound
	case rc.Ref == nil:
		c.State, c.Reason, c.Message = aimv1.AIMStatusReady, ReasonDefaultConfigNotFound, "Default config was not found"
	default:
		c.Reason = ReasonConfigFound
	}
	return c
}

// Report is Component and what status.resolvedRuntimeConfig records with it, on every kind: the config's
// reference, or, while the config cannot be read, the reference recorded before.
func Report(rc Resolved, err error, recorded *aimv1.AIMResolvedReference) (state.Component, *aimv1.AIMResolvedReference) {
	ref := rc.Ref
	if err != nil {
		ref = recorded
	}
	return Component(rc, err), ref
}
