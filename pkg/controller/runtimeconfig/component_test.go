package runtimeconfig

import (
	"errors"
	"testing"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// TestComponent: RuntimeConfigReady's reasons are aim-engine's GetRuntimeConfigHealth's.
func TestComponent(t *testing.T) {
	for _, tc := range []struct {
		name string
		rc   Resolved
		err  error
		want string
	}{
		{"found", Resolved{Ref: &aimv1.AIMResolvedReference{Name: "gold"}}, nil, "Ready/ConfigFound"},
		{"none, none needed", Resolved{}, nil, "Ready/DefaultConfigNotFound"},
		{"named and missing", Resolved{}, errors.New(`AIMRuntimeConfig "gold" not found`), "/ConfigNotFound"},
	} {
		c := Component(tc.rc, tc.err)
		st, reason, _ := state.Outcome(c)
		got := string(st) + "/" + reason
		if tc.err != nil {
			got = "/" + reason
		}
		if c.Name != "RuntimeConfig" || got != tc.want {
			t.Errorf("%s: %s %s, want %s", tc.name, c.Name, got, tc.want)
		}
	}
}
