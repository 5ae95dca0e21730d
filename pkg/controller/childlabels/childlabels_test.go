package childlabels

import (
	"maps"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

func TestFor(t *testing.T) {
	parent := &metav1.ObjectMeta{Name: "chat", Labels: map[string]string{
		"aim.eai.amd.com/team": "inference", "team": "a", "aim.eai.amd.com/service": "parent-value",
		aimv1.LabelManagedBy: "Helm", "app.kubernetes.io/instance": "chat-release"}}
	rc := runtimeconfig.Resolved{Spec: aimv1.AIMRuntimeConfigSpec{LabelPropagation: &aimv1.AIMLabelPropagationConfig{
		Enabled: ptr.To(true), Match: []string{"te*", "app.kubernetes.io/*"}}}}
	got := For(Service, parent, rc, map[string]string{"aim.eai.amd.com/service": "chat", "own": "1"})
	want := map[string]string{
		"own": "1", "aim.eai.amd.com/service": "chat", // own labels win over propagated ones
		"aim.eai.amd.com/team": "inference", "team": "a", // aim.eai.amd.com/ always, others by glob
		"app.kubernetes.io/instance": "chat-release",
		// The controllers know their children by managed-by: a parent's (Helm's) never replaces it.
		"aim.eai.amd.com/service.name": "chat", aimv1.LabelManagedBy: aimv1.ManagedByValue,
	}
	if !maps.Equal(got, want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	artifact := For(Artifact, parent, runtimeconfig.Resolved{}, nil)
	if artifact["team"] != "" || artifact["aim.eai.amd.com/artifact.name"] != "chat" {
		t.Errorf("without propagation: %v", artifact)
	}
	if pods := ForPods(artifact); pods[aimv1.LabelManagedBy] != "" || pods["aim.eai.amd.com/artifact.name"] != "chat" {
		t.Errorf("pod labels %v", pods)
	}
}
