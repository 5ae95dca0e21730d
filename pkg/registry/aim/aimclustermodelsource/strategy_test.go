package aimclustermodelsource

import (
	"strings"
	"testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// TestWarnings: a versions entry aim-engine ignores is stored with a warning naming it.
func TestWarnings(t *testing.T) {
	src := &aim.AIMClusterModelSource{Spec: aim.AIMClusterModelSourceSpec{Versions: []string{">=0.8.0", "~0.8"},
		Filters: []aim.AIMModelSourceFilter{{Image: "amdenterpriseai/aim-*"}}}}
	w := Definition().Warnings(src, nil)
	// The entry as the user wrote it, not as the parser completed it (~0.8.0).
	if len(w) != 1 || !strings.HasPrefix(w[0], `spec.versions[1]: "~0.8" is no version range and is ignored`) || strings.Contains(w[0], "0.8.0") {
		t.Errorf("warnings %q", w)
	}
}
