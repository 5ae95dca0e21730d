package env

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestMerge(t *testing.T) {
	got := Merge(
		[]corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "1"}, {Name: EngineArgs, Value: `{"tp":1,"kv":{"dtype":"fp8","block":16}}`}},
		[]corev1.EnvVar{{Name: "B", Value: "2"}, {Name: "C", Value: "2"}, {Name: "C", Value: "3"}},
		[]corev1.EnvVar{{Name: EngineArgs, Value: `{"kv":{"block":32},"max-len":4096}`}, {Name: "A", ValueFrom: &corev1.EnvVarSource{}}},
	)
	want := []struct{ name, value string }{{"A", ""}, {"B", "2"}, {EngineArgs, `{"kv":{"block":32,"dtype":"fp8"},"max-len":4096,"tp":1}`}, {"C", "3"}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Value != w.value {
			t.Errorf("[%d] = %s=%q, want %s=%q", i, got[i].Name, got[i].Value, w.name, w.value)
		}
	}
	if got[0].ValueFrom == nil {
		t.Error("a later valueFrom must replace an earlier value")
	}
	// Engine args that are not both objects are replaced, not merged.
	plain := Merge([]corev1.EnvVar{{Name: EngineArgs, Value: `{"a":1}`}}, []corev1.EnvVar{{Name: EngineArgs, Value: "--tp 2"}})
	if plain[0].Value != "--tp 2" {
		t.Errorf("non-JSON engine args: %q", plain[0].Value)
	}
}
