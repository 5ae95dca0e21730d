package resource

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// TestReferenceWarnings: a reference is looked up through its targets in order and warned of only when none
// exists; an update warns only of the references it changes; a failed lookup warns of nothing.
func TestReferenceWarnings(t *testing.T) {
	stored := map[string]bool{"aimclustermodels//shared": true, "aimmodels/team/local": true}
	exists := func(_ context.Context, res, namespace, name string) (bool, error) {
		if name == "unreadable" {
			return false, errors.New("etcd is away")
		}
		return stored[res+"/"+namespace+"/"+name], nil
	}
	check := referenceCheck{exists: exists, references: func(obj runtime.Object) []Reference {
		svc := obj.(*aim.AIMService)
		refs := []Reference{{Field: field.NewPath("spec", "model", "name"), Name: *svc.Spec.Model.Name, Namespace: svc.Namespace, Targets: Models}}
		return append(refs, RuntimeConfigReference(field.NewPath("spec", "runtimeConfigName"), svc.Spec.RuntimeConfigName, svc.Namespace)...)
	}}
	service := func(model, config string) *aim.AIMService {
		return &aim.AIMService{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "s"},
			Spec: aim.AIMServiceSpec{Model: aim.AIMServiceModel{Name: &model}, RuntimeConfigName: config}}
	}
	const waits = " exists; the object waits for it and says so in its status"
	for _, tc := range []struct {
		name     string
		obj, old *aim.AIMService
		want     []string
	}{
		{"the namespace's model", service("local", ""), nil, nil},
		{"the cluster's model", service("shared", "default"), nil, nil},
		{"no model, a named config", service("gone", "tuned"), nil, []string{
			`spec.model.name: neither AIMModel "gone" in namespace "team" nor AIMClusterModel "gone"` + waits,
			`spec.runtimeConfigName: neither AIMRuntimeConfig "tuned" in namespace "team" nor AIMClusterRuntimeConfig "tuned"` + waits}},
		{"a lookup that fails", service("unreadable", ""), nil, nil},
		{"an update that keeps the names", service("gone", "tuned"), service("gone", "tuned"), nil},
		{"an update that changes one name", service("gone", "other"), service("gone", "tuned"), []string{
			`spec.runtimeConfigName: neither AIMRuntimeConfig "other" in namespace "team" nor AIMClusterRuntimeConfig "other"` + waits}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var old runtime.Object
			if tc.old != nil {
				old = tc.old
			}
			if diff := cmp.Diff(tc.want, check.warnings(context.Background(), tc.obj, old)); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
	// A cluster-scoped object's runtime config is the cluster's only.
	refs := RuntimeConfigReference(field.NewPath("spec", "runtimeConfigName"), "tuned", "")
	if diff := cmp.Diff(ClusterRuntimeConfigs, refs[0].Targets); diff != "" {
		t.Errorf("targets of a cluster object's runtime config (-want +got):\n%s", diff)
	}
}
