package sweep

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func ref(kind, name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "aim.eai.amd.com/v1alpha1", Kind: kind, Name: name, UID: uid}
}

func TestOwned(t *testing.T) {
	c := Child{Namespace: "team", Owners: []metav1.OwnerReference{ref("AIMService", "chat", "1"), ref("AIMClusterServiceTemplate", "t", "2"),
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "3"}}}
	got := c.Owned()
	if len(got) != 2 || got[0] != (Owner{Kind: "AIMService", Namespace: "team", Name: "chat", UID: "1"}) ||
		got[1] != (Owner{Kind: "AIMClusterServiceTemplate", Name: "t", UID: "2"}) {
		t.Fatalf("owners = %+v (other groups are not ours; cluster kinds have no namespace)", got)
	}
}

func TestOrphans(t *testing.T) {
	live := map[types.UID]bool{"alive": true}
	unsure := types.UID("unsure")
	exists := func(o Owner) (bool, error) {
		if o.UID == unsure {
			return false, errors.New("API unreachable")
		}
		return live[o.UID], nil
	}
	children := []Child{
		{Name: "kept", Owners: []metav1.OwnerReference{ref("AIMService", "a", "alive")}},
		{Name: "orphan", Owners: []metav1.OwnerReference{ref("AIMService", "b", "gone")}},
		{Name: "one-owner-left", Owners: []metav1.OwnerReference{ref("AIMService", "b", "gone"), ref("AIMModel", "m", "alive")}},
		{Name: "unknown-kept", Owners: []metav1.OwnerReference{ref("AIMService", "c", unsure)}},
		{Name: "not-ours", Owners: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "gone"}}},
		// Another group's owner may still exist: the garbage collector, which can tell, decides.
		{Name: "another-owner", Owners: []metav1.OwnerReference{ref("AIMService", "b", "gone"), {APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "cm"}}},
		{Name: "no-owner"},
	}
	got := Orphans(children, exists)
	if len(got) != 1 || got[0].Name != "orphan" {
		t.Fatalf("orphans = %+v", got)
	}
}

func TestSweepConfirmsWithTheAPI(t *testing.T) {
	var deleted []string
	src := Source{
		List: func() []Child {
			return []Child{
				{Name: "stale-cache", Owners: []metav1.OwnerReference{ref("AIMService", "new", "u-new")}},
				{Name: "orphan", Owners: []metav1.OwnerReference{ref("AIMService", "old", "u-old")}},
			}
		},
		Delete: func(_ context.Context, c Child) error { deleted = append(deleted, c.Name); return nil },
	}
	s := &Sweeper{Sources: []Source{src},
		InCache: func(Owner) (bool, error) { return false, nil }, // the cache has not seen either owner
		Get:     func(_ context.Context, o Owner) (bool, error) { return o.UID == "u-new", nil },
	}
	s.Sweep(context.Background())
	if len(deleted) != 1 || deleted[0] != "orphan" {
		t.Fatalf("deleted %v; a child whose owner the API still has must stay", deleted)
	}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{"AIMService": "aimservices", "AIMClusterModelSource": "aimclustermodelsources"} {
		if got := Plural(kind); got != want {
			t.Errorf("Plural(%s) = %s", kind, got)
		}
	}
	if !ClusterScoped("AIMClusterModel") || ClusterScoped("AIMModel") {
		t.Error("ClusterScoped")
	}
}
