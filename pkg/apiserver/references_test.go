package apiserver

import (
	"context"
	"errors"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// laggingStore is a store whose watch cache (resourceVersion 0) has not seen the objects etcd holds yet.
type laggingStore struct {
	cached, stored map[string]bool // namespace/name
	reads          []string        // the resourceVersion of each read
	err            error
}

func (s *laggingStore) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	s.reads = append(s.reads, opts.ResourceVersion)
	if s.err != nil {
		return nil, s.err
	}
	ns, _ := genericapirequest.NamespaceFrom(ctx)
	has := s.stored
	if opts.ResourceVersion == "0" {
		has = s.cached
	}
	if has[ns+"/"+name] {
		return &aim.AIMModel{}, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: aim.GroupName, Resource: "aimmodels"}, name)
}

// TestExistsReadsEtcdOnlyForWhatTheCacheLacks: an object the watch cache has costs no etcd read; one it lacks
// is looked up in etcd, so that an object stored an instant ago is not warned of as missing.
func TestExistsReadsEtcdOnlyForWhatTheCacheLacks(t *testing.T) {
	store := &laggingStore{
		cached: map[string]bool{"team/old": true},
		stored: map[string]bool{"team/old": true, "team/just-stored": true},
	}
	exists := existsIn(map[string]*laggingStore{"aimmodels": store})
	for _, tc := range []struct {
		name  string
		want  bool
		reads []string
	}{
		{"old", true, []string{"0"}},
		{"just-stored", true, []string{"0", ""}},
		{"missing", false, []string{"0", ""}},
	} {
		store.reads = nil
		got, err := exists(context.Background(), "aimmodels", "team", tc.name)
		if err != nil || got != tc.want {
			t.Errorf("%s: exists = %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if !slices.Equal(store.reads, tc.reads) {
			t.Errorf("%s: reads at resourceVersions %q, want %q", tc.name, store.reads, tc.reads)
		}
	}

	store.err = errors.New("etcd unavailable")
	if _, err := exists(context.Background(), "aimmodels", "team", "old"); err == nil {
		t.Error("a failed read: no error")
	}
	if _, err := exists(context.Background(), "aimclustermodels", "", "x"); err == nil {
		t.Error("an unknown resource: no error")
	}
}
