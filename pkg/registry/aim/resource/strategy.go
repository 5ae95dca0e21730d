package resource

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// Strategy is the create/update/delete policy of the main resource: users own spec and metadata, the
// controller owns status (written through /status).
type Strategy[T Object] struct {
	runtime.ObjectTyper
	names.NameGenerator
	def *Definition[T]
}

var _ rest.RESTCreateUpdateStrategy = &Strategy[Object]{}
var _ rest.ResetFieldsStrategy = &Strategy[Object]{}

// NewStrategy returns the main-resource strategy of a kind.
func NewStrategy[T Object](typer runtime.ObjectTyper, def *Definition[T]) *Strategy[T] {
	return &Strategy[T]{ObjectTyper: typer, NameGenerator: names.SimpleNameGenerator, def: def}
}

func (s *Strategy[T]) NamespaceScoped() bool { return s.def.NamespaceScoped }

// PrepareForCreate drops any status the client sent and starts the generation at 1.
func (s *Strategy[T]) PrepareForCreate(_ context.Context, obj runtime.Object) {
	resetStatus(obj)
	obj.(T).SetGeneration(1)
}

// PrepareForUpdate keeps the stored status and bumps the generation only when the spec changed (quantities by
// amount: aim.Semantic).
func (s *Strategy[T]) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	copyField(obj, old, "Status")
	newObj, oldObj := obj.(T), old.(T)
	if !aim.Semantic.DeepEqual(specOf(obj), specOf(old)) {
		newObj.SetGeneration(oldObj.GetGeneration() + 1)
	}
}

func (s *Strategy[T]) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return s.def.Validate(obj.(T))
}

func (s *Strategy[T]) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	if s.def.Warnings == nil {
		return nil
	}
	var none T
	return s.def.Warnings(obj.(T), none)
}

func (s *Strategy[T]) Canonicalize(runtime.Object) {}

func (s *Strategy[T]) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is false, as for custom resources: a PUT must carry the resourceVersion it read,
// so concurrent writers get 409 Conflict instead of silently overwriting each other.
func (s *Strategy[T]) AllowUnconditionalUpdate() bool { return false }

// ValidateUpdate ratchets, as kube-apiserver does for CRDs: an error the stored object already has (same field,
// type and value) does not fail the update. Only an object stored by other means than a request can have one
// (aim-apiserver migrate --allow-invalid); without the ratchet its labels and finalizers could not change, and
// its deletion would hang on a finalizer nobody may remove. Changing the invalid field must make it valid.
func (s *Strategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	errs := s.def.ValidateUpdate(obj.(T), old.(T))
	if len(errs) == 0 {
		return nil
	}
	return ratchet(errs, s.def.Validate(old.(T)))
}

// ratchet drops from errs the errors stored already has.
func ratchet(errs, stored field.ErrorList) field.ErrorList {
	if len(stored) == 0 {
		return errs
	}
	key := func(e *field.Error) string { return fmt.Sprintf("%s\x00%s\x00%#v", e.Type, e.Field, e.BadValue) }
	had := make(map[string]bool, len(stored))
	for _, e := range stored {
		had[key(e)] = true
	}
	var out field.ErrorList
	for _, e := range errs {
		if !had[key(e)] {
			out = append(out, e)
		}
	}
	return out
}

func (s *Strategy[T]) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	if s.def.Warnings == nil {
		return nil
	}
	return s.def.Warnings(obj.(T), old.(T))
}

// GetResetFields tells server-side apply that writes to the main resource never own status.
func (s *Strategy[T]) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(v1alpha1.SchemeGroupVersion.String()): fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

// StatusStrategy is the policy of the status subresource: only status changes; spec and the user-facing
// metadata are taken from the stored object.
type StatusStrategy[T Object] struct {
	*Strategy[T]
}

var _ rest.UpdateResetFieldsStrategy = &StatusStrategy[Object]{}

// NewStatusStrategy returns the status-subresource strategy of a kind.
func NewStatusStrategy[T Object](s *Strategy[T]) *StatusStrategy[T] {
	return &StatusStrategy[T]{Strategy: s}
}

func (s *StatusStrategy[T]) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	copyField(obj, old, "Spec")
	newObj, oldObj := obj.(T), old.(T)
	newObj.SetLabels(oldObj.GetLabels())
	newObj.SetAnnotations(oldObj.GetAnnotations())
	newObj.SetFinalizers(oldObj.GetFinalizers())
	newObj.SetOwnerReferences(oldObj.GetOwnerReferences())
}

func (s *StatusStrategy[T]) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.def.ValidateStatus(obj.(T))
}

func (s *StatusStrategy[T]) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// GetResetFields tells server-side apply that writes to /status never own spec or metadata.
func (s *StatusStrategy[T]) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		fieldpath.APIVersion(v1alpha1.SchemeGroupVersion.String()): fieldpath.NewSet(
			fieldpath.MakePathOrDie("spec"),
			fieldpath.MakePathOrDie("metadata", "labels"),
			fieldpath.MakePathOrDie("metadata", "annotations"),
			fieldpath.MakePathOrDie("metadata", "finalizers"),
			fieldpath.MakePathOrDie("metadata", "ownerReferences"),
		),
	}
}

// GetAttrs returns the labels and selectable fields of an object, for list and watch filtering.
func (s *Strategy[T]) GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	o, ok := obj.(T)
	if !ok {
		return nil, nil, fmt.Errorf("not a %s: %T", s.def.Kind, obj)
	}
	set := s.def.SelectableFields(o)
	set["metadata.name"] = o.GetName()
	if s.def.NamespaceScoped {
		set["metadata.namespace"] = o.GetNamespace()
	}
	return o.GetLabels(), set, nil
}

// Matcher filters list and watch results by label and field selectors.
func (s *Strategy[T]) Matcher(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: s.GetAttrs}
}
