package model

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// TestExtractionTurnedOffKeepsMetadata: a model whose labels were read before spec.discovery.extractMetadata
// was turned off keeps status.imageMetadata and its templates, as aim-engine, which skips the fetch
// (internal/aimmodel/reconcile.go:315), writes the status field only from a fetch (reconcile.go:516) and plans
// from spec.imageMetadata, else the status (api/v1alpha1/aimmodel_shared.go:288, reconcile.go:461).
func TestExtractionTurnedOffKeepsMetadata(t *testing.T) {
	read := &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{CanonicalName: "Qwen/Qwen3-32B",
		RecommendedDeployments: []aimv1.RecommendedDeployment{{GPUModel: "MI300X", GPUCount: 1, Precision: "fp8", Metric: "latency"}}}}
	given := &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{CanonicalName: "given",
		RecommendedDeployments: []aimv1.RecommendedDeployment{{GPUModel: "MI355X", GPUCount: 8, Precision: "fp4", Metric: "throughput"}}}}
	off := &aimv1.AIMModelDiscoveryConfig{ExtractMetadata: ptr.To(false)}
	for _, tc := range []struct {
		name   string
		spec   aimv1.AIMModelSpec
		stored *aimv1.ImageMetadata
		want   *aimv1.ImageMetadata
		gpu    string // of the template planned, "" for none
	}{
		{"labels read before", aimv1.AIMModelSpec{Image: "r.example/aim/qwen:1", Discovery: off}, read, read, "MI300X"},
		{"spec.imageMetadata first", aimv1.AIMModelSpec{Image: "r.example/aim/qwen:1", Discovery: off, ImageMetadata: given}, read, given, "MI355X"},
		{"never read", aimv1.AIMModelSpec{Image: "r.example/aim/qwen:1", Discovery: off}, nil, nil, ""},
	} {
		m := &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen", UID: "uid-m", Generation: 2}, Spec: tc.spec,
			Status: aimv1.AIMModelStatus{ObservedGeneration: 1, ImageMetadata: tc.stored}}
		var applied []Template
		var written *aimv1.AIMModelStatus
		ctl := &Controller{c: manager.Clients{Recorder: record.NewFakeRecorder(10)}, configs: runtimeconfig.Configs{
			Namespaced: aimlisters.NewAIMRuntimeConfigLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil)),
			Cluster:    aimlisters.NewAIMClusterRuntimeConfigLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil))}}
		_, err := ctl.reconcile(context.Background(), reconcile.Object(m), m.Spec, m.Status, "aim-system",
			func() []TemplateState { return nil },
			func(_ context.Context, t Template) error { applied = append(applied, t); return nil },
			func(context.Context, []string) error { return nil },
			func(s aimv1.AIMModelStatus) error { written = &s; return nil })
		if err != nil || written == nil {
			t.Fatalf("%s: err %v, status written %v", tc.name, err, written != nil)
		}
		if got := written.ImageMetadata; (got == nil) != (tc.want == nil) || got != nil && got.Model.CanonicalName != tc.want.Model.CanonicalName {
			t.Errorf("%s: status.imageMetadata %+v, want %+v", tc.name, got, tc.want)
		}
		var gpu string
		if len(applied) == 1 {
			gpu = applied[0].Spec.Hardware.GPU.Model
		}
		templates := meta.FindStatusCondition(written.Conditions, ComponentClusterServiceTemplates+state.ComponentSuffix)
		if gpu != tc.gpu || (templates != nil) != (tc.gpu != "") || len(applied) > 1 {
			t.Errorf("%s: templates applied %+v, condition %+v; want one on %q", tc.name, applied, templates, tc.gpu)
		}
		md := meta.FindStatusCondition(written.Conditions, ComponentImageMetadata+state.ComponentSuffix)
		// spec.imageMetadata is found whatever extractMetadata says (docs/compatibility.md, "Image metadata of a model").
		if want := map[bool]string{true: ReasonImageMetadataFound, false: ReasonExtractionDisabled}[tc.spec.ImageMetadata != nil]; md == nil || md.Reason != want {
			t.Errorf("%s: %s condition %+v", tc.name, ComponentImageMetadata, md)
		}
	}
}

// TestFailedReadIsRetried: after a spec change whose labels cannot be read, the reconcile that follows reads
// them again; it does not take the labels of the earlier spec, still in the status, as this spec's.
func TestFailedReadIsRetried(t *testing.T) {
	earlier := &aimv1.ImageMetadata{Model: &aimv1.ModelMetadata{CanonicalName: "Qwen/Qwen3-32B"}}
	failed := aimv1.AIMModelStatus{ObservedGeneration: 2, ImageMetadata: earlier, Conditions: []metav1.Condition{{
		Type: ComponentImageMetadata + state.ComponentSuffix, Status: metav1.ConditionFalse, Reason: "RegistryNotAllowed"}}}
	ctl := &Controller{} // no registry is allowed: every read fails
	md, comp := ctl.metadata(context.Background(), 2, aimv1.AIMModelSpec{Image: "r.example/aim/qwen:2"}, failed, "aim-system")
	if len(comp.Errors) == 0 || md != earlier {
		t.Errorf("after a failed read: errors %v, metadata %v; want the read tried again (and failing), the earlier labels kept", comp.Errors, md)
	}
	// A read that succeeded is not repeated while the spec is unchanged.
	read := failed
	read.Conditions = []metav1.Condition{{Type: ComponentImageMetadata + state.ComponentSuffix, Status: metav1.ConditionTrue, Reason: ReasonImageMetadataFound}}
	if md, comp := ctl.metadata(context.Background(), 2, aimv1.AIMModelSpec{Image: "r.example/aim/qwen:2"}, read, "aim-system"); len(comp.Errors) != 0 || md != earlier {
		t.Errorf("after a good read: errors %v, metadata %v; want the labels of the status, no read", comp.Errors, md)
	}
}
