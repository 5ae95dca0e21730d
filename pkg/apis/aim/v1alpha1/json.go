package v1alpha1

import "bytes"

// JSON holds any JSON value: an object, an array, a string, a number or a boolean. aim-engine declares
// profile.engine_args and profile.originalDiscoveryOutput schemaless, so discovery output of any shape is
// stored as it came. The schema publishes no type for it (OpenAPISchemaType), as apiextensions' JSON does.
type JSON struct {
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

var nullJSON = []byte("null")

// MarshalJSON writes the stored value; an empty value is null.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.Raw) == 0 {
		return nullJSON, nil
	}
	return j.Raw, nil
}

// UnmarshalJSON keeps the value verbatim; null leaves it empty.
func (j *JSON) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && !bytes.Equal(data, nullJSON) {
		j.Raw = append(j.Raw[:0], data...)
	}
	return nil
}

// OpenAPISchemaType is empty: any JSON type is allowed.
func (JSON) OpenAPISchemaType() []string { return nil }

// OpenAPISchemaFormat is empty: the value has no format.
func (JSON) OpenAPISchemaFormat() string { return "" }
