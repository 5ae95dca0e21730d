package service

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/google/go-cmp/cmp"
	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// TestWorkloadAndRouteNames: the names aim-engine 0.2 gives (expected values computed with its algorithm).
func TestWorkloadAndRouteNames(t *testing.T) {
	const longName = "qwen3-32b-chat-assistant-for-the-research-and-development-team"
	const longNamespace = "ml-platform-production-inference"
	for _, tc := range []struct{ name, namespace, isvc, route string }{
		{"chat", "team", "chat-e201fbda", "chat-e201fbda"},
		{"qwen-chat", "team-a", "qwen-chat-e204f50a", "qwen-chat-e204f50a"},
		// The InferenceService's name leaves room for KServe's "-predictor-<namespace>"; the route's does not.
		{longName, "team-a", "qwen3-32b-chat-assistant-for-the-rese-e204f50a", "qwen3-32b-chat-assistant-for-the-research-and-developm-e204f50a"},
		{"qwen-chat", longNamespace, "qwen-chat-d909fb2b", "qwen-chat-d909fb2b"},
		{longName, longNamespace, "qwen3-32b-c-d909fb2b", "qwen3-32b-chat-assistant-for-the-research-and-developm-d909fb2b"},
	} {
		svc := service(func(s *aimv1.AIMService) { s.Name, s.Namespace = tc.name, tc.namespace })
		if got := WorkloadName(svc); got != tc.isvc {
			t.Errorf("WorkloadName(%s/%s) = %q, want %q", tc.namespace, tc.name, got, tc.isvc)
		}
		if got := WorkloadName(svc); len(got)+len(predictorSuffix)+len(svc.Namespace) > 63 {
			t.Errorf("%q does not leave room for KServe's host label", got)
		}
		if got := RouteName(svc); got != tc.route {
			t.Errorf("RouteName(%s/%s) = %q, want %q", tc.namespace, tc.name, got, tc.route)
		}
	}
	// aim-engine creates no InferenceService in a namespace longer than 42 characters; this controller keeps
	// the shortest name it allows.
	long := service(func(s *aimv1.AIMService) { s.Namespace = strings.Repeat("n", 50) })
	if got := WorkloadName(long); got != "c-"+naming.Hash(naming.HashLength, long.Namespace) {
		t.Errorf("WorkloadName in a %d-character namespace = %q", len(long.Namespace), got)
	}
}

func cachedTemplate() Template {
	t := template("tpl", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")
	t.Spec.Env = []corev1.EnvVar{{Name: "A", Value: "template"}, {Name: "B", Value: "template"}}
	t.Status.ModelSources = []aimv1.AIMModelSource{{ModelID: "Org/Model", SourceURI: "hf://Org/Model"}}
	return t
}

func readyCache(name string, mode aimv1.AIMTemplateCacheMode, st aimv1.AIMStatus) *aimv1.AIMTemplateCache {
	return &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team"},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: "tpl", TemplateScope: aimv1.AIMTemplateScopeCluster, Mode: mode},
		Status: aimv1.AIMTemplateCacheStatus{Status: st, Artifacts: map[string]aimv1.AIMTemplateCacheArtifactStatus{
			"art-b": {Name: "art-b", Model: "Org/Model", Status: aimv1.AIMStatusReady, PersistentVolumeClaim: "pvc-b"},
			"art-a": {Name: "art-a", Model: "Org/Draft", Status: aimv1.AIMStatusProgressing, PersistentVolumeClaim: "pvc-a"},
		}}}
}

func TestPlanCache(t *testing.T) {
	tpl := cachedTemplate()
	rc := runtimeconfig.Resolved{Spec: aimv1.AIMRuntimeConfigSpec{Storage: &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("rc-class")}}}

	// The legacy Never is Dedicated, as aim-engine has it: the service's own cache, owned by it.
	never := service(func(s *aimv1.AIMService) { s.Spec.Caching = &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeNever} })
	if p := PlanCache(never, tpl, nil, rc); p.Create == nil || p.Create.Spec.Mode != aimv1.AIMTemplateCacheModeDedicated ||
		len(p.Create.OwnerReferences) != 1 || p.Create.OwnerReferences[0].UID != never.UID {
		t.Errorf("mode Never planned %+v, want the service's Dedicated cache", p.Create)
	}
	if p := PlanCache(service(nil), template("t", "", "qwen", aimv1.AIMStatusReady, "optimized", ""), nil, rc); p.Component != nil {
		t.Errorf("a template without sources planned a cache: %+v", p)
	}

	svc := service(func(s *aimv1.AIMService) { s.Spec.Env = []corev1.EnvVar{{Name: "B", Value: "service"}} })
	p := PlanCache(svc, tpl, nil, rc)
	if p.Create == nil || p.Create.Spec.Mode != aimv1.AIMTemplateCacheModeShared || len(p.Create.OwnerReferences) != 0 ||
		p.Create.Spec.TemplateScope != aimv1.AIMTemplateScopeCluster || p.Create.Spec.StorageClassName != "rc-class" {
		t.Fatalf("shared cache to create = %+v", p.Create)
	}
	if e := p.Create.Spec.Env; len(e) != 2 || e[0].Value != "template" || e[1].Value != "service" {
		t.Errorf("cache env = %+v", e)
	}
	// aim-engine's labels only: aim.eai.amd.com/* labels reach the cache's artifacts and their Jobs, and a Job
	// labelled aim.eai.amd.com/template is a discovery Job to aim-engine (after a rollback, say).
	if l := p.Create.Labels; l[aimv1.LabelService] != svc.Name || l[aimv1.LabelTemplate] != "" {
		t.Errorf("cache labels = %v", l)
	}
	if st, reason := outcome(*p.Component); st != aimv1.AIMStatusProgressing || reason != "CacheCreating" {
		t.Errorf("cache component = %s %s", st, reason)
	}

	// An existing shared cache of the template is used, ready ones first; a dedicated one of another service is not.
	p = PlanCache(svc, tpl, []*aimv1.AIMTemplateCache{readyCache("b-pending", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusProgressing),
		readyCache("z-ready", "", aimv1.AIMStatusReady), readyCache("dedicated", aimv1.AIMTemplateCacheModeDedicated, aimv1.AIMStatusReady)}, rc)
	if p.Create != nil || p.Use == nil || p.Use.Name != "z-ready" {
		t.Fatalf("used %+v, created %+v", p.Use, p.Create)
	}
	if st, _ := outcome(*p.Component); st != aimv1.AIMStatusReady {
		t.Errorf("ready cache component = %s", st)
	}
	if len(p.Mounts) != 1 || p.Mounts[0].PVC != "pvc-b" || p.Mounts[0].ModelID != "Org/Model" || p.Mounts[0].Volume != "art-b" {
		t.Errorf("mounts = %+v (only ready artifacts, each on a volume named after the artifact)", p.Mounts)
	}

	// None Ready: the healthiest, as aim-engine picks it, not the first by name.
	p = PlanCache(svc, tpl, []*aimv1.AIMTemplateCache{readyCache("a-failed", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusFailed),
		readyCache("b-progressing", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusProgressing),
		readyCache("c-pending", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusPending)}, rc)
	if p.Use == nil || p.Use.Name != "b-progressing" {
		t.Errorf("with none ready used %v, want b-progressing", ptr.Deref(p.Use, aimv1.AIMTemplateCache{}).Name)
	}

	downloading := readyCache("z-ready", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusProgressing)
	p = PlanCache(svc, tpl, []*aimv1.AIMTemplateCache{downloading}, rc)
	if st, reason := outcome(*p.Component); st != aimv1.AIMStatusProgressing || reason != "CacheNotReady" ||
		p.Component.Message != "AIMTemplateCache z-ready is Progressing" {
		t.Errorf("downloading cache component = %s %s %q", st, reason, p.Component.Message)
	}

	// Dedicated: the service's own, owned cache.
	ded := service(func(s *aimv1.AIMService) {
		s.Spec.Caching = &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeDedicated}
		s.Spec.Storage = &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("svc-class")}
	})
	p = PlanCache(ded, tpl, []*aimv1.AIMTemplateCache{readyCache("z-ready", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusReady)}, rc)
	if p.Create == nil || p.Create.Spec.Mode != aimv1.AIMTemplateCacheModeDedicated || p.Create.OwnerReferences[0].UID != "svc-uid" ||
		p.Create.Spec.StorageClassName != "svc-class" {
		t.Fatalf("dedicated cache = %+v", p.Create)
	}
	failed := readyCache(p.Create.Name, aimv1.AIMTemplateCacheModeDedicated, aimv1.AIMStatusFailed)
	p = PlanCache(ded, tpl, []*aimv1.AIMTemplateCache{failed}, rc)
	if st, reason := outcome(*p.Component); st != aimv1.AIMStatusFailed || reason != "CacheFailed" {
		t.Errorf("failed cache component = %s %s", st, reason)
	}
}

// TestCacheNamesAreAimEngines: the template caches a service creates and the volumes it mounts are named as
// aim-engine 0.2 names them (expected values computed with its algorithm).
func TestCacheNamesAreAimEngines(t *testing.T) {
	svc := func(mode aimv1.AIMCachingMode) *aimv1.AIMService {
		return service(func(s *aimv1.AIMService) {
			s.Name, s.Namespace, s.UID = "qwen-chat", "team-a", "0b3c9a4e-1f2d-4c5b-9a8e-7d6f5e4c3b2a"
			s.Spec.Caching = &aimv1.AIMServiceCaching{Mode: mode}
		})
	}
	tpl := func(name string) Template {
		t := cachedTemplate()
		t.Name = name
		return t
	}
	const long = "aim-qwen-qwen3-32b-0-8-5-1x-mi300x-lat-fp8-ab12-with-a-long-suffix"
	for _, tc := range []struct {
		mode           aimv1.AIMCachingMode
		template, want string
	}{
		{aimv1.AIMCachingModeShared, "qwen3-32b-mi300x-lat-fp8", "qwen3-32b-mi300x-lat-fp8-e204f50a"},
		{aimv1.AIMCachingModeShared, long, "aim-qwen-qwen3-32b-0-8-5-1x-mi300x-lat-fp8-ab12-with-a-e204f50a"},
		{aimv1.AIMCachingModeDedicated, "qwen3-32b-mi300x-lat-fp8", "qwen3-32b-mi300x-lat-fp8-qwen-chat-a942824e"},
		// The template's name is shortened, the service's is kept.
		{aimv1.AIMCachingModeDedicated, long, "aim-qwen-qwen3-32b-0-8-5-1x-mi300x-lat-fp8-a-qwen-chat-a942824e"},
	} {
		if p := PlanCache(svc(tc.mode), tpl(tc.template), nil, runtimeconfig.Resolved{}); p.Create == nil || p.Create.Name != tc.want {
			t.Errorf("%s cache of %s = %+v, want %s", tc.mode, tc.template, p.Create, tc.want)
		}
	}
	// A namespaced and a cluster template of the same name share aim-engine's shared cache name: the second
	// one's service says so instead of waiting for a cache that cannot be created.
	namespaced := readyCache("qwen3-32b-mi300x-lat-fp8-e204f50a", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusReady)
	namespaced.Spec.TemplateName, namespaced.Spec.TemplateScope = "qwen3-32b-mi300x-lat-fp8", aimv1.AIMTemplateScopeNamespace
	p := PlanCache(svc(aimv1.AIMCachingModeShared), tpl("qwen3-32b-mi300x-lat-fp8"), []*aimv1.AIMTemplateCache{namespaced}, runtimeconfig.Resolved{})
	if st, reason := outcome(*p.Component); p.Create != nil || p.Use != nil || st != aimv1.AIMStatusFailed || reason != ReasonCacheConflict {
		t.Errorf("cache name taken: create %v use %v, component %s %s", p.Create, p.Use, st, reason)
	}

	// The volume of an artifact is its name, dots made dashes.
	c := &aimv1.AIMTemplateCache{Status: aimv1.AIMTemplateCacheStatus{Artifacts: map[string]aimv1.AIMTemplateCacheArtifactStatus{
		"hf---qwen-qwen3-32b-c00b812b59": {Name: "hf---qwen-qwen3-32b-c00b812b59", Model: "Qwen/Qwen3-32B", Status: aimv1.AIMStatusReady, PersistentVolumeClaim: "p1"},
		"models.example":                 {Name: "models.example", Model: "Org/Other", Status: aimv1.AIMStatusReady, PersistentVolumeClaim: "p2"},
	}}}
	if m := Mounts(c); len(m) != 2 || m[0].Volume != "models-example" || m[1].Volume != "hf---qwen-qwen3-32b-c00b812b59" {
		t.Errorf("mounts = %+v", m)
	}
}

func TestEnvironmentAsAimEngineAssemblesIt(t *testing.T) {
	tpl := cachedTemplate()
	tpl.Spec.ProfileID = "prof"
	tpl.Spec.Env = []corev1.EnvVar{{Name: "AIM_METRIC", Value: "throughput"}, {Name: "T", Value: "1"}, {Name: "Z_PATH", Value: "/z"}}
	tpl.Spec.ModelSources = []aimv1.AIMModelSource{{ModelID: "Org/Custom"}}
	// Discovery's profile names neither the env nor, below, anything else: the spec's values are what count.
	tpl.Status.Profile.Metadata.Metric, tpl.Status.Profile.Metadata.Precision = "latency", "bf16"
	rc := runtimeconfig.Resolved{Spec: aimv1.AIMRuntimeConfigSpec{Env: []corev1.EnvVar{
		{Name: "AIM_PRECISION", Value: "rc"}, {Name: "VLLM_ENABLE_METRICS", Value: "false"}, {Name: "AIM_ENGINE_ARGS", Value: `{"a":1,"b":{"c":1}}`}}}}
	svc := service(func(s *aimv1.AIMService) {
		s.Spec.Env = []corev1.EnvVar{{Name: "T", Value: "svc"}, {Name: "AIM_ENGINE_ARGS", Value: `{"b":{"d":2}}`}, {Name: "A", Value: "$(Z_PATH)"}}
	})
	want := []corev1.EnvVar{
		{Name: "A", Value: "$(Z_PATH)"}, // sorted before Z_PATH, so Kubernetes leaves the reference as written
		{Name: "AIM_CACHE_PATH", Value: "/workspace/cache"},
		{Name: "AIM_ENGINE_ARGS", Value: `{"a":1,"b":{"c":1,"d":2}}`},
		{Name: "AIM_METRIC", Value: "throughput"}, // the template's env over its spec's metric
		{Name: "AIM_MODEL_ID", Value: "Org/Custom"},
		{Name: "AIM_PRECISION", Value: "fp8"}, // the template's spec over the runtime config
		{Name: "AIM_PROFILE_ID", Value: "prof"},
		{Name: "T", Value: "svc"},
		{Name: "VLLM_ENABLE_METRICS", Value: "false"}, // the runtime config over the fixed default
		{Name: "Z_PATH", Value: "/z"},
	}
	if diff := cmp.Diff(want, Environment(svc, tpl, rc)); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}

	// A template without metric or precision in its spec gets neither variable, whatever discovery found,
	// and a model's own env and sources reach the pod only through its templates.
	bare := template("bare", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")
	bare.Spec.Metric, bare.Spec.Precision = nil, nil
	bare.Status.Profile.Metadata.Metric, bare.Status.Profile.Metadata.Precision = "throughput", "fp8"
	want = []corev1.EnvVar{{Name: "AIM_CACHE_PATH", Value: "/workspace/cache"}, {Name: "VLLM_ENABLE_METRICS", Value: "true"}}
	if diff := cmp.Diff(want, Environment(service(nil), bare, runtimeconfig.Resolved{})); diff != "" {
		t.Errorf("environment of a template without profile parameters (-want +got):\n%s", diff)
	}
}

func TestInferenceServiceInput(t *testing.T) {
	tpl := cachedTemplate()
	tpl.Status.ResolvedHardware = &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 4, Model: "MI300X", ResourceName: "amd.com/gpu"}}
	tpl.Status.ResolvedNodeAffinity = &corev1.NodeAffinity{}
	tpl.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "tpl"}, {Name: "svc"}}
	tpl.Spec.ServiceAccountName = "tpl-sa"
	tpl.Status.Profile.Metadata.Metric = "Latency" // labelled as discovery found it, sanitized
	m := model("qwen", "", aimv1.AIMStatusReady, "registry.example/qwen:1")
	rc := runtimeconfig.Resolved{Spec: aimv1.AIMRuntimeConfigSpec{Scheduling: &aimv1.AIMSchedulingConfig{NodeSelector: map[string]string{"pool": "gpu"}},
		LabelPropagation: &aimv1.AIMLabelPropagationConfig{Enabled: ptr.To(true), Match: []string{"team"}}}}
	svc := service(func(s *aimv1.AIMService) {
		s.Labels = map[string]string{"team": "a", "other": "x"}
		s.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "svc"}}
		s.Spec.Replicas = ptr.To[int32](3)
	})
	in := InferenceService(svc, m, tpl, rc, nil)
	if in.GPUs != 4 || in.Image != "registry.example/qwen:1" || in.NodeAffinity == nil || in.Scheduling.NodeSelector["pool"] != "gpu" || in.Scale != (kserve.Scale{Min: 3, Max: 3}) {
		t.Errorf("input = %+v", in)
	}
	if len(in.ImagePullSecrets) != 2 || in.ImagePullSecrets[0].Name != "svc" || in.ServiceAccountName != "tpl-sa" {
		t.Errorf("secrets %v, service account %q", in.ImagePullSecrets, in.ServiceAccountName)
	}
	// A derived template holds the service's secrets, until it is applied again the ones before: not read, so that
	// a change of them rolls the predictor once.
	derived := tpl
	derived.Labels = map[string]string{aimv1.LabelOrigin: aimv1.OriginDerived}
	derived.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "before"}}
	if in := InferenceService(svc, m, derived, rc, nil); len(in.ImagePullSecrets) != 1 || in.ImagePullSecrets[0].Name != "svc" {
		t.Errorf("on a derived template holding the service's earlier secrets: %v, want the service's", in.ImagePullSecrets)
	}
	// A model another service made for its model.image holds that service's secrets and account, and its templates
	// copies of them: this service runs with its own only, as aim-engine's predictor does.
	made := m
	made.Labels = map[string]string{aimv1.LabelOrigin: aimv1.OriginAutoGenerated, "aim.eai.amd.com/service.name": "first"}
	made.Spec.ImagePullSecrets, made.Spec.ServiceAccountName = []corev1.LocalObjectReference{{Name: "firsts"}}, "first-sa"
	if in := InferenceService(svc, made, tpl, rc, nil); len(in.ImagePullSecrets) != 1 || in.ImagePullSecrets[0].Name != "svc" || in.ServiceAccountName != "" {
		t.Errorf("on a model made for another service: secrets %v, service account %q; want the service's own", in.ImagePullSecrets, in.ServiceAccountName)
	}
	if in.Labels["team"] != "a" || in.Labels["other"] != "" || in.Labels[aimv1.LabelService] != "chat" || in.Labels[LabelMetric] != "latency" {
		t.Errorf("labels = %v", in.Labels)
	}
	// The spec's precision (fp8) is no label: discovery's profile did not name one.
	if v, ok := in.Labels[LabelPrecision]; ok {
		t.Errorf("precision label %q from the template's spec", v)
	}
	// The model label names the template's model, as aim-engine's: another model's template, named by
	// spec.template, labels the InferenceService with that model, though the service runs its own model's image.
	if in.Labels[aimv1.LabelModel] != "qwen" {
		t.Errorf("model label %q, want the template's model qwen", in.Labels[aimv1.LabelModel])
	}
	other := cachedTemplate()
	other.Spec.ModelName = "llama-8b"
	if got := InferenceService(svc, m, other, rc, nil).Labels[aimv1.LabelModel]; got != "llama-8b" {
		t.Errorf("model label of a template of another model: %q, want llama-8b", got)
	}

	// hardware.cpu of a template places nothing by itself: aim-engine reads only the template's resources
	// (a model writes its custom.hardware.cpu into the resources of the templates it creates).
	cpu := template("cpu", "", "qwen", aimv1.AIMStatusReady, "unoptimized", "")
	cpu.Spec.Hardware = &aimv1.AIMHardwareRequirements{CPU: &aimv1.AIMCpuRequirements{Requests: aimv1.MustParseQuantity("8"), Limits: ptr.To(aimv1.MustParseQuantity("16"))}}
	cpu.Spec.Resources = &aimv1.ResourceRequirements{Requests: aimv1.ResourceList{corev1.ResourceMemory: aimv1.MustParseQuantity("64Gi")}}
	in = InferenceService(service(nil), m, cpu, rc, nil)
	if diff := cmp.Diff(cpu.Spec.Resources.Core(), in.TemplateResources); in.GPUs != 0 || diff != "" {
		t.Errorf("CPU-only template: gpus %d, resources (-want +got):\n%s", in.GPUs, diff)
	}
}

func TestPlanRoute(t *testing.T) {
	gw := &aimv1.AIMGatewayParentReference{Name: "gw"}
	rcOn := runtimeconfig.Resolved{Spec: aimv1.AIMRuntimeConfigSpec{Routing: &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(true), GatewayRef: gw,
		PathTemplate: ptr.To("/{.metadata.namespace}/{.metadata.name}"), Annotations: map[string]string{"a": "rc", "b": "rc"},
		RequestTimeout: &aimv1.Duration{Duration: time.Minute}}}}

	if p := PlanRoute(service(nil), runtimeconfig.Resolved{}); p.Component != nil {
		t.Errorf("routing off planned %+v", p)
	}
	off := service(func(s *aimv1.AIMService) { s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(false)} })
	if p := PlanRoute(off, rcOn); p.Component != nil {
		t.Errorf("the service's enabled=false did not win over the runtime config: %+v", p)
	}

	p := PlanRoute(service(func(s *aimv1.AIMService) {
		s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{Annotations: map[string]string{"b": "svc"}}
	}), rcOn)
	if p.Route == nil || p.Route.Name != "chat-e201fbda" || p.Path != "/team/chat" || p.Route.Backend != "chat-e201fbda-predictor" || p.Route.Timeout.Duration != time.Minute ||
		p.Route.Annotations["a"] != "rc" || p.Route.Annotations["b"] != "svc" {
		t.Fatalf("route = %+v", p.Route)
	}

	noGateway := service(func(s *aimv1.AIMService) { s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(true)} })
	if p := PlanRoute(noGateway, runtimeconfig.Resolved{}); p.Route != nil || p.Component == nil {
		t.Fatalf("no gateway: %+v", p)
	} else if st, reason := outcome(*p.Component); st != aimv1.AIMStatusFailed || reason != "GatewayNotConfigured" {
		t.Errorf("no gateway: %s %s", st, reason)
	}

	broken := service(func(s *aimv1.AIMService) {
		s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{PathTemplate: ptr.To("/{.spec.nope}")}
	})
	if p := PlanRoute(broken, rcOn); p.Route != nil {
		t.Fatalf("broken path template still made a route: %+v", p.Route)
	} else if st, reason := outcome(*p.Component); st != aimv1.AIMStatusDegraded || reason != "PathTemplateInvalid" {
		// The InferenceService serves without its route: Degraded, and the spec error still in ConfigValid.
		t.Errorf("broken template: %s %s", st, reason)
	} else if out := state.Derive(state.Input{Components: []state.Component{{Name: ComponentISVC, Dependency: state.DependencyDownstream}, *p.Component},
		Now: time.Now()}); out.Status != aimv1.AIMStatusDegraded || meta.FindStatusCondition(out.Conditions, state.ConditionConfigValid).Status != metav1.ConditionFalse {
		t.Errorf("a serving service with a broken path template: %s, conditions %+v", out.Status, out.Conditions)
	}

	defaultPath := service(func(s *aimv1.AIMService) {
		s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(true), GatewayRef: gw}
	})
	if p := PlanRoute(defaultPath, runtimeconfig.Resolved{}); p.Path != "/team/svc-uid" {
		t.Errorf("default path = %q", p.Path)
	}
}

func TestRouteComponent(t *testing.T) {
	base := *PlanRoute(service(func(s *aimv1.AIMService) {
		s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(true), GatewayRef: &aimv1.AIMGatewayParentReference{Name: "gw"}}
	}), runtimeconfig.Resolved{}).Component
	if base.Message != "HTTPRoute is being created" {
		t.Errorf("creating: message %q", base.Message)
	}
	// Messages in aim-engine's words (health_fetchers.go:699).
	for _, tc := range []struct {
		a               gateway.Acceptance
		state           aimv1.AIMStatus
		reason, message string
	}{
		{gateway.Acceptance{}, aimv1.AIMStatusProgressing, "HTTPRoutePending", "HTTPRoute is waiting for gateway acceptance"},
		{gateway.Acceptance{Known: true, Accepted: true}, aimv1.AIMStatusReady, "HTTPRouteAccepted", "HTTPRoute is accepted by gateway"},
		{gateway.Acceptance{Known: true, Reason: "NotAllowedByListeners", Message: "no listener"}, aimv1.AIMStatusFailed, "NotAllowedByListeners",
			"HTTPRoute rejected: no listener"},
		// The predictor Service does not exist yet while the service starts: waited for, not Failed.
		{gateway.Acceptance{Known: true, Unresolved: true, Reason: "BackendNotFound", Message: "no svc"}, aimv1.AIMStatusProgressing, "BackendNotFound",
			"HTTPRoute backend not resolved: no svc"},
	} {
		c := RouteComponent(base, tc.a)
		if st, reason := outcome(c); st != tc.state || reason != tc.reason || c.Message != tc.message {
			t.Errorf("%+v: %s %s %q, want %s %s %q", tc.a, st, reason, c.Message, tc.state, tc.reason, tc.message)
		}
		// A rejected route is an invalid spec (ConfigValid=False), as aim-engine classifies it; nothing else is.
		invalid := len(c.Errors) == 1 && state.Categorize(c.Errors[0]) == state.InvalidSpec
		if invalid != (tc.state == aimv1.AIMStatusFailed) || (!invalid && len(c.Errors) > 0) {
			t.Errorf("%+v: errors %v", tc.a, c.Errors)
		}
	}
}

// TestEventsOfTheCurrentObjectOnly: the Warnings of an earlier InferenceService of the same name do not fail the
// current one.
func TestEventsOfTheCurrentObjectOnly(t *testing.T) {
	isvc := &kservev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", UID: "new"}}
	events := []corev1.Event{{Reason: "InternalError", InvolvedObject: corev1.ObjectReference{Name: "chat", UID: "old"}},
		{Reason: "InternalError", InvolvedObject: corev1.ObjectReference{Name: "chat", UID: "new"}}}
	if got := health.EventsOf(isvc, events); len(got) != 1 || got[0].InvolvedObject.UID != "new" {
		t.Errorf("events of the current InferenceService: %+v", got)
	}
}

// TestEndpoint: the URL KServe reports for the InferenceService (the cluster's domain, a headless predictor's
// port), the predictor Service under the default domain until it does.
func TestEndpoint(t *testing.T) {
	if e := Endpoint(service(nil), ""); e.Internal != "http://chat-e201fbda-predictor.team.svc.cluster.local" || e.Path != "" {
		t.Errorf("endpoint before KServe reports an address = %+v", e)
	}
	const reported = "http://chat-e201fbda-predictor.team.svc.corp.example:8080"
	if e := Endpoint(service(nil), reported); e.Internal != reported {
		t.Errorf("endpoint with KServe's address = %+v", e)
	}
}

func TestCachesToClean(t *testing.T) {
	resolved := func(name string, uid string, tmpl string, deleting bool) *aimv1.AIMService {
		s := service(nil)
		s.Name, s.UID = name, types.UID(uid)
		if tmpl != "" {
			s.Status.ResolvedTemplate = &aimv1.AIMResolvedReference{Name: tmpl}
		}
		if deleting {
			s.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return s
	}
	mk := func(name, tmpl string, st aimv1.AIMStatus, mutate func(*aimv1.AIMTemplateCache)) *aimv1.AIMTemplateCache {
		c := &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue}},
			Spec: aimv1.AIMTemplateCacheSpec{TemplateName: tmpl, Mode: aimv1.AIMTemplateCacheModeShared}, Status: aimv1.AIMTemplateCacheStatus{Status: st}}
		if mutate != nil {
			mutate(c)
		}
		return c
	}
	caches := []*aimv1.AIMTemplateCache{
		mk("downloading", "tpl", aimv1.AIMStatusProgressing, nil),
		mk("ready", "tpl", aimv1.AIMStatusReady, nil),
		mk("other-template", "tpl2", aimv1.AIMStatusProgressing, nil),
		mk("users-own", "tpl", aimv1.AIMStatusProgressing, func(c *aimv1.AIMTemplateCache) { c.Labels = nil }),
		// Made by aim-engine's service controller before the migration: its finalizer would delete it too.
		mk("aim-engines", "tpl", aimv1.AIMStatusFailed, func(c *aimv1.AIMTemplateCache) { c.Labels[aimv1.LabelManagedBy] = "aim-service-controller" }),
		mk("helms", "tpl", aimv1.AIMStatusFailed, func(c *aimv1.AIMTemplateCache) { c.Labels[aimv1.LabelManagedBy] = "Helm" }),
		mk("templates-own", "tpl", aimv1.AIMStatusProgressing, func(c *aimv1.AIMTemplateCache) {
			c.OwnerReferences = []metav1.OwnerReference{{Kind: "AIMServiceTemplate", Name: "tpl"}}
		}),
	}
	me := resolved("chat", "1", "tpl", true)
	got := CachesToClean(me, caches, []*aimv1.AIMService{me, resolved("gone-too", "2", "tpl", true), resolved("other", "3", "tpl2", false)}, false)
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if d := cmp.Diff([]string{"downloading", "aim-engines"}, names); d != "" {
		t.Errorf("cleaned caches (-want +got):\n%s", d)
	}
	if got := CachesToClean(me, caches, []*aimv1.AIMService{me, resolved("sibling", "4", "tpl", false)}, true); len(got) != 0 {
		t.Errorf("cleaned %v although another service runs the template", got)
	}
	if got := CachesToClean(resolved("never-resolved", "5", "", true), caches, nil, true); len(got) != 0 {
		t.Errorf("a service that never resolved a template cleaned %v", got)
	}
	// A template no other service can run on (the service's derived one, or one that is gone): its Ready cache goes
	// too, as no next service will find it.
	names = nil
	for _, c := range CachesToClean(me, caches, []*aimv1.AIMService{me}, true) {
		names = append(names, c.Name)
	}
	if d := cmp.Diff([]string{"downloading", "ready", "aim-engines"}, names); d != "" {
		t.Errorf("cleaned caches of an unusable template (-want +got):\n%s", d)
	}
}
