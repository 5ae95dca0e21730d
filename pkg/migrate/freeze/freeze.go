// Package freeze names the admission policy with which `aim-apiserver migrate` stops writes to the group while it
// copies the objects, and tells the writes it refuses from other errors: the migration proves the freeze holds by
// one, and the controller waits through them without calling them failures.
package freeze

import (
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// PolicyName names the ValidatingAdmissionPolicy of the freeze and its binding.
const PolicyName = "aim-migration-freeze"

// Denied reports whether err is (or wraps) a write the freeze refused. kube-apiserver, and aim-apiserver, which
// runs the cluster's admission policies too, answer such a write 403, "ValidatingAdmissionPolicy '<name>' with
// binding '<name>' denied request: ...".
func Denied(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "ValidatingAdmissionPolicy '"+PolicyName+"'")
}
