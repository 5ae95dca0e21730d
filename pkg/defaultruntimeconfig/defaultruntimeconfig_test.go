package defaultruntimeconfig

import (
	"strings"
	"testing"
)

func TestBody(t *testing.T) {
	body, err := Body([]byte("discovery:\n  maxConcurrentJobs: 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterRuntimeConfig","metadata":{"name":"default"},"spec":{"discovery":{"maxConcurrentJobs":5}}}`
	if string(body) != want {
		t.Errorf("body %s\nwant %s", body, want)
	}
	if body, err := Body(nil); err != nil || !strings.Contains(string(body), `"spec":{}`) {
		t.Errorf("empty spec: %s %v", body, err)
	}
	if _, err := Body([]byte("- a list")); err == nil || !strings.Contains(err.Error(), SpecKey) {
		t.Errorf("a list is not a spec: %v", err)
	}
}
