package v1alpha1

import (
	"encoding/json"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func defaulted(t *testing.T, obj runtime.Object) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	scheme.Default(obj)
}

// TestDefaultsMatchConstants: the +default markers (applied on decode and published in the schema) and the
// constants the controllers fall back to name the same values.
func TestDefaultsMatchConstants(t *testing.T) {
	svc := &AIMService{Spec: AIMServiceSpec{
		Storage:     &AIMStorageConfig{},
		Routing:     &AIMRuntimeRoutingConfig{GatewayRef: &AIMGatewayParentReference{Name: "gw"}},
		AutoScaling: &AIMServiceAutoScaling{Metrics: []AIMServiceMetricSpec{{PodMetric: &AIMServicePodMetricSource{Metric: &AIMServicePodMetric{}}}}},
		Overrides:   &AIMRuntimeParameters{Hardware: &AIMHardwareRequirements{GPU: &AIMGpuRequirements{}}},
	}}
	defaulted(t, svc)
	want := AIMServiceSpec{
		Replicas: ptr.To(DefaultReplicas),
		Storage:  &AIMStorageConfig{PVCHeadroomPercent: ptr.To(DefaultPVCHeadroomPercent)},
		Routing: &AIMRuntimeRoutingConfig{GatewayRef: &AIMGatewayParentReference{Name: "gw",
			Group: ptr.To(DefaultGatewayGroup), Kind: ptr.To(DefaultGatewayKind)}},
		AutoScaling: &AIMServiceAutoScaling{Metrics: []AIMServiceMetricSpec{{PodMetric: &AIMServicePodMetricSource{
			Metric: &AIMServicePodMetric{Backend: DefaultMetricsBackend}}}}},
		Overrides: &AIMRuntimeParameters{Hardware: &AIMHardwareRequirements{GPU: &AIMGpuRequirements{ResourceName: DefaultGPUResourceName}}},
	}
	if !apiequality.Semantic.DeepEqual(svc.Spec, want) {
		t.Errorf("service defaults:\n got %+v\nwant %+v", svc.Spec, want)
	}
	if svc.Status.Status != AIMStatusPending {
		t.Errorf("service status %q", svc.Status.Status)
	}

	src := &AIMClusterModelSource{}
	defaulted(t, src)
	if src.Spec.Registry != DefaultRegistry || src.Spec.SyncInterval == nil || src.Spec.SyncInterval.Duration != DefaultSyncInterval ||
		ptr.Deref(src.Spec.MaxModels, 0) != DefaultMaxModels {
		t.Errorf("model source defaults %+v", src.Spec)
	}

	art := &AIMArtifact{}
	defaulted(t, art)
	if art.Spec.ModelDownloadImage != DefaultModelDownloadImage {
		t.Errorf("artifact modelDownloadImage %q", art.Spec.ModelDownloadImage)
	}
}

// TestRuntimeConfigsTakeNoSpecDefaults: a stored default would count as set and override the cluster config
// (F13). Only a gateway reference, merged as a whole, gets the group and kind it means anyway.
func TestRuntimeConfigsTakeNoSpecDefaults(t *testing.T) {
	rc := &AIMRuntimeConfig{Spec: AIMRuntimeConfigSpec{
		Storage: &AIMStorageConfig{}, Routing: &AIMRuntimeRoutingConfig{}, LabelPropagation: &AIMLabelPropagationConfig{},
	}}
	want := rc.Spec.DeepCopy()
	defaulted(t, rc)
	if !apiequality.Semantic.DeepEqual(rc.Spec, *want) {
		t.Errorf("runtime config spec was defaulted:\n got %+v\nwant %+v", rc.Spec, *want)
	}
}

// TestExplicitFalseIsKept: false is stored as written, so a manifest reads back as applied.
func TestExplicitFalseIsKept(t *testing.T) {
	for want, obj := range map[string]any{
		`"caching":{"enabled":false}`: &AIMServiceTemplate{Spec: AIMServiceTemplateSpec{Caching: &AIMTemplateCachingConfig{Enabled: false}}},
		`"labelPropagation":{"enabled":false}`: &AIMRuntimeConfig{Spec: AIMRuntimeConfigSpec{
			LabelPropagation: &AIMLabelPropagationConfig{Enabled: ptr.To(false)}}},
	} {
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%T: want %s in %s", obj, want, data)
		}
	}
}
