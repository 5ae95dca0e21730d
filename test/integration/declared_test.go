package integration

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/declared"
)

// TestDefaultRuntimeConfigApplied: the spec a ConfigMap declares becomes the AIMClusterRuntimeConfig "default"
// through a real server (server-side apply, validated); the same spec again sends nothing, a change is applied,
// and fields a user set that the ConfigMap does not name stay.
func TestDefaultRuntimeConfigApplied(t *testing.T) {
	ctx := context.Background()
	configs := shared.Client.AimV1alpha1().AIMClusterRuntimeConfigs()
	t.Cleanup(func() { _ = configs.Delete(ctx, aimv1.DefaultRuntimeConfigName, metav1.DeleteOptions{}) })
	a := &declared.Applier{Kind: declared.RuntimeConfig, ConfigMap: types.NamespacedName{Namespace: "aim-system", Name: "cm"}, AIM: shared.Client}
	cm := &corev1.ConfigMap{Data: map[string]string{declared.SpecKey: "discovery: {maxConcurrentJobs: 5}\n"}}
	if err := a.Apply(ctx, cm); err != nil {
		t.Fatal(err)
	}
	got, err := configs.Get(ctx, aimv1.DefaultRuntimeConfigName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := got.Spec.Discovery; d == nil || d.MaxConcurrentJobs == nil || *d.MaxConcurrentJobs != 5 {
		t.Fatalf("spec %+v", got.Spec)
	}
	// A user's own field.
	got.Spec.Storage = &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("fast")}
	if got, err = configs.Update(ctx, got, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Apply(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if again, _ := configs.Get(ctx, aimv1.DefaultRuntimeConfigName, metav1.GetOptions{}); again.ResourceVersion != got.ResourceVersion {
		t.Error("the same spec was applied again")
	}
	cm.Data[declared.SpecKey] = "discovery: {maxConcurrentJobs: 7}\n"
	if err := a.Apply(ctx, cm); err != nil {
		t.Fatal(err)
	}
	got, _ = configs.Get(ctx, aimv1.DefaultRuntimeConfigName, metav1.GetOptions{})
	if *got.Spec.Discovery.MaxConcurrentJobs != 7 {
		t.Errorf("a changed spec was not applied: %+v", got.Spec.Discovery)
	}
	if got.Spec.Storage == nil || ptr.Deref(got.Spec.Storage.DefaultStorageClassName, "") != "fast" {
		t.Errorf("the user's storage class is gone: %+v", got.Spec.Storage)
	}
	// An invalid spec is refused by the server's validation, with the field.
	cm.Data[declared.SpecKey] = "discovery: {maxConcurrentJobs: -1}\n"
	if err := a.Apply(ctx, cm); err == nil {
		t.Error("an invalid spec was applied")
	}
}

// TestModelSourceApplied: a ConfigMap declaring an AIMClusterModelSource (the chart's clusterModelSource, as
// aim-engine's chart has one) creates it under the name it gives, through a real server.
func TestModelSourceApplied(t *testing.T) {
	ctx := context.Background()
	sources := shared.Client.AimV1alpha1().AIMClusterModelSources()
	t.Cleanup(func() { _ = sources.Delete(ctx, "amd-aim-model-source", metav1.DeleteOptions{}) })
	a := &declared.Applier{Kind: declared.ModelSource, ConfigMap: types.NamespacedName{Namespace: "aim-system", Name: "cm"}, AIM: shared.Client}
	cm := &corev1.ConfigMap{Data: map[string]string{declared.NameKey: "amd-aim-model-source",
		declared.SpecKey: "registry: docker.io\nfilters: [{image: amdenterpriseai/aim-*, versions: [\">=0.8.4\"]}]\nsyncInterval: 1h\nmaxModels: 500\n"}}
	if err := a.Apply(ctx, cm); err != nil {
		t.Fatal(err)
	}
	got, err := sources.Get(ctx, "amd-aim-model-source", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(got.Spec.MaxModels, 0) != 500 || len(got.Spec.Filters) != 1 || got.Spec.Filters[0].Image != "amdenterpriseai/aim-*" ||
		got.Spec.SyncInterval == nil || got.Spec.SyncInterval.Duration != time.Hour {
		t.Errorf("spec %+v", got.Spec)
	}
	if m := got.ManagedFields; len(m) != 1 || m[0].Manager != declared.ModelSource.FieldManager {
		t.Errorf("managed fields %+v", m)
	}
}
