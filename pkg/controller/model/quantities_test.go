package model

import (
	"fmt"
	"reflect"
	"testing"

	"sigs.k8s.io/randfill"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// TestCanonicalQuantitiesCoversEveryQuantity fills every field of a template spec, each quantity spelled 2000m,
// and checks that canonicalQuantities writes every one as 2 and leaves the model's spec as it was: a quantity
// field added to the template spec must be added to canonicalQuantities' walk too.
func TestCanonicalQuantitiesCoversEveryQuantity(t *testing.T) {
	var spec aimv1.AIMServiceTemplateSpecCommon
	randfill.New().NilChance(0).NumElements(2, 2).Funcs(func(q *aimv1.Quantity, _ randfill.Continue) {
		*q = aimv1.Quantity{Text: "2000m"}
	}).Fill(&spec)

	got := quantitiesIn(reflect.ValueOf(canonicalQuantities(spec)), "spec")
	if len(got) < 5 {
		t.Fatalf("the filled spec has %d quantities (%v); the walk finds too few to prove anything", len(got), got)
	}
	for path, text := range got {
		if text != "2" {
			t.Errorf("%s = %q, want 2: canonicalQuantities does not walk it", path, text)
		}
	}
	for path, text := range quantitiesIn(reflect.ValueOf(spec), "spec") {
		if text != "2000m" {
			t.Errorf("the model's %s changed to %q", path, text)
		}
	}
}

// quantitiesIn is every aimv1.Quantity reachable from v, by path.
func quantitiesIn(v reflect.Value, path string) map[string]string {
	out := map[string]string{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			if q, ok := v.Interface().(aimv1.Quantity); ok {
				out[path] = q.Text
				return
			}
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() {
					walk(v.Field(i), path+"."+f.Name)
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k))
			}
		}
	}
	walk(v, path)
	return out
}
