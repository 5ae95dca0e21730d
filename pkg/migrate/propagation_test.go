package migrate

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestPropagationTurnedOff: a namespaced config with aim-engine's stored labelPropagation.enabled false turns
// propagation off under aim-apiserver only where the cluster config of its name turns it on; a config without
// the field, or with true, or beside a cluster config that does not turn it on, changes nothing.
func TestPropagationTurnedOff(t *testing.T) {
	config := func(namespace, name string, labelPropagation map[string]any) unstructured.Unstructured {
		u := unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
		if labelPropagation != nil {
			u.Object["spec"] = map[string]any{"labelPropagation": labelPropagation}
		}
		u.SetNamespace(namespace)
		u.SetName(name)
		return u
	}
	off := map[string]any{"enabled": false, "match": []any{"cost-center"}}
	cluster := []unstructured.Unstructured{
		config("", "default", map[string]any{"enabled": true, "match": []any{"team/*"}}),
		config("", "quiet", map[string]any{"enabled": false}),
		config("", "bare", nil),
	}
	namespaced := []unstructured.Unstructured{
		config("b", "default", off), config("a", "default", off),
		config("c", "default", map[string]any{"enabled": true}),
		config("d", "default", map[string]any{"match": []any{"x"}}),
		config("e", "quiet", off), config("f", "bare", off), config("g", "alone", off),
	}
	if got, want := propagationTurnedOff(cluster, namespaced), []string{"a/default", "b/default"}; !slices.Equal(got, want) {
		t.Errorf("propagationTurnedOff = %v, want %v", got, want)
	}
}
