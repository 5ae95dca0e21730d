package resource

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// REST is the main resource of a kind, stored in etcd.
type REST struct {
	*genericregistry.Store
	shortNames []string
	singular   string
	// references are the references of an object of the kind, for WarnOfMissingReferences; nil: none.
	references func(obj runtime.Object) []Reference
	versions   versionCheck
}

var (
	_ rest.StandardStorage      = &REST{}
	_ rest.ShortNamesProvider   = &REST{}
	_ rest.CategoriesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
)

func (r *REST) ShortNames() []string    { return r.shortNames }
func (r *REST) Categories() []string    { return categories }
func (r *REST) GetSingularName() string { return r.singular }

// StatusREST is the status subresource. It shares the main resource's store, and so its watch cache.
type StatusREST struct {
	store    *genericregistry.Store
	versions versionCheck
}

var (
	_ rest.Patcher             = &StatusREST{}
	_ rest.ResetFieldsStrategy = &StatusREST{}
	_ rest.TableConvertor      = &StatusREST{}
)

func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy does nothing: the store belongs to the main resource.
func (r *StatusREST) Destroy() {}

// Get is needed for PATCH to /status.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	if err := r.versions.query(options.ResourceVersion); err != nil {
		return nil, err
	}
	return r.store.Get(ctx, name, options)
}

// Update writes status only; it never creates an object.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, r.versions.updated(objInfo), createValidation, updateValidation, false, options)
}

func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

func (r *StatusREST) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

// NewStorage builds the main and status storage of a kind.
func NewStorage[T Object](scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, def Definition[T]) (*REST, *StatusREST, error) {
	if err := def.Check(); err != nil {
		return nil, nil, fmt.Errorf("invalid registry definition: %w", err)
	}
	strategy := NewStrategy(scheme, &def)
	statusStrategy := NewStatusStrategy(strategy)

	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return def.New() },
		NewListFunc:               def.NewList,
		PredicateFunc:             strategy.Matcher,
		DefaultQualifiedResource:  aim.Resource(def.Resource),
		SingularQualifiedResource: aim.Resource(def.Singular),
		CreateStrategy:            strategy,
		UpdateStrategy:            strategy,
		DeleteStrategy:            strategy,
		ResetFieldsStrategy:       strategy,
		TableConvertor:            newTableConvertor(def.Columns, !def.NoAge),
	}
	if err := store.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: strategy.GetAttrs}); err != nil {
		return nil, nil, fmt.Errorf("completing storage of %s: %w", def.Resource, err)
	}

	statusStore := *store
	statusStore.CreateStrategy = nil
	statusStore.DeleteStrategy = nil
	statusStore.UpdateStrategy = statusStrategy
	statusStore.ResetFieldsStrategy = statusStrategy

	versions := versionCheck{versioner: store.Storage.Versioner(), kind: aim.Kind(def.Kind)}
	main := &REST{Store: store, shortNames: def.ShortNames, singular: def.Singular, versions: versions}
	if def.References != nil {
		main.references = func(obj runtime.Object) []Reference { return def.References(obj.(T)) }
	}
	return main, &StatusREST{store: &statusStore, versions: versions}, nil
}

// Installer is a Definition of any kind, as the API server installs it.
type Installer interface {
	// ResourceName is the plural resource name, the key of the storage map.
	ResourceName() string
	// KindName is the kind the resource serves.
	KindName() string
	// Check reports a definition that would fail at request time.
	Check() error
	// NewStorage builds the main and status storage.
	NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, error)
}

var _ Installer = Definition[Object]{}

func (d Definition[T]) ResourceName() string { return d.Resource }
func (d Definition[T]) KindName() string     { return d.Kind }

func (d Definition[T]) NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, error) {
	return NewStorage(scheme, optsGetter, d)
}

// ValidateStored reports what the registry rejects in an object written by other means than a request (a
// migration from CRDs): the create validation of its metadata and spec, and the validation of its status.
func ValidateStored(ctx context.Context, main *REST, status *StatusREST, obj runtime.Object) field.ErrorList {
	errs := main.CreateStrategy.Validate(ctx, obj)
	return append(errs, status.store.UpdateStrategy.ValidateUpdate(ctx, obj, obj)...)
}
