package v1alpha1

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestQuantityReadsBackAsWritten: JSON and protobuf keep the text and whether it was a number, as aim-engine's
// CRDs keep the JSON value; the amount is resource.Quantity's.
func TestQuantityReadsBackAsWritten(t *testing.T) {
	for _, tc := range []struct{ written, amount string }{
		{`"1024Mi"`, "1Gi"}, {`"0.5"`, "500m"}, {`"4"`, "4"}, {`4`, "4"}, {`0.5`, "500m"}, {`1e3`, "1e3"},
		{`"192Gi"`, "192Gi"}, {`"1000m"`, "1"}, {`0`, "0"}, {`"0"`, "0"}, {`-1`, "-1"},
	} {
		var q Quantity
		if err := json.Unmarshal([]byte(tc.written), &q); err != nil {
			t.Fatalf("%s: %v", tc.written, err)
		}
		if a := q.Amount(); a.String() != tc.amount {
			t.Errorf("%s: amount %s, want %s", tc.written, a.String(), tc.amount)
		}
		var back Quantity
		viaProtobuf(t, &q, &back)
		if out, _ := json.Marshal(back); string(out) != tc.written {
			t.Errorf("%s reads back as %s", tc.written, out)
		}
	}
}

// TestQuantityStoredBefore: what was stored as resource.Quantity and corev1.ResourceRequirements (field 1, the
// canonical text) decodes, in that text; and what is stored now still decodes as those types, so a downgrade
// reads the amounts.
func TestQuantityStoredBefore(t *testing.T) {
	old := corev1.ResourceRequirements{
		Limits:   corev1.ResourceList{"memory": resource.MustParse("1024Mi"), "amd.com/gpu": resource.MustParse("8")},
		Requests: corev1.ResourceList{"cpu": resource.MustParse("0.5")},
		Claims:   []corev1.ResourceClaim{{Name: "gpu"}},
	}
	var r ResourceRequirements
	viaProtobuf(t, &old, &r)
	want := ResourceRequirements{
		Limits:   ResourceList{"memory": {Text: "1Gi"}, "amd.com/gpu": {Text: "8"}},
		Requests: ResourceList{"cpu": {Text: "500m"}},
		Claims:   []corev1.ResourceClaim{{Name: "gpu"}},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}

	now := ResourceRequirements{Limits: ResourceList{"memory": {Text: "1024Mi"}, "cpu": {Text: "4", Number: true}}}
	var down corev1.ResourceRequirements
	viaProtobuf(t, &now, &down)
	if m, c := down.Limits["memory"], down.Limits["cpu"]; m.Cmp(resource.MustParse("1Gi")) != 0 || c.Cmp(resource.MustParse("4")) != 0 {
		t.Errorf("read as corev1: %v", down.Limits)
	}
	if diff := cmp.Diff(&corev1.ResourceRequirements{Limits: down.Limits}, now.Core()); diff != "" {
		t.Errorf("Core (-protobuf +Core):\n%s", diff)
	}
}

// TestQuantityRefused: what resource.Quantity refuses, with its message; null is unset.
func TestQuantityRefused(t *testing.T) {
	for _, bad := range []string{`"12xyz"`, `""`, `true`, `{}`, `"1.5.5"`} {
		var q Quantity
		if err := json.Unmarshal([]byte(bad), &q); err == nil {
			t.Errorf("%s decoded to %+v", bad, q)
		}
	}
	q := Quantity{Text: "4"}
	if err := json.Unmarshal([]byte(`null`), &q); err != nil || q != (Quantity{}) {
		t.Errorf("null: %+v, %v", q, err)
	}
	// Made in code: the canonical text, as a string.
	if out, _ := json.Marshal(NewQuantity(resource.MustParse("1024Mi"))); string(out) != `"1Gi"` {
		t.Errorf("made in code: %s", out)
	}
	// A number flag on a text that is no JSON number writes a string.
	if out, _ := json.Marshal(Quantity{Text: "5Gi", Number: true}); string(out) != `"5Gi"` {
		t.Errorf("5Gi as a number: %s", out)
	}
}

// viaProtobuf decodes into out what in encodes to protobuf: the same message, or a message of the same wire form.
func viaProtobuf(t *testing.T, in interface{ Marshal() ([]byte, error) }, out interface{ Unmarshal([]byte) error }) {
	t.Helper()
	pb, err := in.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Unmarshal(pb); err != nil {
		t.Fatal(err)
	}
}
