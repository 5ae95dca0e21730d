package aim

import (
	"maps"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/conversion"
	forkedreflect "k8s.io/apimachinery/third_party/forked/golang/reflect"
)

// Semantic is apiequality.Semantic with quantities compared by amount: a quantity keeps the text it was
// written with (D17), and 1Gi and 1024Mi, or the number 4 and "4", are one amount. Immutable fields and the
// generation use it, so that a manifest written another way, or an object stored before quantities kept their
// text, is not a change. Built once, never changed.
var Semantic = semantic()

func semantic() conversion.Equalities {
	e := conversion.Equalities{Equalities: forkedreflect.Equalities{}}
	maps.Copy(e.Equalities, apiequality.Semantic.Equalities)
	if err := e.AddFunc(func(a, b Quantity) bool {
		x, y := a.Amount(), b.Amount()
		return x.Cmp(y) == 0
	}); err != nil {
		panic(err)
	}
	return e
}
