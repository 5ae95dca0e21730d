package kserve

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func base() Input {
	return Input{
		Name: "qwen-chat-3f2a1b0c", Namespace: "team",
		Owner:  metav1.OwnerReference{APIVersion: "aim.eai.amd.com/v1alpha1", Kind: "AIMService", Name: "qwen-chat", UID: "uid-1"},
		Labels: map[string]string{"aim.eai.amd.com/service.name": "qwen-chat", "app.kubernetes.io/managed-by": "aim-apiserver"},
		Image:  "amdenterpriseai/aim-qwen-qwen3-32b:0.8.5", GPUs: 2, GPUResource: "amd.com/gpu",
		NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "amd.com/gpu.device-id", Operator: "In", Values: []string{"74a1", "74a9"}}}}}}},
		Env:   []corev1.EnvVar{{Name: "AIM_CACHE_PATH", Value: CacheRoot}, {Name: "AIM_METRIC", Value: "latency"}},
		Scale: Scale{Min: 3, Max: 3},
	}
}

func golden(t *testing.T, name string, in Input) {
	t.Helper()
	got, err := yaml.Marshal(Build(in))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("testdata", name+".yaml")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func TestGoldenFixedReplicas(t *testing.T) {
	in := base()
	golden(t, "fixed-replicas", in)
	p := Build(in).Spec.Predictor
	c := p.Containers[0]
	req, lim := c.Resources.Requests, c.Resources.Limits
	for name, want := range map[string]string{"amd.com/gpu": "2", "cpu": "8", "memory": "64Gi"} {
		if q := req[corev1.ResourceName(name)]; q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("request %s = %s, want %s", name, q.String(), want)
		}
	}
	if q := lim["memory"]; q.Cmp(resource.MustParse("96Gi")) != 0 || lim["amd.com/gpu"] != req["amd.com/gpu"] {
		t.Errorf("limits %v", lim)
	}
	if c.Name != ContainerName || c.Ports[0].ContainerPort != 8000 || c.Ports[0].Name != "http" {
		t.Errorf("container %+v", c)
	}
	if *p.MinReplicas != 3 || p.MaxReplicas != 3 || p.Volumes[0].EmptyDir.Medium != corev1.StorageMediumMemory || c.VolumeMounts[0].MountPath != "/dev/shm" {
		t.Errorf("replicas %d-%d, volumes %+v", *p.MinReplicas, p.MaxReplicas, p.Volumes)
	}
}

func TestGoldenAutoscaling(t *testing.T) {
	in := base()
	in.Scale = Scale{Autoscaled: true, Min: 1, Max: 4}
	in.AutoScaling = &aimv1.AIMServiceAutoScaling{Metrics: []aimv1.AIMServiceMetricSpec{{Type: "PodMetric", PodMetric: &aimv1.AIMServicePodMetricSource{
		Metric: &aimv1.AIMServicePodMetric{Backend: "opentelemetry", MetricNames: []string{"vllm:num_requests_running"}, Query: "vllm:num_requests_running"},
		Target: aimv1.AIMServiceMetricTarget{Type: "AverageValue", AverageValue: "10"}}}}}
	golden(t, "autoscaling", in)
	isvc := Build(in)
	if isvc.Annotations["serving.kserve.io/autoscalerClass"] != "keda" || *isvc.Spec.Predictor.MinReplicas != 1 || isvc.Spec.Predictor.MaxReplicas != 4 {
		t.Errorf("autoscaling %v %+v", isvc.Annotations, isvc.Spec.Predictor.ComponentExtensionSpec)
	}
}

// TestAutoScalingWithoutMetrics: spec.autoScaling with no metrics reaches KServe as autoScaling: {}, as
// aim-engine's convertToKServeAutoScaling writes it; without spec.autoScaling there is none.
func TestAutoScalingWithoutMetrics(t *testing.T) {
	in := base()
	in.Scale = Scale{Autoscaled: true, Min: 1, Max: 4}
	if a := Build(in).Spec.Predictor.AutoScaling; a != nil {
		t.Errorf("no spec.autoScaling: %+v", a)
	}
	in.AutoScaling = &aimv1.AIMServiceAutoScaling{}
	if a := Build(in).Spec.Predictor.AutoScaling; a == nil || len(a.Metrics) != 0 {
		t.Errorf("spec.autoScaling without metrics: %+v, want {}", a)
	}
}

func TestGoldenCachesAndScheduling(t *testing.T) {
	in := base()
	in.Caches = []CacheMount{{ModelID: "Qwen/Qwen3-32B", Volume: "qwen3-32b-cache", PVC: "aimart-qwen3-32b-pvc"}}
	in.Scheduling = &aimv1.AIMSchedulingConfig{Tolerations: []corev1.Toleration{{Key: "amd.com/gpu", Operator: "Exists", Effect: "NoSchedule"}},
		NodeSelector: map[string]string{"pool": "mi300x"}, PriorityClassName: ptr.To("inference")}
	in.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	in.ServiceAccountName = "inference"
	golden(t, "caches-scheduling", in)
	p := Build(in).Spec.Predictor
	if p.Containers[0].VolumeMounts[1].MountPath != "/workspace/cache/Qwen/Qwen3-32B" || p.Volumes[1].PersistentVolumeClaim.ClaimName != "aimart-qwen3-32b-pvc" {
		t.Errorf("cache mount %+v", p.Containers[0].VolumeMounts)
	}
	if len(p.Tolerations) != 1 || p.NodeSelector["pool"] != "mi300x" || p.PriorityClassName != "inference" || p.ServiceAccountName != "inference" {
		t.Errorf("scheduling %+v", p.PodSpec)
	}
}

func TestGoldenCPUOnlyWithOverrides(t *testing.T) {
	in := base()
	in.GPUs, in.NodeAffinity = 0, nil
	in.TemplateResources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("4")}}
	in.ServiceResources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{"memory": resource.MustParse("16Gi")},
		Limits: corev1.ResourceList{"memory": resource.MustParse("16Gi")}}
	golden(t, "cpu-only", in)
	r := Build(in).Spec.Predictor.Containers[0].Resources
	if _, gpu := r.Requests["amd.com/gpu"]; gpu || r.Requests.Cpu().String() != "4" || r.Limits.Memory().String() != "16Gi" {
		t.Errorf("resources %+v", r)
	}
	// The service's resources win over the per-GPU defaults.
	in = base()
	in.ServiceResources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{"memory": resource.MustParse("200Gi")}}
	if got := Build(in).Spec.Predictor.Containers[0].Resources.Limits.Memory().String(); got != "200Gi" {
		t.Errorf("service memory limit %s", got)
	}
}

func TestCacheMountPath(t *testing.T) {
	if got := CacheMountPath("../../etc/passwd"); got != "/workspace/cache/etc/passwd" {
		t.Errorf("path traversal: %s", got)
	}
}

// observeCached reads an InferenceService as the controller does: from its informer's cache, where an object
// the Go type cannot hold stays a map.
func observeCached(obj map[string]any) (Live, error) {
	isvc, err := manager.AsTyped[kservev1beta1.InferenceService](&unstructured.Unstructured{Object: obj})
	if err != nil {
		return Live{}, err
	}
	return Observe(isvc), nil
}

func TestObserveReadsBackWhatBuildMounts(t *testing.T) {
	want := []CacheMount{{ModelID: "Org/Model", Volume: "cache-org-model-abc123", PVC: "pvc-1"}, {ModelID: "Org/Draft", Volume: "cache-org-draft-def456", PVC: "pvc-2"}}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(Build(Input{Name: "s", Namespace: "n", GPUs: 1, Caches: want}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := observeCached(obj)
	if diff := cmp.Diff(want, got.CacheMounts); err != nil || diff != "" || got.Ready {
		t.Errorf("Observe: %v, ready %t (want not ready), cache mounts (and not /dev/shm) (-want +got):\n%s", err, got.Ready, diff)
	}
	obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "PredictorNotReady", "message": "waiting"}}}
	if got, _ := observeCached(obj); got.Ready || got.Reason != "PredictorNotReady" || got.Message != "waiting" {
		t.Errorf("not ready: %+v", got)
	}
	obj["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	if got, _ := observeCached(obj); !got.Ready {
		t.Errorf("ready: %+v", got)
	}
	if got, err := observeCached(map[string]any{"spec": "not an object"}); err == nil || got.CacheMounts != nil {
		t.Errorf("a malformed object gave %+v, %v", got, err)
	}
}

// TestScaleOf: aim-engine's replica rule, the one the InferenceService and the status both follow.
func TestScaleOf(t *testing.T) {
	i32 := func(n int32) *int32 { return &n }
	for _, c := range []struct {
		name string
		spec aimv1.AIMServiceSpec
		want Scale
	}{
		{"nothing set: one replica", aimv1.AIMServiceSpec{}, Scale{Min: 1, Max: 1}},
		{"fixed", aimv1.AIMServiceSpec{Replicas: i32(3)}, Scale{Min: 3, Max: 3}},
		{"fixed at zero", aimv1.AIMServiceSpec{Replicas: i32(0)}, Scale{Min: 0, Max: 0}},
		{"min and max", aimv1.AIMServiceSpec{Replicas: i32(3), MinReplicas: i32(2), MaxReplicas: i32(5)}, Scale{Autoscaled: true, Min: 2, Max: 5}},
		{"max alone: min 1", aimv1.AIMServiceSpec{MaxReplicas: i32(4)}, Scale{Autoscaled: true, Min: 1, Max: 4}},
		{"min alone: max is min", aimv1.AIMServiceSpec{MinReplicas: i32(2)}, Scale{Autoscaled: true, Min: 2, Max: 2}},
		{"autoScaling alone", aimv1.AIMServiceSpec{Replicas: i32(3), AutoScaling: &aimv1.AIMServiceAutoScaling{}}, Scale{Autoscaled: true, Min: 1, Max: 1}},
	} {
		if got := ScaleOf(&c.spec); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestRuntimeStatus(t *testing.T) {
	ready := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	pods := []*corev1.Pod{ready, {Status: corev1.PodStatus{Phase: corev1.PodRunning}}}
	if r := RuntimeStatus(&aimv1.AIMServiceSpec{Replicas: ptr.To[int32](2)}, pods, nil); r.Replicas != "1" || r.CurrentReplicas != 1 || r.DesiredReplicas != 2 {
		t.Errorf("fixed = %+v", r)
	}
	// autoScaling alone makes a service autoscaled, between 1 and 1: shown as a count.
	metricsOnly := &aimv1.AIMServiceSpec{AutoScaling: &aimv1.AIMServiceAutoScaling{}}
	if r := RuntimeStatus(metricsOnly, pods, nil); r.Replicas != "1" || r.MinReplicas != 1 || r.MaxReplicas != 1 {
		t.Errorf("autoScaling alone = %+v", r)
	}
	auto := &aimv1.AIMServiceSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: ptr.To[int32](4)}
	if r := RuntimeStatus(auto, pods, nil); r.Replicas != "1/1 (1-4)" || r.MinReplicas != 1 || r.MaxReplicas != 4 {
		t.Errorf("autoscaled before KEDA made its HPA = %+v", r)
	}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](1), MaxReplicas: 4},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{DesiredReplicas: 3, CurrentReplicas: 2}}
	if r := RuntimeStatus(auto, pods, hpa); r.Replicas != "1/3 (1-4)" || r.DesiredReplicas != 3 {
		t.Errorf("autoscaled with KEDA's HPA = %+v", r)
	}
	if HPAName("chat") != "keda-hpa-chat-predictor" {
		t.Errorf("HPAName = %s", HPAName("chat"))
	}
}
