package declared

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	d, err := RuntimeConfig.Of(map[string]string{SpecKey: "discovery:\n  maxConcurrentJobs: 5\n", NameKey: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterRuntimeConfig","metadata":{"name":"default"},"spec":{"discovery":{"maxConcurrentJobs":5}}}`
	if d.Name != "default" || string(d.Body) != want {
		t.Errorf("runtime config %s %s\nwant %s", d.Name, d.Body, want)
	}
	if d, err := RuntimeConfig.Of(nil); err != nil || !strings.Contains(string(d.Body), `"spec":{}`) {
		t.Errorf("empty spec: %s %v", d.Body, err)
	}
	if _, err := RuntimeConfig.Of(map[string]string{SpecKey: "- a list"}); err == nil || !strings.Contains(err.Error(), SpecKey) {
		t.Errorf("a list is not a spec: %v", err)
	}
	// A model source is named by the ConfigMap.
	d, err = ModelSource.Of(map[string]string{NameKey: "amd-aim-model-source", SpecKey: "filters: [{image: amdenterpriseai/aim-*}]\n"})
	want = `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterModelSource","metadata":{"name":"amd-aim-model-source"},"spec":{"filters":[{"image":"amdenterpriseai/aim-*"}]}}`
	if err != nil || d.Name != "amd-aim-model-source" || string(d.Body) != want {
		t.Errorf("model source %s %s %v\nwant %s", d.Name, d.Body, err, want)
	}
	if _, err := ModelSource.Of(map[string]string{SpecKey: "{}"}); err == nil || !strings.Contains(err.Error(), NameKey) {
		t.Errorf("a model source without a name: %v", err)
	}
}
