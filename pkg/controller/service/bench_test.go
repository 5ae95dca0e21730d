package service

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"

	knativeapis "knative.dev/pkg/apis"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
)

// BenchmarkResolveTemplate: selection over a large catalog runs on every reconcile of every service of the model.
func BenchmarkResolveTemplate(b *testing.B) {
	gpus := []string{"MI355X", "MI325X", "MI300X", "MI210"}
	m := model("qwen", "", aimv1.AIMStatusReady, "img")
	var templates []Template
	for i := range 500 {
		t := template(fmt.Sprintf("t-%03d", i), "", "qwen", aimv1.AIMStatusReady, "optimized", gpus[i%len(gpus)])
		t.Spec.Precision = ptr.To([]aimv1.AIMPrecision{"fp8", "fp16", "bf16", "int4"}[i%4])
		templates = append(templates, t)
	}
	svc := service(nil)
	b.ReportAllocs()
	for b.Loop() {
		ResolveTemplate(svc, &m, templates, gpus)
	}
}

// BenchmarkInferenceService: building the desired InferenceService, which every reconcile of a running service does.
func BenchmarkInferenceService(b *testing.B) {
	tpl := cachedTemplate()
	m := model("qwen", "", aimv1.AIMStatusReady, "registry.example/qwen:1")
	svc := service(func(s *aimv1.AIMService) { s.Spec.Replicas = ptr.To[int32](2) })
	mounts := Mounts(readyCache("c", aimv1.AIMTemplateCacheModeShared, aimv1.AIMStatusReady))
	b.ReportAllocs()
	for b.Loop() {
		kserve.Build(InferenceService(svc, m, tpl, runtimeconfig.Resolved{}, mounts))
	}
}

// BenchmarkSteadyState: the whole planning of a resync of a running, unchanged service, which every resync of
// every service costs (issue 23's target: 0.3 ms of CPU): plan, decide that the InferenceService needs no
// apply, derive the status and compare it with the stored one.
func BenchmarkSteadyState(b *testing.B) {
	o := observation(func(s *aimv1.AIMService) { s.Spec.Caching = &aimv1.AIMServiceCaching{Mode: aimv1.AIMCachingModeNever} })
	first := PlanService(o)
	body, _, err := reconcile.PrepareApply(first.ISVC, nil)
	if err != nil || body == nil {
		b.Fatalf("apply body: %v", err)
	}
	var live kservev1beta1.InferenceService
	if err := json.Unmarshal(body, &live); err != nil {
		b.Fatal(err)
	}
	live.Status.Conditions = append(live.Status.Conditions, knativeapis.Condition{Type: "Ready", Status: corev1.ConditionTrue})
	o.ISVC = &live
	o.Pods = []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}}
	svc := o.Service
	settle := func() aimv1.AIMServiceStatus {
		p := PlanService(o)
		if data, _, err := reconcile.PrepareApply(p.ISVC, o.ISVC); err != nil || data != nil {
			b.Fatalf("a steady InferenceService is applied again (%v)", err)
		}
		status := p.finalStatus()
		out := state.Derive(state.Input{Components: p.components(), Previous: svc.Status.Conditions, Status: svc.Status.Status,
			Generation: svc.Generation, Now: time.Now(), ServiceStatuses: true})
		status.Conditions, status.Status = out.Conditions, out.Status
		return status
	}
	svc.Status = settle()
	b.ReportAllocs()
	for b.Loop() {
		if st := settle(); !apiequality.Semantic.DeepEqual(st, svc.Status) {
			b.Fatal("the status of an unchanged service changed")
		}
	}
}

// BenchmarkReconcileSteady: the controller's reconcile of a Running service whose InferenceService is live and
// as applied, and whose stored status is what the controller derives: what a resync of an unchanged service
// costs, short of the informers and the workqueue (issue 23). Such a reconcile must write nothing.
func BenchmarkReconcileSteady(b *testing.B) {
	f := newFixture(b)
	ctl := f.running()
	ctx, key := context.Background(), cache.NewObjectName("team", "chat")
	b.ReportAllocs()
	for b.Loop() {
		requeue, err := ctl.reconcile(ctx, key)
		if err != nil || requeue != 0 {
			b.Fatalf("a steady reconcile: requeue %v, %v", requeue, err)
		}
		if w := f.writes(); len(w) > 0 {
			b.Fatalf("a steady reconcile wrote %v", w)
		}
	}
}
