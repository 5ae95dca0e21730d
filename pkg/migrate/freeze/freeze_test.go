package freeze

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestDenied(t *testing.T) {
	gr := schema.GroupResource{Group: "aim.eai.amd.com", Resource: "aimmodels"}
	// The answer kube-apiserver gave a status write during a migration (test/e2e's aim-apiserver log).
	frozen := apierrors.NewForbidden(gr, "m", errors.New("ValidatingAdmissionPolicy 'aim-migration-freeze' with binding "+
		"'aim-migration-freeze' denied request: aim.eai.amd.com is being migrated to aim-apiserver"))
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the freeze's denial", frozen, true},
		{"wrapped", fmt.Errorf("writing the status of model m: %w", frozen), true},
		{"joined with another", errors.Join(errors.New("applying"), frozen), true},
		{"another policy", apierrors.NewForbidden(gr, "m", errors.New("ValidatingAdmissionPolicy 'team-quota' with binding 'team-quota' denied request: no")), false},
		{"RBAC", apierrors.NewForbidden(gr, "m", errors.New(`User "x" cannot update resource "aimmodels"`)), false},
		{"the name in another error", apierrors.NewBadRequest("ValidatingAdmissionPolicy 'aim-migration-freeze'"), false},
		{"nil", nil, false},
	} {
		if got := Denied(tc.err); got != tc.want {
			t.Errorf("%s: Denied(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
