package resource

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
)

// versionCheck reads the resourceVersions a client sends, with the storage's own versioner, before the store
// does. The store reports the ones it cannot use as internal errors (500; kubernetes/kubernetes#139485, and
// kube-apiserver answers so for CustomResourceDefinitions too): a get or watch from a ?resourceVersion= that
// does not parse, an update whose metadata.resourceVersion does not parse, and a create that sets one. A list
// already answers 400 "invalid resource version"; a get or watch answers the same, and a written object a 422
// naming metadata.resourceVersion.
type versionCheck struct {
	versioner storage.Versioner
	kind      schema.GroupKind
}

var resourceVersionPath = field.NewPath("metadata", "resourceVersion")

// query checks the resourceVersion of a get or watch.
func (v versionCheck) query(rv string) error {
	if _, err := v.versioner.ParseResourceVersion(rv); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	return nil
}

// created checks the object of a create: the storage refuses a resourceVersion it can read and clears one it
// cannot, as kube-apiserver's does.
func (v versionCheck) created(obj runtime.Object) error {
	if rv, err := v.versioner.ObjectResourceVersion(obj); err == nil && rv != 0 {
		return v.invalid(obj, field.Forbidden(resourceVersionPath, "should not be set on objects to be created"))
	}
	return nil
}

// updated checks the object an update or patch makes, once the patch is applied (checkedUpdate).
func (v versionCheck) updated(info rest.UpdatedObjectInfo) rest.UpdatedObjectInfo {
	return checkedUpdate{UpdatedObjectInfo: info, check: v}
}

func (v versionCheck) invalid(obj runtime.Object, err *field.Error) error {
	name := ""
	if m, merr := meta.Accessor(obj); merr == nil {
		name = m.GetName()
	}
	return apierrors.NewInvalid(v.kind, name, field.ErrorList{err})
}

// typedPatchError starts the field manager's error for a server-side apply that does not fit the schema: a
// field the schema does not declare (`.spec.model.ref: field not declared in schema`), a value of another type,
// or a duplicate key of a map list. structured-merge-diff returns it as a plain error from the patch the update
// applies, which the handlers answer with 500 (kubernetes/kubernetes#139253, also for CustomResourceDefinitions);
// the patch is the client's, so it is a 400 with the same message.
const typedPatchError = "failed to create typed patch object"

// patchError is err, an apply that does not fit the schema as a 400.
func patchError(err error) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) && strings.HasPrefix(err.Error(), typedPatchError) {
		return apierrors.NewBadRequest(err.Error())
	}
	return err
}

// checkedUpdate is an update's object info that answers what the client sent wrong as the client's error: a patch
// that does not fit the schema, and a resourceVersion the storage cannot read.
type checkedUpdate struct {
	rest.UpdatedObjectInfo
	check versionCheck
}

func (c checkedUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := c.UpdatedObjectInfo.UpdatedObject(ctx, old)
	if err != nil {
		return obj, patchError(err)
	}
	if _, perr := c.check.versioner.ObjectResourceVersion(obj); perr != nil {
		m, merr := meta.Accessor(obj)
		if merr != nil {
			return nil, perr
		}
		return nil, c.check.invalid(obj, field.Invalid(resourceVersionPath, m.GetResourceVersion(),
			"must be a resourceVersion the server returned, or empty"))
	}
	return obj, nil
}

// Get refuses a ?resourceVersion= the storage cannot read with 400.
func (r *REST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	if err := r.versions.query(options.ResourceVersion); err != nil {
		return nil, err
	}
	return r.Store.Get(ctx, name, options)
}

// Watch refuses a ?resourceVersion= the storage cannot read with 400.
func (r *REST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	if err := r.versions.query(options.ResourceVersion); err != nil {
		return nil, err
	}
	return r.Store.Watch(ctx, options)
}

// Create refuses an object that sets a resourceVersion with 422.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if err := r.versions.created(obj); err != nil {
		return nil, err
	}
	return r.Store.Create(ctx, obj, createValidation, options)
}

// Update refuses an object whose resourceVersion the storage cannot read with 422.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.Store.Update(ctx, name, r.versions.updated(objInfo), createValidation, updateValidation, forceAllowCreate, options)
}
