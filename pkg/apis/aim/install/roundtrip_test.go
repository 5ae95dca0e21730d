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

// TestRoundTripProtobuf does the same through protobuf, the storage encoding and what kube-controller-manager,
// kubectl and client-go clients ask for first. A kind without a protobuf encoding fails here before a client
// can get a 500 for it.
func TestRoundTripProtobuf(t *testing.T) {
	roundtrip.RoundTripProtobufTestForAPIGroup(t, Install, fuzzer.Funcs)
}
