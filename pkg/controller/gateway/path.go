package gateway

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
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
// exactly one value; a value other than an annotation's becomes a DNS label ("Team A/B" is "team-a-b"); then
// each segment of the path does, empty segments go, and a path of none is "/". A template that renders nothing
// or more than MaxPathLength characters is an error naming it, for the HTTPRouteReady condition; unlike
// aim-engine's, it never falls back silently to the default path.
func RenderPath(svc *aimv1.AIMService, template string) (string, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(svc)
	if err != nil {
		return "", fmt.Errorf("reading the service: %w", err)
	}
	var renderErr error
	rendered := placeholder.ReplaceAllStringFunc(template, func(m string) string {
		if renderErr != nil {
			return ""
		}
		expr := strings.TrimSpace(m[1 : len(m)-1])
		v, err := evaluate(obj, expr)
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
	if strings.ContainsAny(rendered, "{}") {
		return "", fmt.Errorf("path template %q has an unbalanced brace", template)
	}
	rendered = strings.TrimSpace(rendered)
	if rendered == "" {
		return "", fmt.Errorf("path template %q renders an empty path", template)
	}
	tooLong := func(n int) error {
		return fmt.Errorf("path template %q renders %d characters; the limit is %d", template, n, MaxPathLength)
	}
	if n := len("/" + strings.Trim(rendered, "/")); n > MaxPathLength {
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

func evaluate(obj map[string]any, expr string) (string, error) {
	if m := mapLookup.FindStringSubmatch(expr); m != nil {
		meta, _ := obj["metadata"].(map[string]any)
		values, _ := meta[m[1]].(map[string]any)
		v, ok := values[m[2]].(string)
		if !ok {
			return "", fmt.Errorf("the service has no %s %q", strings.TrimSuffix(m[1], "s"), m[2])
		}
		return v, nil
	}
	jp := jsonpath.New("path")
	if err := jp.Parse("{" + expr + "}"); err != nil {
		return "", fmt.Errorf("not a JSONPath expression: %w", err)
	}
	results, err := jp.FindResults(obj)
	if err != nil {
		return "", err
	}
	var values []string
	for _, r := range results {
		for _, v := range r {
			values = append(values, fmt.Sprint(v.Interface()))
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
