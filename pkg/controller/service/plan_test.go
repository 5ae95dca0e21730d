package service

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"knative.dev/pkg/apis"
	duckv1 "knative.dev/pkg/apis/duck/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// observation is a service on a Ready model and a Ready template on MI300X nodes, with nothing created yet.
func observation(mutate func(*aimv1.AIMService)) Observation {
	return Observation{
		Service:            service(mutate),
		Models:             []Model{model("qwen", "team", aimv1.AIMStatusReady, "registry.example/aim/qwen:1.0")},
		Templates:          []Template{template("qwen-mi300x", "", "qwen", aimv1.AIMStatusReady, aimv1.AIMProfileTypeOptimized, "MI300X")},
		GPUModels:          []string{"MI300X"},
		NamespacedTemplate: func(string) *aimv1.AIMServiceTemplate { return nil },
		RoutesServed:       true,
	}
}

// summary is what a plan does and reports, in a comparable form: each component's derived state/reason,
// and the writes.
type summary struct {
	Components            map[string]string
	CreateModel, Derived  bool
	ISVC, WorkloadExists  bool
	HTTPRoute, SweepRoute bool
	Endpoint, Routing     bool
}

func summarize(p Plan) summary {
	s := summary{Components: map[string]string{}, CreateModel: p.CreateModel != nil, Derived: p.Derived != nil, ISVC: p.ISVC != nil,
		WorkloadExists: p.WorkloadExists, HTTPRoute: p.HTTPRoute != nil, SweepRoute: p.SweepRoutes,
		Endpoint: p.Status.Endpoint != nil, Routing: p.Status.Routing != nil}
	for _, c := range p.components() {
		st, reason := outcome(c)
		s.Components[c.Name] = string(st) + "/" + reason
	}
	return s
}

// byNewImage makes a service name an image of no model yet (the observation's models then say none).
func byNewImage(s *aimv1.AIMService) {
	s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To("registry.example/aim/new:1.0")}
}

// missingRuntimeConfig is the error of reading a runtime config "gold" that does not exist.
func missingRuntimeConfig() error {
	return apierrors.NewNotFound(schema.GroupResource{Group: "aim.eai.amd.com", Resource: "aimruntimeconfigs"}, "gold")
}

// TestPlanService: the plan of a service, from its observation alone, in the situations a reconcile meets.
func TestPlanService(t *testing.T) {
	routed := func(s *aimv1.AIMService) {
		s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(true), GatewayRef: &aimv1.AIMGatewayParentReference{Name: "gw", Namespace: ptr.To("gateways")}}
	}
	for _, tc := range []struct {
		name string
		obs  func() Observation
		want summary
	}{
		{"a new service: the InferenceService is created, the route swept", func() Observation { return observation(nil) },
			summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Ready/ModelResolved",
				"Template": "Ready/Resolved", "InferenceService": "Progressing/CreatingRuntime", "InferenceServicePods": "Progressing/NoPods"},
				ISVC: true, WorkloadExists: true, SweepRoute: true, Endpoint: true}},
		{"a spec the API would reject: nothing but the error", func() Observation {
			o := observation(nil)
			o.SpecErr = state.NewError(state.InvalidSpec, "InvalidSpec", "spec.replicas: must be positive")
			return o
		}, summary{Components: map[string]string{"InferenceService": "Failed/InvalidSpec"}}},
		{"no runtime config: the children are left as they are", func() Observation {
			o := observation(nil)
			o.RuntimeConfigErr = missingRuntimeConfig()
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Failed/ConfigNotFound", "Model": "Ready/ModelResolved",
			"Template": "Ready/Resolved"}}},
		{"no runtime config for a new model: none is created, as aim-engine applies nothing", func() Observation {
			o := observation(byNewImage)
			o.Models = nil
			o.RuntimeConfigErr = missingRuntimeConfig()
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Failed/ConfigNotFound", "Model": "Pending/CreatingModel",
			"Template": "Pending/AwaitingModel"}}},
		{"a named template the new model will make: the model is created", func() Observation {
			o := observation(func(s *aimv1.AIMService) {
				byNewImage(s)
				s.Spec.Template = &aimv1.AIMServiceTemplateSelector{Name: "made-by-the-new-model"}
			})
			o.Models, o.Templates = nil, nil
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Pending/CreatingModel",
			"Template": "Failed/TemplateNotFound"}, CreateModel: true}},
		{"a named template with overrides, the model not made yet: the template is reported as resolved", func() Observation {
			o := observation(func(s *aimv1.AIMService) {
				byNewImage(s)
				s.Spec.Template = &aimv1.AIMServiceTemplateSelector{Name: "qwen-mi300x"}
				s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
			})
			o.Models = nil
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Pending/CreatingModel",
			"Template": "Ready/Resolved"}, CreateModel: true, SweepRoute: true}},
		{"no runtime config for overrides: no derived template either", func() Observation {
			o := observation(func(s *aimv1.AIMService) {
				s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
			})
			o.RuntimeConfigErr = missingRuntimeConfig()
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Failed/ConfigNotFound", "Model": "Ready/ModelResolved",
			"Template": "Pending/CreatingDerivedTemplate"}}},
		{"KServe not installed: said in the InferenceService's component, the route still planned", func() Observation {
			o := observation(routed)
			o.ISVCErr = state.NewError(state.Infrastructure, "KServeNotInstalled", "no KServe")
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Ready/ModelResolved",
			"Template": "Ready/Resolved", "InferenceService": "Degraded/KServeNotInstalled", "HTTPRoute": "Progressing/HTTPRouteCreating"},
			HTTPRoute: true, SweepRoute: true, Routing: true}},
		{"overrides: a derived template to create first", func() Observation {
			return observation(func(s *aimv1.AIMService) {
				s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
			})
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Ready/ModelResolved",
			"Template": "Pending/CreatingDerivedTemplate"}, Derived: true, SweepRoute: true, Endpoint: false}},
		{"the model does not exist: one is created from the image", func() Observation {
			o := observation(byNewImage)
			o.Models = nil
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Pending/CreatingModel",
			"Template": "Pending/AwaitingModel"}, CreateModel: true, SweepRoute: true}},
		{"the Gateway API is not served: the route fails alone", func() Observation {
			o := observation(routed)
			o.RoutesServed = false
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Ready/ModelResolved",
			"Template": "Ready/Resolved", "InferenceService": "Progressing/CreatingRuntime",
			"InferenceServicePods": "Progressing/NoPods", "HTTPRoute": "Degraded/GatewayAPINotInstalled"},
			ISVC: true, WorkloadExists: true, Endpoint: true}},
		{"the model is gone while its InferenceService runs: said in ModelReady, the children kept as they are", func() Observation {
			o := observation(nil)
			o.Models = nil
			o.ISVC = &kservev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team", UID: "isvc-uid"}}
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Failed/ModelNotFound",
			"Template": "Pending/AwaitingModel", "InferenceService": "Progressing/CreatingRuntime",
			"InferenceServicePods": "Progressing/NoPods"}, WorkloadExists: true, Endpoint: true}},
		{"the model does not exist: no route is applied, as aim-engine applies nothing", func() Observation {
			o := observation(routed)
			o.Models = nil
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Failed/ModelNotFound",
			"Template": "Pending/AwaitingModel"}}},
		{"the model is not Ready: nothing is created, as aim-engine waits for it", func() Observation {
			o := observation(nil)
			o.Models[0].Status = aimv1.AIMStatusProgressing
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Pending/ModelNotReady",
			"Template": "Ready/Resolved", "InferenceService": "Progressing/CreatingRuntime"}, SweepRoute: true}},
		{"the model is not Ready while its InferenceService runs: kept up to date", func() Observation {
			o := observation(nil)
			o.Models[0].Status = aimv1.AIMStatusDegraded
			o.ISVC = &kservev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team", UID: "isvc-uid"}}
			return o
		}, summary{Components: map[string]string{"RuntimeConfig": "Ready/DefaultConfigNotFound", "Model": "Failed/ModelNotReady",
			"Template": "Ready/Resolved", "InferenceService": "Progressing/CreatingRuntime",
			"InferenceServicePods": "Progressing/NoPods"}, ISVC: true, WorkloadExists: true, SweepRoute: true, Endpoint: true}},
	} {
		got := summarize(PlanService(tc.obs()))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestPlanServiceKeepsTheLastRuntimeConfig: a runtime config that cannot be read leaves status.resolvedRuntimeConfig
// as last resolved, as on every kind; one that resolves is recorded.
func TestPlanServiceKeepsTheLastRuntimeConfig(t *testing.T) {
	o := observation(func(s *aimv1.AIMService) {
		s.Status.ResolvedRuntimeConfig = &aimv1.AIMResolvedReference{Name: "gold", Namespace: "team", Kind: "AIMRuntimeConfig"}
	})
	o.RuntimeConfigErr = missingRuntimeConfig()
	if got := PlanService(o).Status.ResolvedRuntimeConfig; got == nil || got.Name != "gold" {
		t.Errorf("resolvedRuntimeConfig %+v, want gold kept", got)
	}
	o.RuntimeConfigErr, o.RuntimeConfig.Ref = nil, &aimv1.AIMResolvedReference{Name: "silver", Namespace: "team", Kind: "AIMRuntimeConfig"}
	if got := PlanService(o).Status.ResolvedRuntimeConfig; got == nil || got.Name != "silver" {
		t.Errorf("resolvedRuntimeConfig %+v, want silver", got)
	}
}

// TestPlanServiceSaysWhyTheModelWaits: a model held back for the runtime config is not said to be created.
func TestPlanServiceSaysWhyTheModelWaits(t *testing.T) {
	o := observation(byNewImage)
	o.Models = nil
	o.RuntimeConfigErr = missingRuntimeConfig()
	p := PlanService(o)
	i := slices.IndexFunc(p.components(), func(c state.Component) bool { return c.Name == ComponentModel })
	if i < 0 || p.CreateModel != nil || !strings.Contains(p.components()[i].Message, "is created once the runtime config resolves") {
		t.Errorf("model component %+v, create %v", p.components(), p.CreateModel != nil)
	}
}

// TestPlanServiceSaysWhyTheDerivedTemplateWaits: a derived template held back with the other children is not
// said to be created.
func TestPlanServiceSaysWhyTheDerivedTemplateWaits(t *testing.T) {
	overrides := func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
	}
	for _, tc := range []struct {
		name string
		o    func() Observation
		want string
	}{
		{"being created", func() Observation { return observation(overrides) }, "creating AIMServiceTemplate "},
		{"no runtime config", func() Observation {
			o := observation(overrides)
			o.RuntimeConfigErr = missingRuntimeConfig()
			return o
		}, "for spec.overrides is created once the runtime config resolves"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PlanService(tc.o())
			i := slices.IndexFunc(p.components(), func(c state.Component) bool { return c.Name == ComponentTemplate })
			if i < 0 || p.components()[i].Reason != ReasonCreatingDerivedTemplate || !strings.Contains(p.components()[i].Message, tc.want) {
				t.Errorf("template component %+v, want a message with %q", p.components(), tc.want)
			}
		})
	}
}

// TestPlanServiceDerivedTemplateOfAnother: a derived template's name held by an object the service does not
// own is an error in TemplateReady, and the service neither applies over it nor runs on it.
func TestPlanServiceDerivedTemplateOfAnother(t *testing.T) {
	o := observation(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
	})
	o.NamespacedTemplate = func(name string) *aimv1.AIMServiceTemplate {
		return &aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", UID: "someone-elses"}}
	}
	p := PlanService(o)
	var se *state.Error
	if !errors.As(p.DerivedErr, &se) || se.Reason != "DerivedTemplateConflict" || p.DerivedLive != nil {
		t.Errorf("derived error %v, live %v: want DerivedTemplateConflict and nothing to apply over", p.DerivedErr, p.DerivedLive)
	}
	if got := summarize(p); got.ISVC || got.Components["Template"] != "Failed/DerivedTemplateConflict" {
		t.Errorf("plan %+v: want TemplateReady Failed/DerivedTemplateConflict and no InferenceService", got)
	}
}

// TestPlanServiceKeepsMountsWhileTheCacheIsNotReady: a running InferenceService keeps the volumes its pods
// run from while its cache is briefly not Ready.
func TestPlanServiceKeepsMountsWhileTheCacheIsNotReady(t *testing.T) {
	o := observation(func(s *aimv1.AIMService) { s.Spec.Caching = &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeShared} })
	o.Templates[0].Status.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/qwen", SourceURI: "hf://org/qwen"}}
	o.ISVC = &kservev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: WorkloadName(o.Service), Namespace: "team",
		Labels: map[string]string{aimv1.LabelTemplate: "qwen-mi300x"}}}
	p := PlanService(o)
	if p.CreateCache == nil || p.ISVC == nil || !p.WorkloadExists {
		t.Fatalf("cache %v, InferenceService %v: want the cache created and the live InferenceService kept up to date", p.CreateCache, p.ISVC)
	}
	if _, reason := outcome(p.Components[len(p.Components)-1]); reason != "CacheCreating" {
		t.Errorf("cache component reason %q", reason)
	}

	// An InferenceService running on another template (spec.template.name added, another selected), whose new
	// template's cache is still to be made: no cache was lost.
	moving := kserve.Build(InferenceService(o.Service, o.Models[0], template("qwen-old", "", "qwen", aimv1.AIMStatusReady, aimv1.AIMProfileTypeOptimized, "MI300X"),
		o.RuntimeConfig, []kserve.CacheMount{{ModelID: "org/qwen", Volume: "cache-qwen", PVC: "pvc-old"}}))
	o.ISVC = moving
	if p := PlanService(o); p.CreateCache == nil {
		t.Error("moving to a template whose cache is not made: no cache created")
	} else if _, reason := outcome(p.Components[len(p.Components)-1]); reason != "CacheCreating" {
		t.Errorf("moving: cache component reason %q, want CacheCreating (nothing was lost)", reason)
	}

	// The cache goes away under a running InferenceService that mounts its volumes: CacheLost (Shared) or a
	// Dedicated cache being recreated, Degraded, as aim-engine says it; the cache is created again.
	mounted := kserve.Build(InferenceService(o.Service, o.Models[0], o.Templates[0], o.RuntimeConfig,
		[]kserve.CacheMount{{ModelID: "org/qwen", Volume: "cache-qwen", PVC: "pvc-qwen"}}))
	o.ISVC = mounted
	for mode, want := range map[aimv1.AIMCachingMode]string{aimv1.AIMCachingModeShared: "Degraded/CacheLost",
		aimv1.AIMCachingModeDedicated: "Degraded/CacheCreating"} {
		o.Service.Spec.Caching.Mode = mode
		p := PlanService(o)
		st, reason := outcome(p.Components[len(p.Components)-1])
		if got := string(st) + "/" + reason; got != want || p.CreateCache == nil {
			t.Errorf("%s cache gone under a running service: %s (create %v), want %s", mode, got, p.CreateCache != nil, want)
		}
	}
}

// TestHPAComponent: only an autoscaled service has an HPA component (its rules: health.Autoscaler).
func TestHPAComponent(t *testing.T) {
	if c := HPAComponent(service(nil), nil, true); c != nil {
		t.Errorf("a service without autoscaling has an HPA component: %+v", c)
	}
	autoscaled := service(func(s *aimv1.AIMService) { s.Spec.MinReplicas, s.Spec.MaxReplicas = ptr.To[int32](1), ptr.To[int32](4) })
	if c := HPAComponent(autoscaled, nil, true); c == nil || c.Name != ComponentHPA || c.Reason != health.ReasonHPANotFound {
		t.Errorf("an autoscaled service without its HPA: %+v", c)
	}
}

// TestPlanServiceReadsNoAutoscalerWithoutItsInferenceService: KEDA's HPA left by a deleted InferenceService, still
// scaling until the garbage collector removes it, is not the service's: HPANotFound, as aim-engine reads it only
// for a live InferenceService, and the runtime status counts no replicas of it.
func TestPlanServiceReadsNoAutoscalerWithoutItsInferenceService(t *testing.T) {
	o := observation(func(s *aimv1.AIMService) { s.Spec.MinReplicas, s.Spec.MaxReplicas = ptr.To[int32](1), ptr.To[int32](4) })
	o.HPA = &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: kserve.HPAName(WorkloadName(o.Service)), Namespace: "team"},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 3, DesiredReplicas: 3, Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionTrue}, {Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue}}}}
	p := PlanService(o)
	if p.HPA == nil || p.HPA.Reason != health.ReasonHPANotFound {
		t.Errorf("HPA component without the InferenceService: %+v, want %s", p.HPA, health.ReasonHPANotFound)
	}
	if rt := p.Status.Runtime; rt != nil && rt.CurrentReplicas != 0 {
		t.Errorf("runtime status counts the replicas of an autoscaler without its InferenceService: %+v", rt)
	}
}

// derivedOf is a template derived for the service of UID svc-uid, as the service controller applies it.
func derivedOf(name string) *aimv1.AIMServiceTemplate {
	return &aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", UID: types.UID(name + "-uid"),
		Labels:          map[string]string{aimv1.LabelOrigin: aimv1.OriginDerived, aimv1.LabelManagedBy: aimv1.ManagedByValue},
		OwnerReferences: []metav1.OwnerReference{{Kind: "AIMService", Name: "chat", UID: "svc-uid", Controller: ptr.To(true)}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: FieldManager, Operation: metav1.ManagedFieldsOperationApply}}}}
}

// TestPlanServiceDeletesStaleDerivedTemplates: the service's derived templates other than the one it runs on
// (overrides removed, or derived from an earlier base) are stale once its InferenceService is planned on its
// template; not while the children are held back, nor while the template it is to run on is being made.
func TestPlanServiceDeletesStaleDerivedTemplates(t *testing.T) {
	withOverrides := func(o *Observation) {
		o.Service.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Observation)
		stale []string
	}{
		{"overrides removed", func(*Observation) {}, []string{"qwen-mi300x-ovr-0a1b2c3d"}},
		{"another service's derived template", func(o *Observation) { o.DerivedTemplates[0].OwnerReferences[0].UID = "other" }, nil},
		{"a user's copy of one", func(o *Observation) { o.DerivedTemplates[0].ManagedFields = nil }, nil},
		{"runtime config missing", func(o *Observation) { o.RuntimeConfigErr = missingRuntimeConfig() }, nil},
		{"another service names it in spec.template.name", func(o *Observation) {
			o.UsedElsewhere = func(template string) bool { return template == "qwen-mi300x-ovr-0a1b2c3d" }
		}, nil},
		{"the template to run on is being made", withOverrides, nil},
		{"running on the template derived now", func(o *Observation) {
			withOverrides(o)
			current := derivedOf(PlanService(*o).Derived.Name)
			current.Spec.ModelName = "qwen"
			current.Status.Status = aimv1.AIMStatusReady
			o.NamespacedTemplate = func(name string) *aimv1.AIMServiceTemplate {
				if name == current.Name {
					return current
				}
				return nil
			}
			o.DerivedTemplates = append(o.DerivedTemplates, current)
		}, []string{"qwen-mi300x-ovr-0a1b2c3d"}},
	} {
		o := observation(func(s *aimv1.AIMService) { s.UID = "svc-uid" })
		o.DerivedTemplates = []*aimv1.AIMServiceTemplate{derivedOf("qwen-mi300x-ovr-0a1b2c3d")}
		tc.edit(&o)
		p := PlanService(o)
		var got []string
		for _, d := range p.StaleDerived {
			got = append(got, d.Name)
		}
		if !slices.Equal(got, tc.stale) {
			t.Errorf("%s: stale derived templates %v, want %v", tc.name, got, tc.stale)
		}
	}
}

// TestStaleDerivedCaches: the Shared caches the service controller made for a stale derived template go with it;
// its Dedicated cache (deleteStaleWorkload's), a user's cache and another template's stay; the service's Shared
// caches of a template that is gone go too.
func TestStaleDerivedCaches(t *testing.T) {
	o := observation(func(s *aimv1.AIMService) { s.UID = "svc-uid" })
	o.DerivedTemplates = []*aimv1.AIMServiceTemplate{derivedOf("old-ovr-1"), derivedOf("current-ovr-2")}
	madeBy := map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue, aimv1.LabelService: "chat"}
	cache := func(name, template string, mode aimv1.AIMTemplateCacheMode, labels map[string]string) *aimv1.AIMTemplateCache {
		return &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", Labels: labels},
			Spec: aimv1.AIMTemplateCacheSpec{TemplateName: template, TemplateScope: aimv1.AIMTemplateScopeNamespace, Mode: mode}}
	}
	o.Caches = []*aimv1.AIMTemplateCache{cache("old-shared", "old-ovr-1", aimv1.AIMTemplateCacheModeShared, madeBy),
		cache("old-dedicated", "old-ovr-1", aimv1.AIMTemplateCacheModeDedicated, madeBy),
		cache("old-by-hand", "old-ovr-1", aimv1.AIMTemplateCacheModeShared, nil),
		cache("current-shared", "current-ovr-2", aimv1.AIMTemplateCacheModeShared, madeBy)}
	stale, caches := staleDerived(o, "current-ovr-2")
	if len(stale) != 1 || stale[0].Name != "old-ovr-1" || len(caches) != 1 || caches[0].Name != "old-shared" {
		t.Errorf("stale templates %v, caches %v; want old-ovr-1 and its shared cache old-shared", stale, caches)
	}
	// A model's template its new image no longer lists is deleted by the model: the service's Shared cache of it
	// fails for good, and goes too; another service's cache of it is that service's to clean.
	o.DerivedTemplates = nil
	o.TemplateGone = func(_ aimv1.AIMTemplateScope, name string) bool { return name == "qwen-0-8-mi300x" }
	gone := cache("gone-shared", "qwen-0-8-mi300x", aimv1.AIMTemplateCacheModeShared, madeBy)
	others := cache("others", "qwen-0-8-mi300x", aimv1.AIMTemplateCacheModeShared, map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue, aimv1.LabelService: "other"})
	o.Caches = []*aimv1.AIMTemplateCache{gone, others, cache("current", "current-ovr-2", aimv1.AIMTemplateCacheModeShared, madeBy)}
	if _, caches := staleDerived(o, "current-ovr-2"); len(caches) != 1 || caches[0].Name != "gone-shared" {
		t.Errorf("caches of a template that is gone: %v, want gone-shared", caches)
	}
}

// TestPlanServiceLabelsTheModelItCreates: a model made for model.image carries the service's aim.eai.amd.com/
// labels and framework label, as aim-engine propagates them to every child.
func TestPlanServiceLabelsTheModelItCreates(t *testing.T) {
	o := observation(func(s *aimv1.AIMService) {
		s.Labels = map[string]string{"aim.eai.amd.com/team": "search", "unrelated": "x"}
		byNewImage(s)
	})
	o.Models = nil
	p := PlanService(o)
	if p.CreateModel == nil {
		t.Fatal("no model to create")
	}
	l := p.CreateModel.Labels
	if l["aim.eai.amd.com/team"] != "search" || l["aim.eai.amd.com/service.name"] != "chat" || l["unrelated"] != "" ||
		l[aimv1.LabelOrigin] != aimv1.OriginAutoGenerated {
		t.Errorf("labels of the created model: %v", l)
	}
}

// TestPlanServiceRewritesTheImage: with rewriteImages on, the InferenceService runs the image as the first mirror
// that pulls it names it; off, as the model names it.
func TestPlanServiceRewritesTheImage(t *testing.T) {
	image := func(p Plan) string { return p.ISVC.Spec.Predictor.Containers[0].Image }
	o := observation(nil)
	if got := image(PlanService(o)); got != "registry.example/aim/qwen:1.0" {
		t.Errorf("without mirrors: %s", got)
	}
	for rewrite, want := range map[bool]string{true: "mirror.example/proxy/aim/qwen:1.0", false: "registry.example/aim/qwen:1.0"} {
		cfg, err := mirrors.Parse(fmt.Appendf(nil, "rewriteImages: %t\nregistries: {registry.example: {mirrors: [{endpoint: \"https://mirror.example/proxy\"}]}}", rewrite))
		if err != nil {
			t.Fatal(err)
		}
		o.Mirrors = cfg
		p := PlanService(o)
		if got := image(p); got != want {
			t.Errorf("rewriteImages %t: %s, want %s", rewrite, got, want)
		}
		// The InferenceService's condition says which image the predictor pulls when it is rewritten.
		if msg := p.Workload[0].Message; strings.Contains(msg, "mirror.example") != rewrite {
			t.Errorf("rewriteImages %t: InferenceServiceReady message %q", rewrite, msg)
		}
	}
}

// TestPlanServiceCacheConflictCreatesNothing: a cache name held by another template's cache fails the service
// and creates no InferenceService, which would run without its cache's volumes.
func TestPlanServiceCacheConflictCreatesNothing(t *testing.T) {
	o := observation(nil)
	o.Templates[0].Status.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/qwen", SourceURI: "hf://org/qwen"}}
	want := PlanCache(o.Service, o.Templates[0], nil, o.RuntimeConfig).Create
	other := want.DeepCopy()
	other.Spec.TemplateName = "another-template"
	o.Caches = []*aimv1.AIMTemplateCache{other}
	p := PlanService(o)
	if got := summarize(p); got.ISVC || got.WorkloadExists || got.Components["Cache"] != "Failed/CacheConflict" {
		t.Errorf("plan %+v: want CacheReady Failed/CacheConflict and no InferenceService", got)
	}
}

// TestPlanServiceEndpointAndRoutingFollowTheLiveObjects: the endpoint is the address KServe reports; a route that
// cannot be applied (its live object unreadable as an HTTPRoute here) keeps serving its path, which status.routing and
// the endpoint go on showing; with no route, the endpoint has no path, also one kept from a failed apply.
func TestPlanServiceEndpointAndRoutingFollowTheLiveObjects(t *testing.T) {
	o := observation(func(s *aimv1.AIMService) {
		s.Spec.Routing = &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(true), GatewayRef: &aimv1.AIMGatewayParentReference{Name: "gw", Namespace: ptr.To("gateways")}}
		s.Status.Routing = &aimv1.AIMServiceRoutingStatus{Path: "/before"}
	})
	o.ISVC = &kservev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Name: WorkloadName(o.Service), Namespace: "team"}}
	const address = "http://chat-e201fbda-predictor.team.svc.corp.example"
	o.ISVC.Status.Address = &duckv1.Addressable{URL: &apis.URL{Scheme: "http", Host: "chat-e201fbda-predictor.team.svc.corp.example"}}
	o.RouteObject, o.RouteErr = &metav1.ObjectMeta{Name: RouteName(o.Service), Namespace: "team"}, errors.New("cannot decode the HTTPRoute")
	plan := PlanService(o)
	st := plan.finalStatus()
	if st.Endpoint == nil || st.Endpoint.Internal != address || st.Endpoint.Path != "/before" || st.Routing == nil || st.Routing.Path != "/before" {
		t.Errorf("endpoint %+v, routing %+v: want %s with the path the live route serves, /before", st.Endpoint, st.Routing, address)
	}
	p := Plan{Status: aimv1.AIMServiceStatus{Endpoint: &aimv1.AIMServiceEndpoint{Internal: address, Path: "/before"}}}
	if st := p.finalStatus(); st.Endpoint.Path != "" {
		t.Errorf("endpoint %+v without routing: want no path", st.Endpoint)
	}
}

// TestPlanServiceDeletesTheRouteOnceRoutingIsOff: with routing off, the route of the service's name is planned
// for deletion only when the service controls it (the act applies reconcile.DeleteStale's rule on top).
func TestPlanServiceDeletesTheRouteOnceRoutingIsOff(t *testing.T) {
	o := observation(nil)
	owned := &metav1.ObjectMeta{Name: RouteName(o.Service), Namespace: "team",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(o.Service, aimv1.SchemeGroupVersion.WithKind("AIMService"))}}
	o.RouteObject = owned
	if p := PlanService(o); !p.DeleteRoute || p.HTTPRoute != nil {
		t.Errorf("routing off, the service's route: delete %v, apply %v", p.DeleteRoute, p.HTTPRoute != nil)
	}
	o.RouteObject = &metav1.ObjectMeta{Name: RouteName(o.Service), Namespace: "team"}
	if p := PlanService(o); p.DeleteRoute {
		t.Error("routing off: a route of the name the service does not own is deleted")
	}
}

// TestPlanServiceKeepsWhatItResolved: as aim-engine, a running service stays on the template in
// status.resolvedTemplate while it is Ready (also when overrides derive from it), and status.resolvedTemplate
// and status.cache are written once Ready and not cleared while the template or cache is prepared again.
func TestPlanServiceKeepsWhatItResolved(t *testing.T) {
	o := observation(nil)
	first := PlanService(o)
	if first.Status.ResolvedTemplate == nil || first.Status.ResolvedTemplate.Name != "qwen-mi300x" {
		t.Fatalf("resolvedTemplate %+v, want qwen-mi300x", first.Status.ResolvedTemplate)
	}
	// A namespaced template, which selection prefers, comes later: the service stays.
	o.Service.Status = first.Status
	o.Templates = append(o.Templates, template("qwen-local", "team", "qwen", aimv1.AIMStatusReady, aimv1.AIMProfileTypeOptimized, "MI300X"))
	if p := PlanService(o); p.Status.ResolvedTemplate.Name != "qwen-mi300x" || p.ISVC == nil {
		t.Errorf("resolvedTemplate %+v (InferenceService %v), want qwen-mi300x kept", p.Status.ResolvedTemplate, p.ISVC != nil)
	}
	// The template is prepared again: the reference stays, the InferenceService is not created anew.
	o.Templates = o.Templates[:1]
	o.Templates[0].Status.Status = aimv1.AIMStatusProgressing
	if p := PlanService(o); p.Status.ResolvedTemplate == nil || p.Status.ResolvedTemplate.Name != "qwen-mi300x" {
		t.Errorf("resolvedTemplate %+v while the template is Progressing, want it kept", p.Status.ResolvedTemplate)
	}

	// With overrides, status.resolvedTemplate names the derived template: its base stays the service's.
	o = observation(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
	})
	o.Service.Status.ResolvedTemplate = &aimv1.AIMResolvedReference{Name: PlanService(o).Derived.Name, Namespace: "team"}
	o.Templates = append(o.Templates, template("qwen-local", "team", "qwen", aimv1.AIMStatusReady, aimv1.AIMProfileTypeOptimized, "MI300X"))
	if p := PlanService(o); p.Derived == nil || p.Derived.Name != o.Service.Status.ResolvedTemplate.Name {
		t.Errorf("derived %v, want %s, the one derived from qwen-mi300x", p.Derived.GetName(), o.Service.Status.ResolvedTemplate.Name)
	}

	// The cache: written once Ready; kept in status while it is not, and then no other cache is stale.
	o = observation(func(s *aimv1.AIMService) {
		s.Spec.Caching = &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeDedicated}
	})
	o.Templates[0].Status.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/qwen", SourceURI: "hf://org/qwen"}}
	c := PlanCache(o.Service, o.Templates[0], nil, o.RuntimeConfig).Create
	c.Status.Status = aimv1.AIMStatusReady
	o.Caches = []*aimv1.AIMTemplateCache{c}
	ready := PlanService(o)
	if ready.CacheInUse != c.Name || ready.Status.Cache == nil || ready.Status.Cache.TemplateCacheRef.Name != c.Name {
		t.Fatalf("cache in use %q, status %+v: want %s", ready.CacheInUse, ready.Status.Cache, c.Name)
	}
	o.Service.Status = ready.Status
	c.Status.Status = aimv1.AIMStatusProgressing
	if p := PlanService(o); p.CacheInUse != "" || p.Status.Cache == nil || p.Status.Cache.TemplateCacheRef.Name != c.Name {
		t.Errorf("cache in use %q, status %+v: want none in use and the status kept", p.CacheInUse, p.Status.Cache)
	}
}

// TestPlanServiceQuotesTheCacheByItsStatus: a cache that is not Ready is quoted by its status alone, not by how
// far its downloads are (their artifacts show that): each step a downloader reports would otherwise rewrite the
// status of every service of the cache. Reasons and states are aim-engine's: only a Failed cache fails the
// service; a Progressing one is CacheNotReady, any other CacheCreating.
func TestPlanServiceQuotesTheCacheByItsStatus(t *testing.T) {
	for _, tc := range []struct {
		cache aimv1.AIMStatus
		want  state.Component
	}{
		{aimv1.AIMStatusProgressing, state.Component{State: aimv1.AIMStatusProgressing, Reason: ReasonCacheNotReady, Message: "is Progressing"}},
		{aimv1.AIMStatusPending, state.Component{State: aimv1.AIMStatusProgressing, Reason: ReasonCacheCreating, Message: "is Pending"}},
		{"", state.Component{State: aimv1.AIMStatusProgressing, Reason: ReasonCacheCreating, Message: "is Pending"}},
		{aimv1.AIMStatusNotAvailable, state.Component{State: aimv1.AIMStatusProgressing, Reason: ReasonCacheCreating, Message: "is NotAvailable"}},
		{aimv1.AIMStatusDegraded, state.Component{State: aimv1.AIMStatusProgressing, Reason: ReasonCacheCreating, Message: "is Degraded"}},
		{aimv1.AIMStatusFailed, state.Component{State: aimv1.AIMStatusFailed, Reason: ReasonCacheFailed, Message: "is Failed"}},
	} {
		o := observation(func(s *aimv1.AIMService) { s.Spec.Caching = &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeShared} })
		o.Templates[0].Status.ModelSources = []aimv1.AIMModelSource{{ModelID: "Org/Draft", SourceURI: "hf://Org/Draft"},
			{ModelID: "Org/Model", SourceURI: "hf://Org/Model"}}
		c := PlanCache(o.Service, o.Templates[0], nil, o.RuntimeConfig).Create
		c.Status = aimv1.AIMTemplateCacheStatus{Status: tc.cache, Artifacts: map[string]aimv1.AIMTemplateCacheArtifactStatus{
			"art-a": {Name: "art-a", Model: "Org/Draft", Status: aimv1.AIMStatusProgressing, PersistentVolumeClaim: "pvc-a"},
			"art-b": {Name: "art-b", Model: "Org/Model", Status: aimv1.AIMStatusPending}}}
		o.Caches = []*aimv1.AIMTemplateCache{c}
		want := tc.want
		want.Name, want.Dependency, want.Message = ComponentCache, state.DependencyDownstream, "AIMTemplateCache "+c.Name+" "+want.Message
		p := PlanService(o)
		i := slices.IndexFunc(p.Components, func(c state.Component) bool { return c.Name == ComponentCache })
		if i < 0 {
			t.Fatalf("cache %q: no cache component in %+v", tc.cache, p.Components)
		}
		if d := cmp.Diff(want, p.Components[i]); d != "" {
			t.Errorf("cache %q: component (-want +got):\n%s", tc.cache, d)
		}
	}
}

// TestPlanServiceAdoptsAimEnginesInferenceServiceAsItIs: an InferenceService aim-engine made (a migration brings
// it) that holds what the service wants is not applied: the apply would change only its managed-by label and
// add the applied-hash annotation, which KServe copies into the predictor's pod template, rolling every predictor
// once after a migration. One that differs in a field the controller sets is applied; ours always follow the
// usual rule.
func TestPlanServiceAdoptsAimEnginesInferenceServiceAsItIs(t *testing.T) {
	o := observation(nil)
	desired := PlanService(o).ISVC
	if desired == nil {
		t.Fatal("no InferenceService planned")
	}
	// As aim-engine made it: its managed-by, an owner reference without blockOwnerDeletion, and what KServe and
	// the API server add.
	made := desired.DeepCopy()
	made.UID, made.ResourceVersion, made.Generation = "isvc-uid", "7", 1
	made.Labels[aimv1.LabelManagedBy] = "aim-engine"
	for i := range made.OwnerReferences {
		made.OwnerReferences[i].BlockOwnerDeletion = nil
	}
	made.Annotations["serving.kserve.io/deploymentMode"] = "RawDeployment"
	made.Status.URL = nil
	o.ISVC = made
	if p := PlanService(o); p.ISVC != nil || !p.WorkloadExists {
		t.Errorf("aim-engine's InferenceService as the service wants it: applied %v (exists %v), want it left alone", p.ISVC != nil, p.WorkloadExists)
	}

	edited := made.DeepCopy()
	edited.Spec.Predictor.Containers[0].Env[0].Value = "edited"
	o.ISVC = edited
	if p := PlanService(o); p.ISVC == nil || p.ISVC.Labels[aimv1.LabelManagedBy] != aimv1.ManagedByValue {
		t.Errorf("aim-engine's InferenceService with a field changed: applied %v, want it applied with aim-apiserver's managed-by", p.ISVC != nil)
	}

	ours := made.DeepCopy()
	ours.Labels[aimv1.LabelManagedBy] = aimv1.ManagedByValue
	o.ISVC = ours
	if p := PlanService(o); p.ISVC == nil {
		t.Error("an InferenceService of ours without the applied hash is not planned (PrepareApply decides whether to send it)")
	}
}

// TestPlanServiceSkipsBuildingASteadyInferenceService: an InferenceService that a reconcile found steady with the
// same inputs is not built again (nothing would be sent); other inputs, or none known, build it.
func TestPlanServiceSkipsBuildingASteadyInferenceService(t *testing.T) {
	o := observation(nil)
	// As read from the API: every input has a version.
	o.Service = o.Service.DeepCopy()
	o.Service.ResourceVersion = "3"
	for i := range o.Models {
		o.Models[i].Version = "model@1"
	}
	for i := range o.Templates {
		o.Templates[i].Version = "template@1"
	}
	first := PlanService(o)
	if first.ISVC == nil || first.ISVCInputs == "" {
		t.Fatalf("planned %v with inputs %q, want an InferenceService and its inputs", first.ISVC != nil, first.ISVCInputs)
	}
	o.ISVC = first.ISVC.DeepCopy()
	o.ISVC.UID, o.ISVC.ResourceVersion = "isvc-uid", "7"
	o.ISVCSteadyInputs = first.ISVCInputs
	if p := PlanService(o); p.ISVC != nil || !p.WorkloadExists || p.ISVCInputs != first.ISVCInputs {
		t.Errorf("steady with the same inputs: built %v, exists %v, inputs %q", p.ISVC != nil, p.WorkloadExists, p.ISVCInputs)
	}
	o.ISVCSteadyInputs = "inputs of an earlier spec"
	if p := PlanService(o); p.ISVC == nil {
		t.Error("steady with other inputs: not built")
	}
}
