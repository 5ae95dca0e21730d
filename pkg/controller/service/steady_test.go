package service

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// running is a controller for team/chat settled Running, with a Ready predictor pod, every object as read
// from the API (with a resourceVersion), and a Steady that has seen the InferenceService as applied.
func (f *fixture) running() *Controller {
	f.t.Helper()
	svc := f.service(nil)
	f.change(f.clusterModels, "qwen", nil)
	f.change(f.clusterTemplates, "qwen-mi300x", nil)
	ctl := f.controller()
	pods := newIndexer()
	f.add(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: WorkloadName(svc) + "-predictor-0", Namespace: svc.Namespace,
		Labels: map[string]string{LabelInferenceService: WorkloadName(svc)}}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}})
	ctl.pods = corelisters.NewPodLister(pods)
	f.settle(ctl, cache.MetaObjectToName(svc))
	if got := f.stored().Status.Status; got != aimv1.AIMStatusRunning {
		f.t.Fatalf("the service settled %s, want Running", got)
	}
	return ctl
}

// settle reconciles with ctl until a reconcile writes nothing: the InferenceService applied is stored live and
// Ready, the status written is stored, each as the informers would cache them (decoded, with a new
// resourceVersion).
func (f *fixture) settle(ctl *Controller, key cache.ObjectName) {
	f.t.Helper()
	for range 5 {
		f.aim.ClearActions()
		f.dyn.ClearActions()
		f.status = nil
		if _, err := ctl.reconcile(context.Background(), key); err != nil {
			f.t.Fatal(err)
		}
		writes := f.writes()
		if len(writes) == 0 {
			return
		}
		if slices.Contains(writes, "patch inferenceservices") {
			f.live(kserveReady)
		}
		if f.status != nil {
			f.storeStatus(*f.status)
		}
	}
	f.t.Fatalf("the service did not settle: %v", f.writes())
}

// kserveReady is what KServe makes of a live InferenceService that serves.
func kserveReady(u map[string]any) {
	_ = unstructured.SetNestedSlice(u, []any{map[string]any{"type": "Ready", "status": "True"}}, "status", "conditions")
}

// storeStatus stores the service with status as the informer would cache it after the write: decoded from
// JSON (which keeps condition times to the second), with a new resourceVersion.
func (f *fixture) storeStatus(status aimv1.AIMServiceStatus) {
	f.t.Helper()
	svc := f.stored().DeepCopy()
	svc.Status = status
	data, err := json.Marshal(svc)
	if err != nil {
		f.t.Fatal(err)
	}
	var decoded aimv1.AIMService
	if err := json.Unmarshal(data, &decoded); err != nil {
		f.t.Fatal(err)
	}
	rv, _ := strconv.Atoi(svc.ResourceVersion)
	decoded.ResourceVersion = strconv.Itoa(rv + 1)
	if err := f.services.Update(&decoded); err != nil {
		f.t.Fatal(err)
	}
}

// change stores the object of key in i changed by edit (nil: unchanged), with a new resourceVersion, as the
// informer would hold it after an update.
func (f *fixture) change(i cache.Indexer, key string, edit func(runtime.Object)) {
	f.t.Helper()
	obj, ok, err := i.GetByKey(key)
	if err != nil || !ok {
		f.t.Fatalf("%s is not stored: %v", key, err)
	}
	o := obj.(runtime.Object).DeepCopyObject()
	if edit != nil {
		edit(o)
	}
	m, err := meta.Accessor(o)
	if err != nil {
		f.t.Fatal(err)
	}
	rv, _ := strconv.Atoi(m.GetResourceVersion())
	m.SetResourceVersion(strconv.Itoa(rv + 1))
	if err := i.Update(o); err != nil {
		f.t.Fatal(err)
	}
}

// stored is the service team/chat as the informer holds it.
func (f *fixture) stored() *aimv1.AIMService {
	f.t.Helper()
	obj, ok, err := f.services.GetByKey("team/chat")
	if err != nil || !ok {
		f.t.Fatalf("team/chat is not stored: %v", err)
	}
	return obj.(*aimv1.AIMService)
}

// TestWorkloadInputs: a change of any input of the InferenceService is a change of the workload's inputs, and
// an object without a version makes them unknown.
func TestWorkloadInputs(t *testing.T) {
	// Each of workload's fields is an input: a new one belongs in inputs and in this test.
	if n := reflect.TypeFor[workload]().NumField(); n != 6 {
		t.Fatalf("workload has %d fields; inputs and this test know of 6", n)
	}
	base := func() workload {
		return workload{svc: service(func(s *aimv1.AIMService) { s.ResourceVersion = "5" }),
			model: Model{Name: "qwen", Version: "m@1"}, run: Template{Name: "tpl", Version: "t@1"},
			rc:     runtimeconfig.Resolved{Name: "default", Ref: &aimv1.AIMResolvedReference{Name: "default"}, Version: "rc@1"},
			mounts: []kserve.CacheMount{{ModelID: "Org/Model", Volume: "v", PVC: "p"}}, image: "registry.example/qwen:1"}
	}
	want := base().inputs()
	if want == "" {
		t.Fatal("the inputs of a workload of versioned objects are unknown")
	}
	// A change of any input gives other inputs; an input without a version makes them unknown ("").
	for _, tc := range []struct {
		name    string
		change  func(*workload)
		unknown bool
	}{
		{"the service", func(w *workload) { w.svc.ResourceVersion = "6" }, false},
		{"another service", func(w *workload) { w.svc.UID = "other" }, false},
		{"the model", func(w *workload) { w.model.Version = "m@2" }, false},
		{"the template", func(w *workload) { w.run.Version = "t@2" }, false},
		{"the runtime config", func(w *workload) { w.rc.Version = "rc@2" }, false},
		{"no runtime config", func(w *workload) { w.rc = runtimeconfig.Resolved{Name: "default"} }, false},
		{"the image pulled", func(w *workload) { w.image = "mirror.example/qwen:1" }, false},
		{"a mount's claim", func(w *workload) { w.mounts[0].PVC = "q" }, false},
		{"a mount more", func(w *workload) { w.mounts = append(w.mounts, kserve.CacheMount{ModelID: "Org/Draft"}) }, false},
		{"no mounts", func(w *workload) { w.mounts = nil }, false},
		{"a service without a version", func(w *workload) { w.svc.ResourceVersion = "" }, true},
		{"a model without a version", func(w *workload) { w.model.Version = "" }, true},
		{"a template without a version", func(w *workload) { w.run.Version = "" }, true},
		{"a runtime config without a version", func(w *workload) { w.rc.Version = "" }, true},
	} {
		w := base()
		tc.change(&w)
		got := w.inputs()
		if tc.unknown && got != "" || !tc.unknown && (got == want || got == "") {
			t.Errorf("%s: inputs %q (base %q, unknown wanted: %v)", tc.name, got, want, tc.unknown)
		}
	}
}

// TestSteadyServiceAppliesWhatChanged: a controller that has found the InferenceService steady still applies
// it when the service, its model or its template changes, or when a hand edit changes it.
func TestSteadyServiceAppliesWhatChanged(t *testing.T) {
	f := newFixture(t)
	ctl := f.running()
	key := cache.NewObjectName("team", "chat")
	run := func(what string, want ...string) {
		t.Helper()
		f.aim.ClearActions()
		f.dyn.ClearActions()
		_, err := ctl.reconcile(context.Background(), key)
		f.expect(what, f.writes(), err, want...)
		f.settle(ctl, key)
	}
	run("steady")
	f.change(f.clusterTemplates, "qwen-mi300x", func(o runtime.Object) {
		o.(*aimv1.AIMClusterServiceTemplate).Spec.Env = []corev1.EnvVar{{Name: "FROM_TEMPLATE", Value: "1"}}
	})
	run("template", "patch inferenceservices")
	f.change(f.clusterModels, "qwen", func(o runtime.Object) { o.(*aimv1.AIMClusterModel).Spec.Image = "registry.example/aim/qwen:1.1" })
	run("model", "patch inferenceservices")
	f.change(f.services, "team/chat", func(o runtime.Object) {
		s := o.(*aimv1.AIMService)
		s.Generation, s.Spec.Replicas = 2, ptr.To[int32](2)
	})
	run("service", "update aimservices/status", "patch inferenceservices")
	f.live(func(u map[string]any) {
		kserveReady(u)
		_ = unstructured.SetNestedField(u, int64(7), "spec", "predictor", "minReplicas")
	})
	run("hand edit", "patch inferenceservices")
	run("steady again")
	body := string(f.applied)
	for _, want := range []string{"FROM_TEMPLATE", "registry.example/aim/qwen:1.1", `"minReplicas":2`} {
		if !strings.Contains(body, want) {
			t.Errorf("the last apply lacks %s: %s", want, body)
		}
	}
}
