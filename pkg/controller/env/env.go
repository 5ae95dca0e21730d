// Package env merges container environment lists the way every AIM layer does: by name, later layers winning,
// with AIM_ENGINE_ARGS merged key by key when both layers hold a JSON object.
package env

import (
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/keyed"
)

// EngineArgs holds inference engine arguments as a JSON object; layers merge it instead of replacing it.
const EngineArgs = "AIM_ENGINE_ARGS"

// Merge overlays layers in order: a name in a later layer replaces the same name, in place; new names are
// appended. No name appears twice in the result, even when a layer repeats one.
func Merge(layers ...[]corev1.EnvVar) []corev1.EnvVar {
	return keyed.Merge(slices.Concat(layers...), func(e corev1.EnvVar) string { return e.Name }, func(earlier, later corev1.EnvVar) corev1.EnvVar {
		if later.Name == EngineArgs && later.ValueFrom == nil && earlier.ValueFrom == nil {
			if merged, ok := mergeJSONObjects(earlier.Value, later.Value); ok {
				later.Value = merged
			}
		}
		return later
	})
}

// mergeJSONObjects deep-merges over into base when both are JSON objects.
func mergeJSONObjects(base, over string) (string, bool) {
	var b, o map[string]any
	if json.Unmarshal([]byte(base), &b) != nil || json.Unmarshal([]byte(over), &o) != nil || b == nil || o == nil {
		return "", false
	}
	merged, err := json.Marshal(deepMerge(b, o))
	if err != nil {
		return "", false
	}
	return string(merged), true
}

func deepMerge(base, over map[string]any) map[string]any {
	for k, ov := range over {
		if om, ok := ov.(map[string]any); ok {
			if bm, ok := base[k].(map[string]any); ok {
				base[k] = deepMerge(bm, om)
				continue
			}
		}
		base[k] = ov
	}
	return base
}
