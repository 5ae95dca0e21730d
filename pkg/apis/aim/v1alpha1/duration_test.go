package v1alpha1

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDurationReadsBackAsWritten: JSON and protobuf keep the text, as aim-engine's CRDs keep the string.
func TestDurationReadsBackAsWritten(t *testing.T) {
	for _, text := range []string{"24h", "90s", "1h30m", "1h0m0s", "1.5h"} {
		var d Duration
		if err := json.Unmarshal([]byte(`"`+text+`"`), &d); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want, _ := time.ParseDuration(text)
		if d.Duration != want {
			t.Errorf("%s: value %v, want %v", text, d.Duration, want)
		}
		var back Duration
		viaProtobuf(t, &d, &back)
		out, _ := json.Marshal(back)
		if string(out) != `"`+text+`"` {
			t.Errorf("%s reads back as %s", text, out)
		}
	}
}

// TestDurationStoredBeforeText: a value stored as metav1.Duration (field 1 only) decodes, in Go's notation.
func TestDurationStoredBeforeText(t *testing.T) {
	old := metav1.Duration{Duration: 24 * time.Hour}
	var d Duration
	viaProtobuf(t, &old, &d)
	if out, _ := json.Marshal(d); d.Duration != 24*time.Hour || string(out) != `"24h0m0s"` {
		t.Errorf("decoded %+v, reads %s", d, out)
	}
}

// TestDurationText: a value made or changed in code reads back in Go's notation; bad input names the format.
func TestDurationText(t *testing.T) {
	if s := (Duration{Duration: time.Hour}).String(); s != "1h0m0s" {
		t.Errorf("made in code: %s", s)
	}
	if s := (Duration{Duration: 2 * time.Hour, Text: "1h"}).String(); s != "2h0m0s" {
		t.Errorf("changed in code: %s", s)
	}
	for _, bad := range []string{`"soon"`, `3600`, `"-"`} {
		var d Duration
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s decoded to %v", bad, d)
		}
	}
}
