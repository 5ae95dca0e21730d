package aim

import (
	"maps"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/conversion"
	forkedreflect "k8s.io/apimachinery/third_party/forked/golang/reflect"
)

// Semantic is apiequality.Semantic with quantities compared by amount: a quantity keeps the text it was
// written with (D17), and 1Gi and 1024Mi, or the number 4 and "4", are one amount. Immutable fields and the
// generation use it, so that a manifest written another way, or an object stored before quantities kept their
// text, is not a change. Built once, never changed.
var Semantic = SemanticOf(AmountsEqual[Quantity])

// SemanticOf is apiequality.Semantic with the equalities given (AmountsEqual of a quantity type); the versioned
// types build theirs with it.
func SemanticOf(funcs ...any) conversion.Equalities {
	e := conversion.Equalities{Equalities: forkedreflect.Equalities{}}
	maps.Copy(e.Equalities, apiequality.Semantic.Equalities)
	if err := e.AddFuncs(funcs...); err != nil {
		panic(err)
	}
	return e
}

// AmountsEqual compares two quantities by amount.
func AmountsEqual[Q interface{ Amount() resource.Quantity }](a, b Q) bool {
	x, y := a.Amount(), b.Amount()
	return x.Cmp(y) == 0
}
