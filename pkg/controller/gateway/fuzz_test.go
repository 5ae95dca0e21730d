package gateway

import (
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
)

var segmentPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// FuzzRenderPath: a user's path template never panics the controller, and whatever it renders is a path a
// Gateway accepts: a leading slash, non-empty DNS-label segments (or "/" alone), at most MaxPathLength characters.
func FuzzRenderPath(f *testing.F) {
	for _, seed := range []string{"/{.metadata.namespace}/{.metadata.name}", "/{.metadata.labels['team']}/x", "{", "}{", "/{.spec.model.name}",
		"/{.metadata.annotations['a/b']}", "/{range .items[*]}{end}", "//", "/{.metadata.name}{.metadata.name}", "{.status.conditions[0]}"} {
		f.Add(seed, "Team_A")
	}
	f.Fuzz(func(t *testing.T, template, label string) {
		svc := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team", UID: "u-1",
			Labels: map[string]string{"team": label}, Annotations: map[string]string{"a/b": label}},
			Spec: aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: &label}}}
		path, err := RenderPath(svc, template)
		if err != nil {
			return
		}
		if len(path) > MaxPathLength || !strings.HasPrefix(path, "/") {
			t.Fatalf("RenderPath(%q) = %q", template, path)
		}
		if path == "/" {
			return
		}
		for _, s := range strings.Split(path[1:], "/") {
			if len(s) > naming.MaxLength || !segmentPattern.MatchString(s) {
				t.Fatalf("RenderPath(%q) = %q: segment %q", template, path, s)
			}
		}
	})
}
