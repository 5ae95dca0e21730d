package service

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/client-go/tools/cache"

	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
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

// BenchmarkReconcileSteady: the controller's reconcile of a Running service whose InferenceService is live and
// as applied, and whose stored status is what the controller derives: what a resync of an unchanged service
// costs, short of the informers and the workqueue (issue 23). Such a reconcile must write nothing.
func BenchmarkReconcileSteady(b *testing.B) {
	f := newFixture(b)
	benchmarkSteady(b, f, f.running())
}

// benchmarkSteady reconciles team/chat with ctl, failing on a requeue, an error or any write.
func benchmarkSteady(b *testing.B, f *fixture, ctl *Controller) {
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

// BenchmarkReconcileSteadyMigrated: BenchmarkReconcileSteady's service with its InferenceService as aim-engine
// left it (a migration brings it): no applied hash, so every reconcile compares it field by field
// (UnchangedSinceAimEngine) until the service first changes. Beside BenchmarkReconcileSteady, what a resync of a
// migrated fleet costs beyond one of ours. It too must write nothing.
func BenchmarkReconcileSteadyMigrated(b *testing.B) {
	f := newFixture(b)
	ctl := f.running()
	f.live(func(u map[string]any) {
		kserveReady(u)
		meta := u["metadata"].(map[string]any)
		meta["labels"].(map[string]any)[aimv1.LabelManagedBy] = aimEngineManagedBy
		delete(meta["annotations"].(map[string]any), reconcile.AnnotationAppliedHash)
		for _, ref := range meta["ownerReferences"].([]any) {
			delete(ref.(map[string]any), "blockOwnerDeletion")
		}
	})
	benchmarkSteady(b, f, ctl)
}
