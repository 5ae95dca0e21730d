package v1alpha1

import (
	"bytes"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Quantity is an amount such as 192Gi, 500m or 4. It reads back as it was written.
//
// +protobuf.options.(gogoproto.goproto_stringer)=false
// +k8s:validation:pattern="^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$"
type Quantity struct {
	// Unlike resource.Quantity, the text is kept (D17): a manifest that says `1024Mi` or `cpu: 4` reads back
	// `1024Mi` and the number 4, as it does from aim-engine's CRDs (which store the JSON value), so a GitOps tool
	// comparing the two sees no drift. Field 1 is resource.Quantity's (its canonical text there), so values
	// stored before decode, and a reader that knows only resource.Quantity reads the value.
	Text string `json:"-" protobuf:"bytes,1,opt,name=string"`
	// Number is set when the value was written as a JSON number rather than a string.
	Number bool `json:"-" protobuf:"varint,2,opt,name=number"`
}

// NewQuantity is q, read back in its canonical form.
func NewQuantity(q resource.Quantity) Quantity {
	return Quantity{Text: q.String()}
}

// ParseQuantity is s as written; it fails as resource.ParseQuantity does.
func ParseQuantity(s string) (Quantity, error) {
	if _, err := resource.ParseQuantity(s); err != nil {
		return Quantity{}, err
	}
	return Quantity{Text: s}, nil
}

// MustParseQuantity is ParseQuantity for constants; it panics on a bad value.
func MustParseQuantity(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

// Amount is the value as a resource.Quantity; zero when unset, or for a text that does not parse (decoding
// refuses one, so none is stored).
func (q Quantity) Amount() resource.Quantity {
	v, _ := resource.ParseQuantity(q.Text)
	return v
}

// String is the text as written; "0" when unset.
func (q Quantity) String() string {
	if q.Text == "" {
		return "0"
	}
	return q.Text
}

// MarshalJSON writes the value as it was written: the same text, as a number when it was one.
func (q Quantity) MarshalJSON() ([]byte, error) {
	if q.Number && isJSONNumber(q.Text) {
		return []byte(q.Text), nil
	}
	return json.Marshal(q.String())
}

// UnmarshalJSON reads a quantity string or number, as resource.Quantity does, and keeps it as written.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*q = Quantity{}
		return nil
	}
	text, number := string(b), true
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
		number = false
	}
	if _, err := resource.ParseQuantity(text); err != nil {
		return resource.ErrFormatWrong
	}
	*q = Quantity{Text: text, Number: number && isJSONNumber(text)}
	return nil
}

// isJSONNumber reports whether s may be written as a JSON number as it is.
func isJSONNumber(s string) bool {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return false
	}
	// Starting so, a valid JSON value is a number.
	return json.Valid([]byte(s))
}

// OpenAPISchemaType is string, as resource.Quantity's schema publishes it in OpenAPI v2, which has no oneOf.
func (Quantity) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat is empty, as resource.Quantity's.
func (Quantity) OpenAPISchemaFormat() string { return "" }

// OpenAPIV3OneOfTypes are an integer or a string, with the pattern of the type's marker: aim-engine's CRDs publish
// quantities so (x-kubernetes-int-or-string), so a schema-only validator takes and refuses the same manifests.
// The server also takes a fractional number (0.5), as resource.Quantity does.
func (Quantity) OpenAPIV3OneOfTypes() []string { return []string{"integer", "string"} }

// ResourceList maps a resource name to its amount, as corev1.ResourceList, keeping each amount as written.
type ResourceList map[corev1.ResourceName]Quantity

// Core is l as a corev1.ResourceList; nil for an empty l.
func (l ResourceList) Core() corev1.ResourceList {
	if len(l) == 0 {
		return nil
	}
	out := make(corev1.ResourceList, len(l))
	for name, q := range l {
		out[name] = q.Amount()
	}
	return out
}

// Core is r as corev1.ResourceRequirements, which a pod or InferenceService takes; nil for a nil r.
func (r *ResourceRequirements) Core() *corev1.ResourceRequirements {
	if r == nil {
		return nil
	}
	return &corev1.ResourceRequirements{Limits: r.Limits.Core(), Requests: r.Requests.Core(), Claims: r.Claims}
}
