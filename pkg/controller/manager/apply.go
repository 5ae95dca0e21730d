package manager

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// appliedMetadata are the metadata fields a controller sets on its children; the rest (uid, resourceVersion,
// creationTimestamp, managedFields, ...) belong to the server.
var appliedMetadata = []string{"name", "namespace", "generateName", "labels", "annotations", "ownerReferences", "finalizers"}

// ApplyObject is the body of a server-side apply of a desired object built as a typed struct: only the
// fields the controller means to own. A typed struct marshals its zero values (creationTimestamp: null,
// status: {}, a status's empty strings); sent as they are, an apply claims them and the live object never
// holds them (the server drops status and nulls), so every comparison with it would see drift. Status,
// server-set metadata and nulls are left out. Empty objects stay: some mean something (emptyDir: {}).
func ApplyObject(obj runtime.Object) (map[string]any, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T for an apply: %w", obj, err)
	}
	delete(u, "status")
	if meta, ok := u["metadata"].(map[string]any); ok {
		kept := map[string]any{}
		for _, k := range appliedMetadata {
			if v, ok := meta[k]; ok {
				kept[k] = v
			}
		}
		u["metadata"] = kept
	}
	return prune(u).(map[string]any), nil
}

// ApplyBody is ApplyObject encoded.
func ApplyBody(obj runtime.Object) ([]byte, error) {
	body, err := ApplyObject(obj)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding %T for an apply: %w", obj, err)
	}
	return data, nil
}

// prune drops nulls; lists keep their length (an element is a position in them).
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				out[k] = prune(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = prune(e)
		}
		return out
	}
	return v
}
