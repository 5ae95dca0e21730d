package gateway

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

const (
	// MaxPathLength caps a rendered route path.
	MaxPathLength = 200
	maxSegment    = 63
)

var (
	placeholder = regexp.MustCompile(`\{([^{}]*)\}`)
	// mapLookup reads a label or annotation whose key jsonpath cannot express: .metadata.labels['a/b.c'], or
	// with double quotes, as aim-engine's labelAccessPattern also takes it.
	mapLookup  = regexp.MustCompile(`^\.metadata\.(labels|annotations)\[['"]([^'"]+)['"]\]$`)
	notSegment = regexp.MustCompile(`[^a-z0-9-]`)
)

// DefaultPath routes a service at /<namespace>/<uid> when no template is set.
func DefaultPath(svc *aimv1.AIMService) string {
	return "/" + svc.Namespace + "/" + string(svc.UID)
}

// RenderPath fills a path template such as /{.metadata.namespace}/{.metadata.labels['team']} from the
// service. Each placeholder must yield exactly one value. Values become lower-case DNS-label segments;
// the path gets a leading slash, no empty segments, and at most MaxPathLength characters. An error names the
// placeholder, for the HTTPRouteReady condition; it never falls back silently.
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
		return v
	})
	if renderErr != nil {
		return "", renderErr
	}
	if strings.ContainsAny(rendered, "{}") {
		return "", fmt.Errorf("path template %q has an unbalanced brace", template)
	}
	var segments []string
	for _, s := range strings.Split(rendered, "/") {
		s = strings.Trim(notSegment.ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "-"), "-")
		if len(s) > maxSegment {
			s = strings.TrimRight(s[:maxSegment], "-")
		}
		if s != "" {
			segments = append(segments, s)
		}
	}
	if len(segments) == 0 {
		return "", fmt.Errorf("path template %q renders an empty path", template)
	}
	path := "/" + strings.Join(segments, "/")
	if len(path) > MaxPathLength {
		return "", fmt.Errorf("path template %q renders %d characters; the limit is %d", template, len(path), MaxPathLength)
	}
	return path, nil
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
