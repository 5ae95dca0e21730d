package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/fuzzer"
)

// TestRoundTrip fuzzes every kind and checks internal -> v1alpha1 -> internal loses nothing, through JSON and
// through conversion.
func TestRoundTrip(t *testing.T) {
	roundtrip.RoundTripTestForAPIGroup(t, Install, fuzzer.Funcs)
}
