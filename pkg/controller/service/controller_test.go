package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	autoscalinglisters "k8s.io/client-go/listers/autoscaling/v2"
	corelisters "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	aimfake "github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/fake"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// fixture is a service controller on fake clients, in the style of sample-controller's tests: the listers
// read indexers the test fills, and the test checks the write actions the clients received.
type fixture struct {
	t        testing.TB
	aim      *aimfake.Clientset
	dyn      *dynamicfake.FakeDynamicClient
	recorder *record.FakeRecorder
	// indexers by the kind of object they hold.
	services, clusterModels, templates, clusterTemplates, caches, isvcs cache.Indexer
	gpus                                                                *gpu.Tracker
	// applied is the body of the last server-side apply of an InferenceService; lives counts the live
	// InferenceServices stored since, each with a resourceVersion of its own.
	applied []byte
	lives   int
	// statusErr, when set, is what the status write returns.
	statusErr error
	// status is the last status written.
	status *aimv1.AIMServiceStatus
}

func newIndexer() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		manager.ControllerIndex: manager.IndexByController})
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{t: t, recorder: record.NewFakeRecorder(100),
		services: newIndexer(), clusterModels: newIndexer(), templates: newIndexer(), clusterTemplates: newIndexer(), caches: newIndexer(), gpus: gpu.NewTracker(),
		isvcs: newIndexer()}
	f.aim = aimfake.NewSimpleClientset() //nolint:staticcheck // the field-managed fake has no schema for AIM kinds
	f.aim.PrependReactor("update", "aimservices", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		if f.statusErr != nil {
			return true, nil, f.statusErr
		}
		obj := a.(clienttesting.UpdateAction).GetObject()
		f.status = obj.(*aimv1.AIMService).Status.DeepCopy()
		return true, obj, nil
	})
	scheme := runtime.NewScheme()
	f.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		kserve.Resource: "InferenceServiceList", gateway.Resource: "HTTPRouteList"})
	f.dyn.PrependReactor("patch", "inferenceservices", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.PatchAction)
		if p.GetPatchType() != types.ApplyPatchType {
			return true, nil, fmt.Errorf("unexpected %s patch", p.GetPatchType())
		}
		f.applied = p.GetPatch()
		u := &unstructured.Unstructured{}
		return true, u, u.UnmarshalJSON(p.GetPatch())
	})

	f.add(f.clusterModels, &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen", UID: "m-uid", Generation: 1},
		Spec:   aimv1.AIMModelSpec{Image: "registry.example/aim/qwen:1.0"},
		Status: aimv1.AIMModelStatus{Status: aimv1.AIMStatusReady, ObservedGeneration: 1}})
	f.add(f.clusterTemplates, &aimv1.AIMClusterServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "qwen-mi300x", UID: "t-uid", Generation: 1},
		Spec: aimv1.AIMClusterServiceTemplateSpec{AIMServiceTemplateSpecCommon: aimv1.AIMServiceTemplateSpecCommon{ModelName: "qwen",
			AIMRuntimeParameters: aimv1.AIMRuntimeParameters{Metric: ptr.To(aimv1.AIMMetric("latency")), Precision: ptr.To(aimv1.AIMPrecision("fp8")),
				Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI300X"}}}}},
		Status: aimv1.AIMServiceTemplateStatus{Status: aimv1.AIMStatusReady, ObservedGeneration: 1, HardwareSummary: "1 x MI300X",
			ResolvedHardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: "MI300X"}},
			Profile: &aimv1.AIMProfile{Metadata: aimv1.AIMProfileMetadata{Engine: "vllm", GPU: "MI300X", Precision: "fp8", GPUCount: 1,
				Metric: "latency", Type: aimv1.AIMProfileTypeOptimized}}}})
	f.gpus.Handler().OnAdd(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-1", Labels: map[string]string{"amd.com/gpu.device-id": "74a1"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{"amd.com/gpu": resource.MustParse("8")}}}, true)
	return f
}

func (f *fixture) add(i cache.Indexer, obj any) {
	f.t.Helper()
	if err := i.Add(obj); err != nil {
		f.t.Fatal(err)
	}
}

// service is an AIMService that already holds the controller's finalizer.
func (f *fixture) service(mutate func(*aimv1.AIMService)) *aimv1.AIMService {
	s := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team", UID: "svc-uid", Generation: 1,
		Finalizers: []string{FinalizerCacheCleanup}},
		Spec: aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: ptr.To("qwen")}, Caching: &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeNever}}}
	if mutate != nil {
		mutate(s)
	}
	if err := f.services.Update(s); err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fixture) controller() *Controller {
	empty := newIndexer()
	ctl := &Controller{
		c:        manager.Clients{AIM: f.aim, Dynamic: f.dyn, Recorder: f.recorder},
		services: aimlisters.NewAIMServiceLister(f.services), models: aimlisters.NewAIMModelLister(empty),
		clusterModels: aimlisters.NewAIMClusterModelLister(f.clusterModels), templates: aimlisters.NewAIMServiceTemplateLister(f.templates),
		clusterTemplates: aimlisters.NewAIMClusterServiceTemplateLister(f.clusterTemplates),
		configs:          runtimeconfig.Configs{Namespaced: aimlisters.NewAIMRuntimeConfigLister(empty), Cluster: aimlisters.NewAIMClusterRuntimeConfigLister(empty)},
		caches:           aimlisters.NewAIMTemplateCacheLister(f.caches),
		gpus:             f.gpus, pods: corelisters.NewPodLister(empty),
		hpas:  autoscalinglisters.NewHorizontalPodAutoscalerLister(empty),
		isvcs: manager.ServedOptional(kserve.Resource, f.isvcs), routes: manager.ServedOptional(gateway.Resource, newIndexer()),
	}
	return ctl
}

// run reconciles team/chat once and returns the write actions both clients received.
func (f *fixture) run() ([]string, error) {
	f.aim.ClearActions()
	f.dyn.ClearActions()
	_, err := f.controller().reconcile(context.Background(), cache.NewObjectName("team", "chat"))
	return f.writes(), err
}

// writes are the write actions both clients received since they were last cleared.
func (f *fixture) writes() []string {
	var out []string
	for _, a := range append(f.aim.Actions(), f.dyn.Actions()...) {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		what := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			what += "/" + a.GetSubresource()
		}
		out = append(out, what)
	}
	return out
}

func (f *fixture) expect(what string, got []string, err error, want ...string) {
	f.t.Helper()
	if err != nil {
		f.t.Errorf("%s: reconcile failed: %v", what, err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		f.t.Errorf("%s: actions %v, want %v", what, got, want)
	}
}

// live stores what the last apply sent as the live InferenceService, with the fields the server adds and
// edit's changes.
func (f *fixture) live(edit func(u map[string]any)) {
	f.t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(f.applied); err != nil {
		f.t.Fatal(err)
	}
	u.SetResourceVersion(strconv.Itoa(7 + f.lives))
	f.lives++
	u.SetUID("isvc-uid")
	if edit != nil {
		edit(u.Object)
	}
	// The informer caches InferenceServices as their Go type (manager.CacheTyped).
	typed := &kservev1beta1.InferenceService{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		f.t.Fatal(err)
	}
	if err := f.isvcs.Update(typed); err != nil {
		f.t.Fatal(err)
	}
}

// TestReconcileActions: the writes one reconcile makes for a new service, a service whose children are as
// applied, a changed spec, a hand edit, and a status write that meets a conflict.
func TestReconcileActions(t *testing.T) {
	f := newFixture(t)
	// A new service gets the finalizer first (aim-engine's), in a reconcile of its own.
	f.service(func(s *aimv1.AIMService) { s.Finalizers = nil })
	got, err := f.run()
	f.expect("finalizer", got, err, "patch aimservices")
	svc := f.service(nil)

	// Create: the InferenceService is applied and the status written, nothing else.
	got, err = f.run()
	f.expect("create", got, err, "update aimservices/status", "patch inferenceservices")
	var body map[string]any
	if err := json.Unmarshal(f.applied, &body); err != nil {
		t.Fatal(err)
	}
	if _, ok := body["status"]; ok {
		t.Errorf("the apply sends a status (the server drops it; every later comparison would see drift): %s", f.applied)
	}
	if md := body["metadata"].(map[string]any); md["creationTimestamp"] != nil || md["name"] != WorkloadName(svc) {
		t.Errorf("apply metadata: %v", md)
	}

	// Steady: the InferenceService is as applied and the stored status is what the controller derives.
	f.live(nil)
	f.service(func(s *aimv1.AIMService) { s.Status = f.lastStatus() })
	got, err = f.run()
	f.expect("steady", got, err)

	// Update: a spec change reaches the InferenceService.
	f.service(func(s *aimv1.AIMService) {
		s.Generation = 2
		s.Status = f.lastStatus()
		s.Spec.Replicas = ptr.To[int32](3)
	})
	got, err = f.run()
	f.expect("update", got, err, "update aimservices/status", "patch inferenceservices")
	if p, _, _ := unstructured.NestedFieldNoCopy(f.jsonBody(), "spec", "predictor", "minReplicas"); p != float64(3) {
		t.Errorf("after replicas 3 the apply sets minReplicas %v", p)
	}
	f.live(nil)
	f.service(func(s *aimv1.AIMService) {
		s.Generation = 2
		s.Spec.Replicas = ptr.To[int32](3)
		s.Status = f.lastStatus()
	})
	got, err = f.run()
	f.expect("steady after the update", got, err)

	// Drift: a hand edit of a field the controller sets is reverted, with the hash annotation unchanged.
	f.live(func(u map[string]any) {
		_ = unstructured.SetNestedField(u, int64(7), "spec", "predictor", "minReplicas")
	})
	got, err = f.run()
	f.expect("drift", got, err, "patch inferenceservices")
	// A field others own (a default, a webhook, KServe's status) is not drift.
	f.live(func(u map[string]any) {
		_ = unstructured.SetNestedField(u, "kserve-defaulted", "spec", "predictor", "serviceAccountName")
		_ = unstructured.SetNestedField(u, "Ready", "status", "modelStatus", "transitionStatus")
	})
	got, err = f.run()
	f.expect("fields of others", got, err)

	// Conflict: the status write meets a newer object; the reconcile ends without an error (the informer
	// brings the newer object, which is reconciled again) and writes nothing more.
	f.service(func(s *aimv1.AIMService) {
		s.Generation = 3
		s.Spec.Replicas = ptr.To[int32](2)
		s.Status = f.lastStatus()
	})
	f.statusErr = apierrors.NewConflict(aimv1.Resource("aimservices"), "chat", fmt.Errorf("the object has been modified"))
	got, err = f.run()
	f.expect("conflict", got, err, "update aimservices/status", "patch inferenceservices")
}

// TestReconcileDeletesDerivedTemplatesOnceOverridesGo: a service whose overrides were removed runs on its base
// template; once its InferenceService is applied on it, the template derived for the overrides goes, with the
// Shared cache the service made for it, each with an Event; a template of the service's it did not make stays.
func TestReconcileDeletesDerivedTemplatesOnceOverridesGo(t *testing.T) {
	f := newFixture(t)
	f.service(nil)
	track := func(i cache.Indexer, obj runtime.Object) {
		f.add(i, obj)
		if err := f.aim.Tracker().Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	derived := derivedOf("qwen-mi300x-ovr-0a1b2c3d")
	copied := derivedOf("copied-by-hand")
	copied.ManagedFields = nil
	track(f.templates, derived)
	track(f.templates, copied)
	track(f.caches, &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: "qwen-mi300x-ovr-0a1b2c3d-444babd5", Namespace: "team", UID: "c-uid",
		Labels: map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue, aimv1.LabelService: "chat"}},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: derived.Name, TemplateScope: aimv1.AIMTemplateScopeNamespace, Mode: aimv1.AIMTemplateCacheModeShared}})
	got, err := f.run()
	// The AIM client's writes, then the dynamic client's.
	f.expect("overrides removed", got, err, "delete aimservicetemplates", "delete aimtemplatecaches", "update aimservices/status", "patch inferenceservices")
	var events []string
	for len(f.recorder.Events) > 0 {
		events = append(events, <-f.recorder.Events)
	}
	for _, want := range []string{"Normal StaleChildDeleted Deleted AIMServiceTemplate qwen-mi300x-ovr-0a1b2c3d, which is no longer used",
		"Normal StaleChildDeleted Deleted AIMTemplateCache qwen-mi300x-ovr-0a1b2c3d-444babd5, which is no longer used"} {
		if !slices.Contains(events, want) {
			t.Errorf("no event %q in %q", want, events)
		}
	}
}

// TestDeletedServiceCleansTheCacheOfItsDerivedTemplate: a deleted service that ran on its derived template leaves
// no cache of it behind, Ready or not (no other service can run on that template); the finalizer then goes.
func TestDeletedServiceCleansTheCacheOfItsDerivedTemplate(t *testing.T) {
	f := newFixture(t)
	derived := derivedOf("qwen-mi300x-ovr-0a1b2c3d")
	f.add(f.templates, derived)
	c := &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: "qwen-mi300x-ovr-0a1b2c3d-444babd5", Namespace: "team", UID: "c-uid",
		Labels: map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue, aimv1.LabelService: "chat"}},
		Spec:   aimv1.AIMTemplateCacheSpec{TemplateName: derived.Name, TemplateScope: aimv1.AIMTemplateScopeNamespace, Mode: aimv1.AIMTemplateCacheModeShared},
		Status: aimv1.AIMTemplateCacheStatus{Status: aimv1.AIMStatusReady}}
	f.add(f.caches, c)
	if err := f.aim.Tracker().Add(c); err != nil {
		t.Fatal(err)
	}
	f.service(func(s *aimv1.AIMService) {
		s.DeletionTimestamp = ptr.To(metav1.Now())
		s.Status.ResolvedTemplate = &aimv1.AIMResolvedReference{Name: derived.Name, Namespace: "team", Kind: "AIMServiceTemplate"}
	})
	got, err := f.run()
	f.expect("deleted", got, err, "delete aimtemplatecaches", "patch aimservices")
}

// lastStatus is the status of the last status write.
func (f *fixture) lastStatus() aimv1.AIMServiceStatus {
	f.t.Helper()
	if f.status == nil {
		f.t.Fatal("no status was written")
	}
	return *f.status.DeepCopy()
}

func (f *fixture) jsonBody() map[string]any {
	var m map[string]any
	if err := json.Unmarshal(f.applied, &m); err != nil {
		f.t.Fatal(err)
	}
	return m
}

// TestFindModelsByNameListsBothScopes: a namespaced model of the name comes first and the cluster model after
// it, so that a service keeps the Ready cluster model it runs on (stillResolved) when a namespaced model of the
// name appears, as aim-engine keeps its resolvedModel.
func TestFindModelsByNameListsBothScopes(t *testing.T) {
	f := newFixture(t)
	ns := newIndexer()
	f.add(ns, &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen", Namespace: "team", UID: "ns-uid"}, Spec: aimv1.AIMModelSpec{Image: "other:1"}})
	ctl := f.controller()
	ctl.models = aimlisters.NewAIMModelLister(ns)
	svc := f.service(nil)
	found := ctl.findModels(svc)
	if len(found) != 2 || found[0].Namespace != "team" || found[1].Namespace != "" {
		t.Fatalf("found %+v, want the namespaced then the cluster model", found)
	}
	if r := ResolveModel(svc, found); r.Model == nil || r.Model.Namespace != "team" {
		t.Errorf("a new resolution took %+v, want the namespaced model", r.Model)
	}
	svc.Status.ResolvedModel = found[1].Ref()
	if r := ResolveModel(svc, found); r.Model == nil || r.Model.Namespace != "" {
		t.Errorf("the resolved cluster model was not kept: %+v", r.Model)
	}
}

// TestScalingAppliesWithTheSameHash: the service's apply of its InferenceService leaves the scale fields out of
// the applied hash (kserve.ScaleFields), so that a replica change reaches the InferenceService without a new
// annotation, which KServe would copy into the predictor's pod template and so restart every pod.
func TestScalingAppliesWithTheSameHash(t *testing.T) {
	f := newFixture(t)
	f.service(func(s *aimv1.AIMService) { s.Spec.Replicas = ptr.To[int32](1) })
	got, err := f.run()
	f.expect("new service", got, err, "update aimservices/status", "patch inferenceservices")
	hash := func() string {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(f.applied); err != nil {
			t.Fatal(err)
		}
		return u.GetAnnotations()[reconcile.AnnotationAppliedHash]
	}
	first := hash()
	f.live(nil)
	f.service(func(s *aimv1.AIMService) { s.Spec.Replicas = ptr.To[int32](3); s.Generation = 2 })
	if got, err := f.run(); err != nil || !slices.Contains(got, "patch inferenceservices") {
		t.Fatalf("replicas 1 -> 3: actions %v, %v; want the InferenceService applied", got, err)
	}
	if second := hash(); first == "" || second != first {
		t.Errorf("the applied hash moved with the replicas (%q -> %q): the predictor's pods would restart", first, second)
	}
}
