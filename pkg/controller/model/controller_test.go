package model

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/expectations"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimfake "github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/fake"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/test/registrytest"
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
	// A spec changed since (generation 3) whose first read fails keeps none of the earlier spec's labels: during the
	// grace of an outage its condition still says True, and the status written then says generation 3, so labels
	// kept now would be taken as the new spec's, and plan its templates, for good.
	if md, comp := ctl.metadata(context.Background(), 3, aimv1.AIMModelSpec{Image: "r.example/aim/qwen:3"}, read, "aim-system"); len(comp.Errors) == 0 || md != nil {
		t.Errorf("a new spec's failed read: errors %v, metadata %v; want the failure and no labels", comp.Errors, md)
	}
	// A model migrated from aim-engine (no observedGeneration) is not read again, as aim-engine would not read it.
	migrated := aimv1.AIMModelStatus{ImageMetadata: earlier, Status: aimv1.AIMStatusReady}
	if md, comp := ctl.metadata(context.Background(), 4, aimv1.AIMModelSpec{Image: "r.example/aim/qwen:2"}, migrated, "aim-system"); len(comp.Errors) != 0 || md != earlier {
		t.Errorf("a migrated model: errors %v, metadata %v; want the labels aim-engine read, no read", comp.Errors, md)
	}
}

// TestOwnStatusUnseenReadsNoLabelsAgain: the template events of a reconcile that read the image's labels may
// reach the controller before the status it wrote. The reconcile they cause must not take the model of the
// cache, still without status.imageMetadata, for one never read: it waits for the write (reconcile.WriteSettle),
// and afterwards takes the labels from the status, without a registry request or a write.
func TestOwnStatusUnseenReadsNoLabelsAgain(t *testing.T) {
	reg, requests := registrytest.Counting(registry.New(registry.Logger(log.New(io.Discard, "", 0))), func(r *http.Request) string {
		if strings.Contains(r.URL.Path, "/manifests/") {
			return "manifests"
		}
		return ""
	})
	srv := httptest.NewServer(reg)
	t.Cleanup(srv.Close)
	image := strings.TrimPrefix(srv.URL, "http://") + "/aim/qwen:1.0.0"
	registrytest.PushLabelled(t, image, map[string]string{"com.amd.aim.model.canonicalName": "Qwen/Qwen3-32B"})
	requests.Reset() // the push's

	m := &aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen", UID: "uid-m", Generation: 1, ResourceVersion: "1"},
		Spec: aimv1.AIMModelSpec{Image: image}}
	client := aimfake.NewSimpleClientset(m) //nolint:staticcheck // the field-managed fake has no schema for AIM kinds
	client.PrependReactor("update", "aimclustermodels", func(a clienttesting.Action) (bool, runtime.Object, error) {
		u := a.(clienttesting.UpdateAction).GetObject().(*aimv1.AIMClusterModel).DeepCopy()
		v, _ := strconv.Atoi(u.ResourceVersion)
		u.ResourceVersion = strconv.Itoa(v + 1) // as the API server does; the fake keeps none
		return true, u, client.Tracker().Update(a.GetResource(), u, "")
	})
	models := cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil)
	must(t, models.Add(m))
	none := func() cache.Indexer { return cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil) }
	ctl := &Controller{c: manager.Clients{AIM: client, Kube: kubefake.NewClientset(), Recorder: record.NewFakeRecorder(10)},
		fetcher: imagemeta.Fetcher{Allowed: []string{"*"}}, clusterModels: aimlisters.NewAIMClusterModelLister(models),
		clusterTemplates: aimlisters.NewAIMClusterServiceTemplateLister(none()), written: expectations.NewWrites(),
		configs: runtimeconfig.Configs{Namespaced: aimlisters.NewAIMRuntimeConfigLister(none()),
			Cluster: aimlisters.NewAIMClusterRuntimeConfigLister(none())}}
	key := cache.NewObjectName("", "qwen")

	for _, step := range []struct {
		name            string
		refresh         bool
		wait            time.Duration
		manifests, acts int
	}{
		{"first reconcile: the labels are read and written", false, 0, 1, 1},
		{"the cache shows the model from before the write", false, reconcile.WriteSettle, 1, 1},
		{"the cache shows the write", true, 0, 1, 1},
	} {
		if step.refresh {
			stored, err := client.AimV1alpha1().AIMClusterModels().Get(context.Background(), "qwen", metav1.GetOptions{})
			must(t, err)
			must(t, models.Update(stored))
		}
		wait, err := ctl.reconcileCluster(context.Background(), key)
		acts := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "update" {
				acts++
				// A cluster model's status is written by aim-engine's name of its controller.
				if m := a.(clienttesting.UpdateActionImpl).GetUpdateOptions().FieldManager; m != ClusterFieldManager {
					t.Errorf("%s: status written by field manager %q, want %q", step.name, m, ClusterFieldManager)
				}
			}
		}
		if err != nil || wait != step.wait || requests.Get("manifests") != step.manifests || acts != step.acts {
			t.Errorf("%s: wait %s (want %s), err %v, manifest requests %d (want %d), status writes %d (want %d)",
				step.name, wait, step.wait, err, requests.Get("manifests"), step.manifests, acts, step.acts)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
