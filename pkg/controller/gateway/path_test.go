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
			Labels:      map[string]string{"app.kubernetes.io/team": "Inference Team", "tier": "gold"},
			Annotations: map[string]string{"route": "v1"}},
		Spec: aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: ptr.To("qwen3-32b")},
			Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}},
	}
}

func TestRenderPath(t *testing.T) {
	cases := []struct {
		template, want, wantErr string
	}{
		{template: "/{.metadata.namespace}/{.metadata.name}", want: "/team-a/qwen-chat"},
		{template: "{.metadata.namespace}//{.spec.model.name}/", want: "/team-a/qwen3-32b"},
		{template: "/teams/{.metadata.labels['app.kubernetes.io/team']}/{.metadata.labels.tier}", want: "/teams/inference-team/gold"},
		{template: "/{.metadata.annotations['route']}/{.metadata.name}", want: "/v1/qwen-chat"},
		{template: "/static/path", want: "/static/path"},
		// One dash per character a segment cannot hold, as aim-engine's MakeRFC1123Compliant.
		{template: "/a..b/c  d/{.metadata.name}", want: "/a--b/c--d/qwen-chat"},
		{template: "/{.metadata.labels['missing']}", wantErr: `no label "missing"`},
		{template: "/{.spec.nothing}", wantErr: "not found"},
		{template: "/{.spec.env[*].name}", wantErr: "matches 2 values"},
		{template: "/{.metadata.name", wantErr: "unbalanced"},
		{template: "/{.metadata.name[}", wantErr: "not a JSONPath"},
		{template: "/{.metadata.labels['nope']}x", wantErr: "no label"},
		{template: "/-/ /", wantErr: "empty path"},
		{template: strings.Repeat("/{.metadata.namespace}-very-long-segment-for-the-route-path", 5), wantErr: "the limit is 200"},
	}
	for _, tc := range cases {
		got, err := RenderPath(svc(), tc.template)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("%s: got %q, %v; want %q", tc.template, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: got %q, %v; want an error mentioning %q", tc.template, got, err, tc.wantErr)
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
