// Package specvalid reports what aim-apiserver's own validation rejects in an object that is already stored.
// A request cannot store such an object; `aim-apiserver migrate --allow-invalid` can (aim-engine's CRDs
// accepted more than aim-apiserver does). The controller then says so in the object's status instead of acting
// on a spec the API would refuse.
package specvalid

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/util/validation/field"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Reason is the condition reason of a stored spec that fails validation (the reference's reason for an
// invalid spec).
const Reason = state.ReasonInvalidSpec

// maxErrors bounds the message: the first few field errors say what to fix.
const maxErrors = 3

// Service is nil when svc's spec passes the validation of a create, else an InvalidSpec error naming the fields.
// The metadata is not checked again: aim-engine's CRDs validated it by the same rules (apimachinery's
// ValidateObjectMeta), so no store brought over holds metadata ours refuses, and those rules (the syntax of every
// label and annotation) were nearly all the cost of this check, which runs on every reconcile of every service.
func Service(svc *aimv1.AIMService) error {
	return check(&svc.Spec, aimv1.Convert_v1alpha1_AIMServiceSpec_To_aim_AIMServiceSpec, validation.ValidateAIMServiceSpec)
}

// check converts a versioned object to the internal type the registry validates and runs the validation of
// a create on it.
func check[V any, I any](obj *V, convert func(*V, *I, conversion.Scope) error, validate func(*I) field.ErrorList) error {
	internal := new(I)
	if err := convert(obj, internal, nil); err != nil {
		return state.NewError(state.InvalidSpec, Reason, "the stored object does not convert: %v", err)
	}
	return Error(validate(internal))
}

// Error turns field errors into one InvalidSpec error; nil for none.
func Error(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, 0, maxErrors)
	for i, e := range Sorted(errs) {
		if i == maxErrors {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(errs)-maxErrors))
			break
		}
		msgs = append(msgs, e.Error())
	}
	return state.NewError(state.InvalidSpec, Reason, "the stored spec fails validation (fix it with kubectl edit): %s", strings.Join(msgs, "; "))
}

// Sorted is errs in a fixed order, by field and then message: validation walks maps (labels, annotations,
// resources), whose order changes from call to call, and a status quoting the errors in another order each time
// would be written on every reconcile.
func Sorted(errs field.ErrorList) field.ErrorList {
	out := slices.Clone(errs)
	slices.SortStableFunc(out, func(a, b *field.Error) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Error(), b.Error()))
	})
	return out
}
