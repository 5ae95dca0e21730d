package apiserver

import (
	"testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// TestResourcesCoverTheScheme checks every kind registered in the scheme is installed exactly once, with a
// complete definition.
func TestResourcesCoverTheScheme(t *testing.T) {
	installed := map[string]string{}
	for _, r := range Resources() {
		if err := r.Check(); err != nil {
			t.Errorf("%s: %v", r.ResourceName(), err)
		}
		if prev, dup := installed[r.KindName()]; dup {
			t.Errorf("%s installed twice (%s, %s)", r.KindName(), prev, r.ResourceName())
		}
		installed[r.KindName()] = r.ResourceName()
	}
	for gvk := range Scheme.KnownTypes(aim.SchemeGroupVersion) {
		if len(gvk) > 4 && gvk[len(gvk)-4:] == "List" {
			continue
		}
		if _, ok := installed[gvk]; !ok && gvk != "WatchEvent" {
			t.Errorf("kind %s is in the scheme but not served", gvk)
		}
	}
	if len(installed) != 10 {
		t.Errorf("%d kinds installed, want 10", len(installed))
	}
}
