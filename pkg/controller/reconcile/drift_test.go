package reconcile

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDrift(t *testing.T) {
	var applied map[string]any
	if err := json.Unmarshal([]byte(`{"metadata":{"name":"chat","creationTimestamp":null,"labels":{"a":"1"}},
"spec":{"predictor":{"minReplicas":1,"containers":[{"name":"main","args":["--x"]}],"command":["a","b"],
"tolerations":[{"key":"amd.com/gpu","operator":"Exists"}]}},"status":{}}`), &applied); err != nil {
		t.Fatal(err)
	}
	live := func() map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "chat", "resourceVersion": "7", "labels": map[string]any{"a": "1", "team": "blue"}},
			"spec": map[string]any{"predictor": map[string]any{"minReplicas": int64(1), "timeout": int64(60),
				"containers":  []any{map[string]any{"name": "main", "args": []any{"--x"}, "image": "defaulted"}},
				"command":     []any{"a", "b"},
				"tolerations": []any{map[string]any{"key": "amd.com/gpu", "operator": "Exists", "effect": "NoSchedule"}}}},
		}
	}
	// predictor and mainContainer are what most edits change, in a live object m.
	predictor := func(m map[string]any) map[string]any { return m["spec"].(map[string]any)["predictor"].(map[string]any) }
	mainContainer := func(m map[string]any) map[string]any { return predictor(m)["containers"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		name  string
		edit  func(m map[string]any)
		drift string
	}{
		{"as applied, with fields others added", func(map[string]any) {}, ""},
		{"a value edited", func(m map[string]any) { predictor(m)["minReplicas"] = int64(5) }, "spec.predictor.minReplicas"},
		{"a field removed", func(m map[string]any) { delete(m["metadata"].(map[string]any)["labels"].(map[string]any), "a") }, "metadata.labels.a"},
		{"a sidecar another writer added, after ours", func(m map[string]any) {
			p := predictor(m)
			p["containers"] = append(p["containers"].([]any), map[string]any{"name": "sidecar"})
		}, ""},
		{"a sidecar another writer added, before ours", func(m map[string]any) {
			p := predictor(m)
			p["containers"] = append([]any{map[string]any{"name": "istio-proxy"}}, p["containers"].([]any)...)
		}, ""},
		{"our container removed", func(m map[string]any) {
			p := predictor(m)
			p["containers"] = []any{map[string]any{"name": "sidecar"}}
		}, "spec.predictor.containers[name=main]"},
		{"a list element edited", func(m map[string]any) { mainContainer(m)["args"] = []any{"--y"} }, "spec.predictor.containers[name=main].args[0]"},
		{"an argument another writer added", func(m map[string]any) { mainContainer(m)["args"] = []any{"--x", "--verbose"} }, ""},
		{"a toleration another writer added (a list without names)", func(m map[string]any) {
			p := predictor(m)
			p["tolerations"] = []any{map[string]any{"key": "other"}, map[string]any{"key": "amd.com/gpu", "operator": "Exists"}}
		}, ""},
		{"our toleration edited", func(m map[string]any) {
			p := predictor(m)
			p["tolerations"] = []any{map[string]any{"key": "amd.com/gpu", "operator": "Equal"}}
		}, "spec.predictor.tolerations[0].operator"},
		{"our toleration removed", func(m map[string]any) {
			p := predictor(m)
			p["tolerations"] = []any{map[string]any{"key": "other"}}
		}, "spec.predictor.tolerations[0].key"},
		{"our arguments reordered", func(m map[string]any) { predictor(m)["command"] = []any{"b", "a"} }, "spec.predictor.command[1]"},
	} {
		m := live()
		tc.edit(m)
		if got := Drift(m, applied); got != tc.drift {
			t.Errorf("%s: drift at %q, want %q", tc.name, got, tc.drift)
		}
	}
	// A live object of another shape than applied (a field of the wrong type) is drift at that field, not a
	// panic or a match.
	m := live()
	m["spec"] = "not an object"
	if got := Drift(m, applied); !strings.HasPrefix(got, "spec.predictor.") {
		t.Errorf("a live field of the wrong type: drift at %q, want a field under spec.predictor", got)
	}
}
