package gateway

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

func svc() *aimv1.AIMService {
	return &aimv1.AIMService{
		ObjectMeta: metav1.ObjectMeta{Name: "Qwen_Chat", Namespace: "team-a", UID: "1234-abcd",
			Labels:      map[string]string{"app.kubernetes.io/team": "Inference Team", "tier": "gold", "blank": ""},
			Annotations: map[string]string{"route": "v1", "prefix": "Models/Qwen", "braces": "a{b}/c"}},
		Spec: aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: ptr.To("qwen3-32b"), Image: ptr.To("ghcr.io/amd/Qwen:0.8")},
			Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}},
	}
}

func TestRenderPath(t *testing.T) {
	for _, tc := range []struct{ template, want string }{
		{"/{.metadata.namespace}/{.metadata.name}", "/team-a/qwen-chat"},
		{"{.metadata.namespace}//{.spec.model.name}/", "/team-a/qwen3-32b"},
		{"/teams/{.metadata.labels['app.kubernetes.io/team']}/{.metadata.labels.tier}", "/teams/inference-team/gold"},
		{"/{.metadata.annotations['route']}/{.metadata.name}", "/v1/qwen-chat"},
		// Double quotes too, as aim-engine's labelAccessPattern reads them.
		{`/{.metadata.labels["app.kubernetes.io/team"]}`, "/inference-team"},
		{"/static/path", "/static/path"},
		// One dash per character a segment cannot hold, as aim-engine's MakeRFC1123Compliant.
		{"/a..b/c  d/{.metadata.name}", "/a--b/c--d/qwen-chat"},
		// A value is one segment, slashes included; an annotation's may be several, as in aim-engine.
		{"/{.spec.model.image}", "/ghcr-io-amd-qwen-0-8"},
		{"/{.metadata.annotations['prefix']}/{.metadata.name}", "/models/qwen/qwen-chat"},
		// What renders to slashes only is the root, as aim-engine's normalizeRoutePath has it.
		{"/", "/"},
		{"/-/ /", "/"},
		{"/{.metadata.labels['blank']}", "/"},
		// Read from the Go object, as aim-engine reads it: a field left empty is "" (its JSON omits it), and
		// spec.template, a struct in aim-engine's type, reads as one when the service has none.
		{"/{.metadata.namespace}/{.spec.serviceAccountName}/{.metadata.name}", "/team-a/qwen-chat"},
		{"/{.spec.template.name}/{.metadata.name}", "/qwen-chat"},
		{"/{.metadata.uid}", "/1234-abcd"},
		// A brace in a value is a character like any other, not a placeholder.
		{"/{.metadata.annotations['braces']}", "/a-b/c"},
	} {
		if got, err := RenderPath(svc(), tc.template); err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.template, got, err, tc.want)
		}
	}
	for template, wantErr := range map[string]string{
		"/{.metadata.labels['missing']}":      `no label "missing"`,
		"/{.spec.nothing}":                    "not found",
		"/{.spec.env[*].name}":                "matches 2 values",
		"/{.metadata.name":                    "unbalanced",
		"/a}/{.metadata.name}":                "unbalanced",
		"/{.spec.replicas}":                   ".spec.replicas is not set",
		"/{.spec.caching.mode}":               "mode is not found",
		"/{.metadata.creationTimestamp.wall}": "cannot be read",
		"/{.metadata.name[}":                  "not a JSONPath",
		"/{.metadata.labels['nope']}x":        "no label",
		"{.metadata.labels['blank']}":         "empty path",
		strings.Repeat("/{.metadata.namespace}-very-long-segment-for-the-route-path", 5): "the limit is 200",
	} {
		if got, err := RenderPath(svc(), template); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: got %q, %v; want an error mentioning %q", template, got, err, wantErr)
		}
	}
	// The limit counts what aim-engine's normalizeRoutePath counts: leading and doubled slashes, not trailing ones.
	for template, ok := range map[string]bool{
		"/" + strings.Repeat("a/", 99) + "a":                          true, // 200 characters
		"//" + strings.Repeat("a/", 99) + "a":                         false,
		"/" + strings.Repeat("a/", 99) + "a" + strings.Repeat("/", 5): true,
		strings.Repeat("a/", 99) + "a":                                true, // aim-engine adds the leading slash
		strings.Repeat("a/", 100) + "a":                               false,
		"/" + strings.Repeat("a//", 67) + "a":                         false, // renders "/a/a/…", 136 characters
	} {
		if got, err := RenderPath(svc(), template); (err != nil) == ok {
			t.Errorf("%d characters %q: got %q, %v; want accepted=%v", len(template), template, got, err, ok)
		}
	}
	long, err := RenderPath(svc(), "/"+strings.Repeat("a", 100))
	if err != nil || len(long) != 64 {
		t.Errorf("a long segment is cut to 63 characters: %q %v", long, err)
	}
	if got := DefaultPath(svc()); got != "/team-a/1234-abcd" {
		t.Errorf("default path %q", got)
	}
}
