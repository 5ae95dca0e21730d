// Package resource turns a Definition of an AIM kind into its REST storage: a genericregistry.Store with a
// create/update strategy, a separate status strategy, field selectors, short names, categories and a table
// convertor. Each kind's policy (validation, warnings, selectable fields, columns) lives in its own package under
// pkg/registry/aim; this package holds the mechanism they share, so every kind behaves the same way.
package resource

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// Object is an internal AIM object: every kind has ObjectMeta, a Spec and a Status with a Status string.
type Object interface {
	runtime.Object
	metav1.Object
}

// Column is one kubectl column after NAME and before AGE.
type Column struct {
	Definition metav1.TableColumnDefinition
	// Cell returns the column's value for an object; nil prints as <none>.
	Cell func(obj runtime.Object) any
}

// Definition is the policy of one AIM kind.
type Definition[T Object] struct {
	// Kind is the internal kind, for example AIMService.
	Kind string
	// Resource is the plural resource name, for example aimservices.
	Resource string
	// Singular is the singular resource name, for example aimservice.
	Singular        string
	NamespaceScoped bool
	ShortNames      []string

	New     func() T
	NewList func() runtime.Object

	// Validate checks an object on create, ValidateUpdate on update (including immutable fields), and
	// ValidateStatus a write to the status subresource.
	Validate       func(obj T) field.ErrorList
	ValidateUpdate func(obj, old T) field.ErrorList
	ValidateStatus func(obj T) field.ErrorList
	// Warnings returns deprecation and advice messages; old is nil on create.
	Warnings func(obj, old T) []string
	// References are the fields of obj that name other AIM objects, warned of when they name none
	// (REST.WarnOfMissingReferences); nil: none.
	References func(obj T) []Reference
	// SelectableFields returns the values of the kind's field selectors (see aim.SelectableFields).
	SelectableFields func(obj T) fields.Set
	// Columns are the kind's kubectl columns.
	Columns []Column
	// NoAge drops the AGE column after Columns. The CRD server prints AGE only for a CRD that declares no
	// columns, or declares AGE itself; an aim-engine CRD that declares other columns and not AGE has none.
	NoAge bool
}

// categories puts every AIM kind in `kubectl get aim` and `kubectl get all`.
var categories = []string{"aim", "all"}

// Check catches a Definition that would fail at request time instead of at start.
func (d Definition[T]) Check() error {
	switch {
	case d.Kind == "" || d.Resource == "" || d.Singular == "":
		return fmt.Errorf("definition needs Kind, Resource and Singular")
	case d.New == nil || d.NewList == nil:
		return fmt.Errorf("%s: definition needs New and NewList", d.Kind)
	case d.Validate == nil || d.ValidateUpdate == nil || d.ValidateStatus == nil:
		return fmt.Errorf("%s: definition needs Validate, ValidateUpdate and ValidateStatus", d.Kind)
	case d.SelectableFields == nil:
		return fmt.Errorf("%s: definition needs SelectableFields", d.Kind)
	}
	obj := reflect.ValueOf(d.New()).Elem()
	for _, name := range []string{"Spec", "Status"} {
		if !obj.FieldByName(name).IsValid() {
			return fmt.Errorf("%s: type has no %s field", d.Kind, name)
		}
	}
	if obj.FieldByName("Status").FieldByName("Status").Type() != reflect.TypeOf(aim.AIMStatus("")) {
		return fmt.Errorf("%s: status has no status string", d.Kind)
	}
	fieldsOf := d.SelectableFields(d.New())
	for _, f := range aim.SelectableFields(d.Kind) {
		if !fieldsOf.Has(f) {
			return fmt.Errorf("%s: SelectableFields lacks %s, which the scheme accepts", d.Kind, f)
		}
	}
	return nil
}

// The strategies below reach Spec and Status by reflection: every AIM kind names them so (Check enforces it),
// and one generic implementation keeps the ten kinds from drifting apart.

func specOf(obj runtime.Object) any {
	return reflect.ValueOf(obj).Elem().FieldByName("Spec").Interface()
}

func copyField(dst, src runtime.Object, name string) {
	reflect.ValueOf(dst).Elem().FieldByName(name).Set(reflect.ValueOf(src).Elem().FieldByName(name))
}

// resetStatus clears the status of a new object; it starts Pending until the controller looks at it.
func resetStatus(obj runtime.Object) {
	status := reflect.ValueOf(obj).Elem().FieldByName("Status")
	status.Set(reflect.Zero(status.Type()))
	status.FieldByName("Status").Set(reflect.ValueOf(aim.AIMStatusPending))
}
