package aimservice

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// TestScalingWarnings: the warnings say what the controller makes of the replica fields (kserve.ScaleOf): any of
// autoScaling, minReplicas and maxReplicas autoscales, between 1 and 1 with autoScaling alone, and replicas is not
// read then.
func TestScalingWarnings(t *testing.T) {
	autoScaling := &aim.AIMServiceAutoScaling{}
	for _, tc := range []struct {
		name string
		spec aim.AIMServiceSpec
		want []string // prefixes, in order
	}{
		{"fixed replicas", aim.AIMServiceSpec{Replicas: ptr.To[int32](3)}, nil},
		{"a range", aim.AIMServiceSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: ptr.To[int32](4), AutoScaling: autoScaling}, nil},
		{"autoScaling alone", aim.AIMServiceSpec{AutoScaling: autoScaling}, []string{"spec.autoScaling: without minReplicas and maxReplicas, KEDA keeps the service at 1 replica"}},
		{"replicas beside autoScaling", aim.AIMServiceSpec{Replicas: ptr.To[int32](3), AutoScaling: autoScaling},
			[]string{"spec.autoScaling: without minReplicas", "spec.replicas: not read while the service autoscales"}},
		{"replicas beside maxReplicas", aim.AIMServiceSpec{Replicas: ptr.To[int32](3), MaxReplicas: ptr.To[int32](4)},
			[]string{"spec.replicas: not read while the service autoscales"}},
	} {
		got := scalingWarnings(&tc.spec)
		if len(got) != len(tc.want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i, p := range tc.want {
			if !strings.HasPrefix(got[i], p) {
				t.Errorf("%s: warning %d %q, want it to start %q", tc.name, i, got[i], p)
			}
		}
	}
}
