package v1alpha1

import (
	"encoding/json"
	"errors"
	"time"
)

// Duration is a length of time such as 90s, 30m or 1h30m. It reads back as it was written.
//
// +protobuf.options.(gogoproto.goproto_stringer)=false
type Duration struct {
	// Unlike metav1.Duration, the text is kept (D16): a manifest that says `24h` reads back `24h`, as it does from
	// aim-engine's CRDs (which store the string), so a GitOps tool comparing the two sees no drift. Field 1 is
	// metav1.Duration's, so that values stored before Text existed decode.
	Duration time.Duration `json:"-" protobuf:"varint,1,opt,name=duration,casttype=time.Duration"`
	// Text is what was written when it is not Go's own notation (1h0m0s), in which a duration made in code, or
	// written that way, reads back.
	Text string `json:"-" protobuf:"bytes,2,opt,name=text"`
}

// MarshalJSON writes the text as written when it still says the value, else the value in Go's notation.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// UnmarshalJSON reads a duration string and keeps it as written.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("must be a duration string such as 30s, 5m or 1h30m")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("must be a duration such as 30s, 5m or 1h30m")
	}
	// Go's own spelling is kept as no text, so that a value made in code and the same value decoded are equal.
	d.Duration, d.Text = v, s
	if s == v.String() {
		d.Text = ""
	}
	return nil
}

// String is the text as written when it still says the value (a copy whose Duration was changed in code falls
// back), else the value in Go's notation.
func (d Duration) String() string {
	if d.Text != "" {
		if v, err := time.ParseDuration(d.Text); err == nil && v == d.Duration {
			return d.Text
		}
	}
	return d.Duration.String()
}

// OpenAPISchemaType is string, as metav1.Duration's and aim-engine's schema publish it.
func (Duration) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat is empty: aim-engine's schema publishes none.
func (Duration) OpenAPISchemaFormat() string { return "" }
