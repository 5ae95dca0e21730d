package v1alpha1

import (
	"sync"

	"k8s.io/apimachinery/pkg/conversion"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// SemanticEqual is aim.Semantic's DeepEqual for the versioned types the controller reads: quantities compared by
// amount (D17), so that 2000m and 2, or the number 4 and "4", are one amount.
func SemanticEqual(a, b any) bool {
	return semantic().DeepEqual(a, b)
}

// semantic is built once. A function, not a variable of conversion.Equalities: go-to-protobuf would take that
// type's reflect.Value for an API type of this package.
var semantic = sync.OnceValue(func() conversion.Equalities {
	return aim.SemanticOf(aim.AmountsEqual[aim.Quantity], aim.AmountsEqual[Quantity])
})
