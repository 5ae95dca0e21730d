package manager

import "testing"

func TestDrifted(t *testing.T) {
	applied := []byte(`{"metadata":{"name":"chat","creationTimestamp":null,"labels":{"a":"1"}},
"spec":{"predictor":{"minReplicas":1,"containers":[{"name":"main","args":["--x"]}]}},"status":{}}`)
	live := func() map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "chat", "resourceVersion": "7", "labels": map[string]any{"a": "1", "team": "blue"}},
			"spec": map[string]any{"predictor": map[string]any{"minReplicas": int64(1), "timeout": int64(60),
				"containers": []any{map[string]any{"name": "main", "args": []any{"--x"}, "image": "defaulted"}}}},
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(m map[string]any)
		drift bool
	}{
		{"as applied, with fields others added", func(map[string]any) {}, false},
		{"a value edited", func(m map[string]any) {
			m["spec"].(map[string]any)["predictor"].(map[string]any)["minReplicas"] = int64(5)
		}, true},
		{"a field removed", func(m map[string]any) { delete(m["metadata"].(map[string]any)["labels"].(map[string]any), "a") }, true},
		{"a list element added", func(m map[string]any) {
			p := m["spec"].(map[string]any)["predictor"].(map[string]any)
			p["containers"] = append(p["containers"].([]any), map[string]any{"name": "sidecar"})
		}, true},
		{"a list element edited", func(m map[string]any) {
			c := m["spec"].(map[string]any)["predictor"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			c["args"] = []any{"--y"}
		}, true},
	} {
		m := live()
		tc.edit(m)
		got, err := Drifted(m, applied)
		if err != nil || got != tc.drift {
			t.Errorf("%s: drifted = %v (%v), want %v", tc.name, got, err, tc.drift)
		}
	}
	if _, err := Drifted(live(), []byte("{")); err == nil {
		t.Error("malformed applied JSON: no error")
	}
}
