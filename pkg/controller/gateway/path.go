package gateway

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"k8s.io/client-go/util/jsonpath"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
)

// MaxPathLength caps a rendered route path.
const MaxPathLength = 200

var (
	placeholder = regexp.MustCompile(`\{([^{}]*)\}`)
	// mapLookup reads a label or annotation whose key jsonpath cannot express: .metadata.labels['a/b.c'], or
	// with double quotes, as aim-engine's labelAccessPattern also takes it.
	mapLookup = regexp.MustCompile(`^\.metadata\.(labels|annotations)\[['"]([^'"]+)['"]\]$`)
)

// DefaultPath routes a service at /<namespace>/<uid> when no template is set.
func DefaultPath(svc *aimv1.AIMService) string {
	return "/" + svc.Namespace + "/" + string(svc.UID)
}

// RenderPath fills a path template such as /{.metadata.namespace}/{.metadata.labels['team']} from the
// service, as aim-engine renders it (internal/aimservice/httproute_template.go): each placeholder must yield
// exactly one value, read from the typed object as aim-engine reads it (a field left empty is "", a pointer left
// nil an error); a value other than an annotation's becomes a DNS label ("Team A/B" is "team-a-b"); then each
// segment of the path does, empty segments go, and a path of none is "/". A template that renders nothing, has a
// brace outside its placeholders, or renders more than MaxPathLength characters is an error naming it, for the
// HTTPRouteReady condition; unlike aim-engine's, it never falls back silently to the default path.
func RenderPath(svc *aimv1.AIMService, template string) (string, error) {
	if strings.ContainsAny(placeholder.ReplaceAllString(template, ""), "{}") {
		return "", fmt.Errorf("path template %q has an unbalanced brace", template)
	}
	var renderErr error
	rendered := placeholder.ReplaceAllStringFunc(template, func(m string) string {
		if renderErr != nil {
			return ""
		}
		expr := strings.TrimSpace(m[1 : len(m)-1])
		v, err := evaluate(svc, expr)
		if err != nil {
			renderErr = fmt.Errorf("path template %s: %w", m, err)
			return ""
		}
		if l := mapLookup.FindStringSubmatch(expr); l != nil && l[1] == "annotations" {
			return strings.TrimSpace(v) // an annotation may hold several segments
		}
		return segment(v)
	})
	if renderErr != nil {
		return "", renderErr
	}
	rendered = strings.TrimSpace(rendered)
	if rendered == "" {
		return "", fmt.Errorf("path template %q renders an empty path", template)
	}
	tooLong := func(n int) error {
		return fmt.Errorf("path template %q renders %d characters; the limit is %d", template, n, MaxPathLength)
	}
	// Measured as aim-engine's normalizeRoutePath measures it, before empty segments go: leading slashes count,
	// trailing ones do not.
	if n := len(strings.TrimRight("/"+strings.TrimPrefix(rendered, "/"), "/")); n > MaxPathLength {
		return "", tooLong(n)
	}
	var segments []string
	for _, s := range strings.Split(rendered, "/") {
		if s = segment(s); s != "" {
			segments = append(segments, s)
		}
	}
	path := "/" + strings.Join(segments, "/")
	if len(path) > MaxPathLength {
		return "", tooLong(len(path))
	}
	return path, nil
}

// segment makes s a DNS label as aim-engine's route template does (TrimSpace, then MakeRFC1123Compliant).
func segment(s string) string {
	return naming.RFC1123Label(strings.TrimSpace(s))
}

// evaluate reads expr from the service as aim-engine's evaluateJSONPath does: from the Go object, so that a
// field the JSON form omits (a string left empty) reads as "", and a nil pointer at the end is an error.
func evaluate(svc *aimv1.AIMService, expr string) (value string, err error) {
	if m := mapLookup.FindStringSubmatch(expr); m != nil {
		values := svc.Labels
		if m[1] == "annotations" {
			values = svc.Annotations
		}
		v, ok := values[m[2]]
		if !ok {
			return "", fmt.Errorf("the service has no %s %q", strings.TrimSuffix(m[1], "s"), m[2])
		}
		return v, nil
	}
	jp := jsonpath.New("path")
	if err := jp.Parse("{" + expr + "}"); err != nil {
		return "", fmt.Errorf("not a JSONPath expression: %w", err)
	}
	// jsonpath walks Go values by reflection and reaches unexported fields by name (.metadata.creationTimestamp.wall),
	// which it cannot read without panicking.
	defer func() {
		if r := recover(); r != nil {
			value, err = "", fmt.Errorf("%s cannot be read: %v", expr, r)
		}
	}()
	results, err := jp.FindResults(asAimEngineTypesIt(svc))
	if err != nil {
		return "", err
	}
	var values []string
	for _, r := range results {
		for _, v := range r {
			s, err := text(expr, v)
			if err != nil {
				return "", err
			}
			values = append(values, s)
		}
	}
	switch len(values) {
	case 0:
		return "", fmt.Errorf("%s matches nothing", expr)
	case 1:
		return values[0], nil
	default:
		return "", fmt.Errorf("%s matches %d values; it must match one", expr, len(values))
	}
}

// asAimEngineTypesIt is svc with the fields aim-engine's Go type holds as values, where ours are pointers, set:
// spec.template is a struct there, so {.spec.template.name} of a service without one reads "", not an error.
func asAimEngineTypesIt(svc *aimv1.AIMService) *aimv1.AIMService {
	if svc.Spec.Template != nil {
		return svc
	}
	c := *svc
	c.Spec.Template = &aimv1.AIMServiceTemplateSelector{}
	return &c
}

// text is a value as aim-engine writes it into a path: pointers followed, a nil one an error; a string as it is,
// a Stringer's String(), anything else fmt.Sprint.
func text(expr string, v reflect.Value) (string, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "", fmt.Errorf("%s is not set", expr)
		}
		v = v.Elem()
	}
	if !v.IsValid() || !v.CanInterface() {
		return "", fmt.Errorf("%s cannot be read", expr)
	}
	switch x := v.Interface().(type) {
	case string:
		return x, nil
	case fmt.Stringer:
		return x.String(), nil
	default:
		return fmt.Sprint(x), nil
	}
}
