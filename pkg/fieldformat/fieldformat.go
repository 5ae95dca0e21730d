// Package fieldformat turns a quantity, date-time or duration that does not parse, and a value of the wrong JSON
// type, into a 422 that names the field, as a CRD's schema validation does.
//
// A typed API server decodes the request body into Go structs, and a value such as `size: 12xyz` fails inside
// resource.Quantity's JSON decoder, which knows no field path: the generic handlers answer 400 "decode error".
// The check sits just before the handlers, after authentication and authorization. When the handlers refuse
// a create, update or patch of a guarded resource, it walks the body alongside the resource's Go type and
// reports every such field that would not decode. Anything it cannot read is left to the handlers' answer.
package fieldformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	"sigs.k8s.io/yaml"
)

// Checker guards the resources of one API group version.
type Checker struct {
	gv schema.GroupVersion
	// kinds maps a resource (plural) to its kind and Go type.
	kinds map[string]kind
	// maxBodyBytes is the server's body limit; larger bodies are left to the handlers, which answer 413.
	maxBodyBytes int64
}

type kind struct {
	name string
	typ  reflect.Type
}

// New guards the resources of gv; resources maps each resource (plural) to its kind, whose Go type the
// scheme knows.
func New(scheme *runtime.Scheme, gv schema.GroupVersion, resources map[string]string, maxBodyBytes int64) (*Checker, error) {
	c := &Checker{gv: gv, kinds: map[string]kind{}, maxBodyBytes: maxBodyBytes}
	for res, k := range resources {
		obj, err := scheme.New(gv.WithKind(k))
		if err != nil {
			return nil, fmt.Errorf("field format check for %s: %w", res, err)
		}
		c.kinds[res] = kind{name: k, typ: reflect.TypeOf(obj).Elem()}
	}
	return c, nil
}

// WithCheck wraps the API handler (inside the handler chain, where the request info is known). The handlers
// decode the body anyway, so the check reads it only when they refuse the request (400, 422 or 500): then a
// field that would not decode replaces their answer with a 422 naming it, and any other refusal goes out as
// they wrote it. Accepted requests pay for no second decode.
func (c *Checker) WithCheck(handler http.Handler, s runtime.NegotiatedSerializer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := request.RequestInfoFrom(r.Context())
		k, guarded := c.kinds[info.Resource]
		if !ok || !info.IsResourceRequest || info.APIGroup != c.gv.Group || info.APIVersion != c.gv.Version || !guarded ||
			(info.Verb != "create" && info.Verb != "update" && info.Verb != "patch") || r.Body == nil {
			handler.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, c.maxBodyBytes+1))
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil || int64(len(body)) > c.maxBodyBytes {
			handler.ServeHTTP(w, r)
			return
		}
		refusal := &refusalHolder{ResponseWriter: w}
		handler.ServeHTTP(responsewriter.WrapForHTTP1Or2(refusal), r)
		if refusal.code == 0 {
			return
		}
		if errs := c.check(body, r.Header.Get("Content-Type"), k.typ); len(errs) > 0 {
			name := info.Name
			if name == "" {
				name = nameOf(body)
			}
			err := apierrors.NewInvalid(schema.GroupKind{Group: c.gv.Group, Kind: k.name}, name, errs)
			responsewriters.ErrorNegotiated(err, s, c.gv, w, r)
			return
		}
		refusal.release()
	})
}

// refusalHolder passes a response through unless its status is one a body that does not decode causes;
// that one it holds back until the check has looked at the body.
type refusalHolder struct {
	http.ResponseWriter
	// code is the held status; 0 while nothing is held.
	code    int
	held    bytes.Buffer
	written bool
}

var _ responsewriter.UserProvidedDecorator = &refusalHolder{}

func (h *refusalHolder) Unwrap() http.ResponseWriter { return h.ResponseWriter }

func (h *refusalHolder) WriteHeader(code int) {
	if h.written || h.code != 0 {
		return
	}
	if code == http.StatusBadRequest || code == http.StatusUnprocessableEntity || code == http.StatusInternalServerError {
		h.code = code
		return
	}
	h.written = true
	h.ResponseWriter.WriteHeader(code)
}

func (h *refusalHolder) Write(b []byte) (int, error) {
	if !h.written && h.code == 0 {
		h.WriteHeader(http.StatusOK)
	}
	if h.code != 0 {
		return h.held.Write(b)
	}
	return h.ResponseWriter.Write(b)
}

// Flush sends nothing while a response is held.
func (h *refusalHolder) Flush() {
	if f, ok := h.ResponseWriter.(http.Flusher); ok && h.code == 0 {
		f.Flush()
	}
}

// release sends the held response as the handlers wrote it.
func (h *refusalHolder) release() {
	h.ResponseWriter.WriteHeader(h.code)
	_, _ = h.ResponseWriter.Write(h.held.Bytes())
}

// CheckJSON reports the fields of a JSON object of a resource that would not decode; objects written by
// other means (a migration from CRDs) get the same answer a request would.
func (c *Checker) CheckJSON(resource string, body []byte) field.ErrorList {
	k, ok := c.kinds[resource]
	if !ok {
		return nil
	}
	return c.check(body, "application/json", k.typ)
}

// check reads the body by its content type and reports the fields that would not decode.
func (c *Checker) check(body []byte, contentType string, typ reflect.Type) field.ErrorList {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	var doc any
	switch {
	case mediaType == "application/json-patch+json":
		var ops []struct {
			Op    string          `json:"op"`
			Path  string          `json:"path"`
			Value json.RawMessage `json:"value"`
		}
		if decode(body, &ops) != nil {
			return nil
		}
		var errs field.ErrorList
		for _, op := range ops {
			if (op.Op != "add" && op.Op != "replace" && op.Op != "test") || op.Value == nil {
				continue
			}
			t, path, ok := resolvePointer(typ, op.Path)
			var v any
			if ok && decode(op.Value, &v) == nil {
				errs = append(errs, walk(v, t, path)...)
			}
		}
		return errs
	case strings.HasSuffix(mediaType, "yaml"):
		js, err := yaml.YAMLToJSON(body)
		if err != nil || decode(js, &doc) != nil {
			return nil
		}
	default:
		if decode(body, &doc) != nil {
			return nil
		}
	}
	return walk(doc, typ, nil)
}

// decode reads JSON keeping numbers as written, so that a quantity given as a number is checked exactly.
func decode(data []byte, into any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(into)
}

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	timeType     = reflect.TypeOf(metav1.Time{})
	durationType = reflect.TypeOf(metav1.Duration{})
	// An API type that publishes itself as a string (v1alpha1.Duration), or an integer or a string
	// (v1alpha1.Quantity, which takes any number), and decodes itself: its decoder is the check, and its error
	// the message.
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

// checkString decodes a JSON string with the Go type's own decoder.
func checkString(v any, t reflect.Type, path *field.Path) field.ErrorList {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	data, _ := json.Marshal(s)
	if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(data); err != nil {
		return field.ErrorList{field.Invalid(path, s, err.Error())}
	}
	return nil
}

// checkStringOrNumber decodes a JSON string or number with the Go type's own decoder.
func checkStringOrNumber(v any, t reflect.Type, path *field.Path) field.ErrorList {
	var data []byte
	switch x := v.(type) {
	case string:
		data, _ = json.Marshal(x)
	case json.Number:
		data = []byte(x.String())
	default:
		return field.ErrorList{field.Invalid(path, v, "must be a string or a number")}
	}
	if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(data); err != nil {
		return field.ErrorList{field.Invalid(path, v, err.Error())}
	}
	return nil
}

// selfDecoded is the JSON types of the values a struct type t decodes itself, as its schema publishes them; nil
// for any other type.
func selfDecoded(t reflect.Type) []string {
	if t.Kind() != reflect.Struct || !reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch v := reflect.Zero(t).Interface().(type) {
	case interface{ OpenAPIV3OneOfTypes() []string }:
		return v.OpenAPIV3OneOfTypes()
	case interface{ OpenAPISchemaType() []string }:
		return v.OpenAPISchemaType()
	}
	return nil
}

// walk checks a decoded JSON value against a Go type.
func walk(v any, t reflect.Type, path *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case quantityType:
		return checkQuantity(v, path)
	case timeType:
		if s, ok := v.(string); ok {
			if _, err := time.Parse(time.RFC3339, s); err != nil {
				return field.ErrorList{field.Invalid(path, s, "must be a date-time in RFC 3339 format, e.g. 2026-01-02T15:04:05Z")}
			}
		}
		return nil
	case durationType:
		if s, ok := v.(string); ok {
			if _, err := time.ParseDuration(s); err != nil {
				return field.ErrorList{field.Invalid(path, s, "must be a duration such as 30s, 5m or 1h30m")}
			}
		}
		return nil
	}
	switch types := selfDecoded(t); {
	case slices.Equal(types, []string{"integer", "string"}):
		return checkStringOrNumber(v, t, path)
	case slices.Equal(types, []string{"string"}):
		return checkString(v, t, path)
	}
	if errs := checkType(v, t, path); errs != nil {
		return errs
	}
	var errs field.ErrorList
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		fields := map[string]reflect.StructField{}
		collectFields(t, fields)
		for _, key := range slices.Sorted(maps.Keys(obj)) { // sorted: the same body, the same answer
			if f, ok := fields[key]; ok {
				errs = append(errs, walk(obj[key], f.Type, path.Child(key))...)
			}
		}
	case reflect.Slice, reflect.Array:
		if items, ok := v.([]any); ok {
			for i, item := range items {
				errs = append(errs, walk(item, t.Elem(), path.Index(i))...)
			}
		}
	case reflect.Map:
		if obj, ok := v.(map[string]any); ok {
			for _, key := range slices.Sorted(maps.Keys(obj)) {
				errs = append(errs, walk(obj[key], t.Elem(), path.Key(key))...)
			}
		}
	}
	return errs
}

// checkType reports a value whose JSON type is not the one the Go type t decodes, in the words of a CRD's schema
// validation (`spec.replicas in body must be of type integer: "string"`), and an integer t cannot hold. The
// object's metadata, apiVersion and kind are left to the handlers, as kube-apiserver decodes them for CRDs too,
// and so is a type that decodes itself.
func checkType(v any, t reflect.Type, path *field.Path) field.ErrorList {
	if path == nil || slices.Contains([]string{"metadata", "apiVersion", "kind"}, path.Root().String()) ||
		reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	want := schemaType(t)
	got := jsonType(v)
	if want == "" || got == want || (want == "number" && got == "integer") {
		if n, ok := v.(json.Number); ok && want == "integer" && !fits(n, t) {
			return field.ErrorList{field.Invalid(path, n, fmt.Sprintf("must be an integer that fits in %s", t.Kind()))}
		}
		return nil
	}
	return field.ErrorList{field.Invalid(path, got, fmt.Sprintf("%s in body must be of type %s: %q", path, want, got))}
}

// schemaType is the JSON type a Go type decodes from, as its published schema says; "" where any will do.
func schemaType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		return "array"
	}
	return ""
}

// jsonType is the JSON type of a decoded value, a number without a fraction or exponent being an integer.
func jsonType(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return "integer"
		}
		if _, err := strconv.ParseUint(x.String(), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// fits reports whether the integer n decodes into the integer type t.
func fits(n json.Number, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		_, err := strconv.ParseUint(n.String(), 10, t.Bits())
		return err == nil
	}
	_, err := strconv.ParseInt(n.String(), 10, t.Bits())
	return err == nil
}

// collectFields maps the JSON names of a struct's fields, embedded (inline) structs included.
func collectFields(t reflect.Type, into map[string]reflect.StructField) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && (name == "" || strings.Contains(opts, "inline")):
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFields(ft, into)
			}
		case name != "" && f.IsExported():
			into[name] = f
		}
	}
}

func checkQuantity(v any, path *field.Path) field.ErrorList {
	var s string
	switch q := v.(type) {
	case string:
		s = q
	case json.Number:
		s = q.String()
	default:
		return field.ErrorList{field.Invalid(path, v, "must be a quantity, a string or a number")}
	}
	if _, err := resource.ParseQuantity(s); err != nil {
		return field.ErrorList{field.Invalid(path, s, resource.ErrFormatWrong.Error())}
	}
	return nil
}

// resolvePointer finds the Go type and field path a JSON pointer (RFC 6901) names in t.
func resolvePointer(t reflect.Type, pointer string) (reflect.Type, *field.Path, bool) {
	if !strings.HasPrefix(pointer, "/") {
		return nil, nil, false
	}
	var path *field.Path
	for _, seg := range strings.Split(pointer[1:], "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			fields := map[string]reflect.StructField{}
			collectFields(t, fields)
			f, ok := fields[seg]
			if !ok {
				return nil, nil, false
			}
			t, path = f.Type, path.Child(seg)
		case reflect.Slice, reflect.Array:
			i, err := strconv.Atoi(seg)
			if seg == "-" {
				i, err = -1, nil
			}
			if err != nil {
				return nil, nil, false
			}
			t, path = t.Elem(), path.Index(i)
		case reflect.Map:
			t, path = t.Elem(), path.Key(seg)
		default:
			return nil, nil, false
		}
	}
	return t, path, true
}

// nameOf reads metadata.name from a body, for the message of a create.
func nameOf(body []byte) string {
	var obj struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if js, err := yaml.YAMLToJSON(body); err == nil && json.Unmarshal(js, &obj) == nil {
		return obj.Metadata.Name
	}
	return ""
}
