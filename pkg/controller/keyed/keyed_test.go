package keyed

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMerge(t *testing.T) {
	items := []string{"a=1", "b=1", "a=2", "c=1", "b=2", "a=3"}
	name := func(s string) string { return strings.SplitN(s, "=", 2)[0] }
	if diff := cmp.Diff([]string{"a=3", "b=2", "c=1"}, Merge(items, name, nil)); diff != "" {
		t.Errorf("the last of each key, in the first one's place (-want +got):\n%s", diff)
	}
	joined := Merge(items, name, func(earlier, later string) string { return earlier + "," + strings.SplitN(later, "=", 2)[1] })
	if diff := cmp.Diff([]string{"a=1,2,3", "b=1,2", "c=1"}, joined); diff != "" {
		t.Errorf("merged in order (-want +got):\n%s", diff)
	}
	if got := Merge(nil, name, nil); got != nil {
		t.Errorf("nothing gives nothing: %v", got)
	}
}
