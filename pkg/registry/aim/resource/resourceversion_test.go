package resource

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// TestApplyThatDoesNotFitTheSchemaIsBadRequest: the field manager's plain error for an apply patch it cannot read
// through the schema, returned by the update's object info, becomes a 400 with its message; any other error of
// the patch, and an API status with such a message, is passed on as it is.
func TestApplyThatDoesNotFitTheSchemaIsBadRequest(t *testing.T) {
	notDeclared := "failed to create typed patch object (ns/chat; aim.eai.amd.com/v1alpha1, Kind=AIMService): .spec.model.ref: field not declared in schema"
	other := errors.New("etcdserver: request timed out")
	status := apierrors.NewConflict(aim.Resource("aimservices"), "chat", errors.New(notDeclared))
	for _, tc := range []struct {
		name string
		err  error
		ok   func(error) bool
	}{
		{"apply that does not fit the schema", errors.New(notDeclared), func(err error) bool {
			return apierrors.IsBadRequest(err) && err.Error() == notDeclared
		}},
		{"another error of the patch", other, func(err error) bool { return err == other }},
		{"an API status", status, func(err error) bool { return err == status }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := checkedUpdate{UpdatedObjectInfo: rest.DefaultUpdatedObjectInfo(nil, func(context.Context, runtime.Object, runtime.Object) (runtime.Object, error) {
				return nil, tc.err
			})}
			if _, err := info.UpdatedObject(context.Background(), nil); !tc.ok(err) {
				t.Errorf("%s: got %v (%T)", tc.name, err, err)
			}
		})
	}
}
