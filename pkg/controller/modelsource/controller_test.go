package modelsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/expectations"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimfake "github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/fake"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

func TestSyncDue(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	synced := func(ago time.Duration, conds ...metav1.Condition) *aimv1.AIMClusterModelSource {
		return &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Generation: 2},
			Spec:   aimv1.AIMClusterModelSourceSpec{SyncInterval: &aimv1.Duration{Duration: time.Hour}},
			Status: aimv1.AIMClusterModelSourceStatus{ObservedGeneration: 2, LastSyncTime: ptr.To(metav1.NewTime(now.Add(-ago))), Conditions: conds}}
	}
	never := synced(0)
	never.Status.LastSyncTime = nil
	changed := synced(time.Minute)
	changed.Generation = 3
	noInterval := synced(59 * time.Minute)
	noInterval.Spec.SyncInterval = nil
	for _, tc := range []struct {
		name string
		src  *aimv1.AIMClusterModelSource
		due  bool
		wait time.Duration
	}{
		{"never synced", never, true, 0},
		{"spec changed", changed, true, 0},
		{"within the interval", synced(10 * time.Minute), false, 50 * time.Minute},
		{"interval passed", synced(time.Hour), true, 0},
		{"default interval 1h", noInterval, false, time.Minute},
		{"an unreachable registry is tried again after 30s", synced(time.Second,
			metav1.Condition{Type: state.ConditionDependenciesReachable, Status: metav1.ConditionFalse}), false, 29 * time.Second},
		{"and then", synced(30*time.Second,
			metav1.Condition{Type: state.ConditionDependenciesReachable, Status: metav1.ConditionFalse}), true, 0},
		// Then as long again as it has been unreachable: an outage of 10 minutes at the last listing, 10 more.
		{"a long outage is tried less often", synced(time.Minute, metav1.Condition{Type: state.ConditionDependenciesReachable,
			Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-11 * time.Minute))}), false, 9 * time.Minute},
		{"but at least every syncInterval", synced(time.Minute, metav1.Condition{Type: state.ConditionDependenciesReachable,
			Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-5 * time.Hour))}), false, 59 * time.Minute},
		{"user errors wait for the interval or a spec change", synced(10*time.Second,
			metav1.Condition{Type: "FiltersReady", Status: metav1.ConditionFalse, Reason: "CatalogNotSupported"}), false, time.Hour - 10*time.Second},
	} {
		due, wait := SyncDue(tc.src, int(tc.src.Status.DiscoveredModels), now)
		if due != tc.due || wait != tc.wait {
			t.Errorf("%s: due %v wait %s; want %v %s", tc.name, due, wait, tc.due, tc.wait)
		}
	}
}

// harness runs the controller against fake clients; refresh copies what the fake API server holds into the
// listers, as informers would.
type harness struct {
	ctl            *Controller
	client         *aimfake.Clientset
	sources        cache.Indexer
	models         cache.Indexer
	clusterConfigs cache.Indexer
	lister         *fakeLister
	kube           *kubefake.Clientset
	// secrets is how many pull secrets the last listing was given.
	secrets int
	now     time.Time
}

func newHarness(t *testing.T, src *aimv1.AIMClusterModelSource, repos map[string][]string) *harness {
	t.Helper()
	if src.ResourceVersion == "" {
		src = src.DeepCopy()
		src.ResourceVersion = "1"
	}
	h := &harness{client: aimfake.NewSimpleClientset(src), //nolint:staticcheck // the field-managed fake has no schema for AIM kinds
		sources: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil), models: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil),
		clusterConfigs: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil), lister: &fakeLister{repos: repos}, kube: kubefake.NewClientset(),
		now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	// Every write of the source gives it a new resourceVersion, as the API server does (the fake keeps none).
	h.client.PrependReactor("update", "aimclustermodelsources", func(a clienttesting.Action) (bool, runtime.Object, error) {
		u := a.(clienttesting.UpdateAction).GetObject().(*aimv1.AIMClusterModelSource).DeepCopy()
		v, _ := strconv.Atoi(u.ResourceVersion)
		u.ResourceVersion = strconv.Itoa(v + 1)
		return true, u, h.client.Tracker().Update(a.GetResource(), u, "")
	})
	// The fake cannot server-side apply AIM kinds: an apply of a new model creates it.
	h.client.PrependReactor("patch", "aimclustermodels", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.PatchAction)
		m := &aimv1.AIMClusterModel{}
		if p.GetPatchType() != types.ApplyPatchType || json.Unmarshal(p.GetPatch(), m) != nil {
			return true, nil, fmt.Errorf("unexpected patch %s", p.GetPatch())
		}
		return true, m, h.client.Tracker().Create(p.GetResource(), m, "")
	})
	h.ctl = &Controller{
		c:       manager.Clients{AIM: h.client, Kube: h.kube, Recorder: record.NewFakeRecorder(100), Options: manager.Options{SystemNamespace: "aim-system"}},
		sources: aimlisters.NewAIMClusterModelSourceLister(h.sources), models: aimlisters.NewAIMClusterModelLister(h.models),
		configs: runtimeconfig.Configs{Namespaced: aimlisters.NewAIMRuntimeConfigLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, nil)),
			Cluster: aimlisters.NewAIMClusterRuntimeConfigLister(h.clusterConfigs)},
		newLister: func(s []corev1.Secret, _ *mirrors.Config) Lister { h.secrets = len(s); return h.lister },
		created:   expectations.NewCreations(expectations.DefaultTTL), written: expectations.NewWrites(), now: func() time.Time { return h.now },
	}
	h.refresh(t)
	return h
}

func (h *harness) refresh(t *testing.T) *aimv1.AIMClusterModelSource {
	t.Helper()
	ctx := context.Background()
	s, err := h.client.AimV1alpha1().AIMClusterModelSources().Get(ctx, "src", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	must(t, h.sources.Update(s))
	ms, err := h.client.AimV1alpha1().AIMClusterModels().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ms.Items {
		must(t, h.models.Update(&ms.Items[i]))
		h.ctl.modelSeen(&ms.Items[i]) // the informer's add handler
	}
	return s
}

// refreshSource copies only the source into its lister: its informer is ahead of the models'.
func (h *harness) refreshSource(t *testing.T) {
	t.Helper()
	s, err := h.client.AimV1alpha1().AIMClusterModelSources().Get(context.Background(), "src", metav1.GetOptions{})
	must(t, err)
	must(t, h.sources.Update(s))
}

// TestLastSyncTimeIsTheEndOfTheListing: lastSyncTime says when the registry was last listed, at the end of a listing
// that took minutes (a large catalog, rate limits waited out), as aim-engine stamps it after its fetch; the next
// listing counts from there.
func TestLastSyncTimeIsTheEndOfTheListing(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "src", UID: "uid-src", Generation: 1},
		Spec: aimv1.AIMClusterModelSourceSpec{Registry: "r.example", SyncInterval: &aimv1.Duration{Duration: time.Hour},
			Filters: []aimv1.AIMModelSourceFilter{{Image: "aim/*"}}}}
	h := newHarness(t, src, map[string][]string{"aim/qwen": {"0.8.5"}, "aim/llama": {"1.0.0"}})
	start := h.now
	h.lister.onList = func() { h.now = h.now.Add(2 * time.Minute) }
	if _, err := h.ctl.reconcile(context.Background(), cache.NewObjectName("", "src")); err != nil {
		t.Fatal(err)
	}
	if got := h.refresh(t).Status.LastSyncTime; got == nil || !got.Time.Equal(start.Add(6*time.Minute)) {
		t.Errorf("lastSyncTime %v, want the end of the listing, %v", got, start.Add(6*time.Minute))
	}
	// A registry that fails after a long listing: the outage is counted from the end of that listing, so the next
	// try is infraRetry later, not as long again as the listing took.
	h.lister.onList, h.lister.catalogErr = func() { h.now = h.now.Add(9 * time.Minute) }, errors.New("dial tcp 203.0.113.5:443: i/o timeout")
	h.lister.tagErr = map[string]error{"aim/qwen": h.lister.catalogErr, "aim/llama": h.lister.catalogErr}
	h.ctl.written = expectations.NewWrites()
	src2 := h.refresh(t)
	src2.Generation = 2 // a spec change: listed now
	must(t, h.sources.Update(src2))
	_, _ = h.ctl.reconcile(context.Background(), cache.NewObjectName("", "src")) // the error is the queue's to retry
	st := h.refresh(t).Status
	c := meta.FindStatusCondition(st.Conditions, state.ConditionDependenciesReachable)
	if c == nil || c.Status != metav1.ConditionFalse || st.LastSyncTime == nil || !c.LastTransitionTime.Equal(st.LastSyncTime) {
		t.Fatalf("DependenciesReachable %+v, lastSyncTime %v: want the outage to start at the end of the listing", c, st.LastSyncTime)
	}
	if _, wait := SyncDue(h.refresh(t), int(st.DiscoveredModels), st.LastSyncTime.Time); wait != infraRetry {
		t.Errorf("after a failing listing of 9 minutes: next try in %s, want %s", wait, infraRetry)
	}
}

// TestReconcile runs the controller against fake clients: the first reconcile lists and creates models up to
// maxModels, later ones within the interval neither list nor write, and a missing pull secret is reported.
func TestReconcile(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "src", UID: "uid-src", Generation: 1},
		Spec: aimv1.AIMClusterModelSourceSpec{Registry: "r.example", MaxModels: ptr.To[int32](2),
			SyncInterval: &aimv1.Duration{Duration: time.Hour}, Filters: []aimv1.AIMModelSourceFilter{{Image: "aim/*"}},
			// aim-engine ignores a range its semver library cannot parse: every tag below is selected.
			Versions: []string{"~0.8"}}}
	h := newHarness(t, src, map[string][]string{"aim/qwen": {"0.8.5", "0.9.0"}, "aim/llama": {"1.0.0"}})
	ctl, client, fake, ctx := h.ctl, h.client, h.lister, context.Background()
	refresh := func() *aimv1.AIMClusterModelSource { t.Helper(); return h.refresh(t) }

	wait, err := ctl.reconcile(ctx, cache.NewObjectName("", "src"))
	if err != nil || wait != time.Hour {
		t.Fatalf("first reconcile: %s %v", wait, err)
	}
	s := refresh()
	ms, _ := client.AimV1alpha1().AIMClusterModels().List(ctx, metav1.ListOptions{})
	if len(ms.Items) != 2 {
		t.Fatalf("models %d, want 2 (maxModels)", len(ms.Items))
	}
	for _, m := range ms.Items {
		want := map[string]string{LabelModelSource: "src", "aim.eai.amd.com/cluster-model-source.name": "src",
			"aim.eai.amd.com/origin": "auto-generated", "app.kubernetes.io/managed-by": "aim-apiserver"}
		if diff := cmp.Diff(want, m.Labels); diff != "" || !reconcile.OwnedBy(&m, "uid-src") {
			t.Errorf("model %s: owners %v, labels (-want +got):\n%s", m.Name, m.OwnerReferences, diff)
		}
		// The apply carries aim-engine's resources: {} through to the stored model.
		if r := m.Spec.Resources; r == nil || !apiequality.Semantic.DeepEqual(*r, aimv1.ResourceRequirements{}) {
			t.Errorf("model %s: spec.resources %v, want {}", m.Name, r)
		}
	}
	st := s.Status
	if st.Status != aimv1.AIMStatusReady || st.DiscoveredModels != 2 || st.AvailableModels != 3 || !st.ModelsLimitReached ||
		st.ObservedGeneration != 1 || st.LastSyncTime == nil {
		t.Errorf("status %+v", st)
	}
	// aim-engine's condition types and reasons.
	for typ, want := range map[string]string{"FiltersReady": "True/AllFiltersSucceeded", "ExistingModelsReady": "True/Listed",
		"MaxModelsLimitReached": "True/LimitReached"} {
		c := meta.FindStatusCondition(st.Conditions, typ)
		if c == nil || string(c.Status)+"/"+c.Reason != want {
			t.Errorf("condition %s = %+v, want %s", typ, c, want)
		}
	}

	if c := meta.FindStatusCondition(st.Conditions, "FiltersReady"); c == nil || !strings.Contains(c.Message, `versions ignored as aim-engine ignores them (not semver ranges): ["~0.8"]`) {
		t.Errorf("FiltersReady does not name the ignored versions: %+v", c)
	}

	// Within the interval: no listing, no write.
	fake.calls = nil
	before := len(client.Actions())
	h.now = h.now.Add(10 * time.Minute)
	wait, err = ctl.reconcile(ctx, cache.NewObjectName("", "src"))
	if err != nil || wait != 50*time.Minute || len(fake.calls) > 0 || len(client.Actions()) != before {
		t.Errorf("steady state: wait %s err %v registry calls %v API actions %v", wait, err, fake.calls, client.Actions()[before:])
	}

	// A pull secret that does not exist is skipped, as aim-engine's keychain skips it: the registry is listed
	// without it, FiltersReady says so, and the secret is looked for every 30 s without listing again.
	s.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	s.Generation = 2
	_, err = client.AimV1alpha1().AIMClusterModelSources().Update(ctx, s, metav1.UpdateOptions{})
	must(t, err)
	refresh()
	fake.calls = nil
	wait, err = ctl.reconcile(ctx, cache.NewObjectName("", "src"))
	s = refresh()
	filters := meta.FindStatusCondition(s.Status.Conditions, "FiltersReady")
	if err != nil || wait != imagemeta.SecretRecheck || s.Status.Status != aimv1.AIMStatusReady || len(fake.calls) == 0 ||
		filters == nil || !strings.HasPrefix(filters.Message, "listed without the pull secrets that do not exist: aim-system/regcred; ") {
		t.Errorf("missing secret: wait %s err %v registry calls %d status %s FiltersReady %+v", wait, err, len(fake.calls), s.Status.Status, filters)
	}
	// An owned model's event right after reads no secret: they are looked for every 30 s, not on each event.
	h.kube.ClearActions()
	h.now = h.now.Add(time.Second)
	if _, err = ctl.reconcile(ctx, cache.NewObjectName("", "src")); err != nil || len(h.kube.Actions()) > 0 {
		t.Errorf("a reconcile within 30 s of the listing: err %v, API reads %v", err, h.kube.Actions())
	}
	fake.calls = nil
	h.now = h.now.Add(imagemeta.SecretRecheck - time.Second)
	if wait, err = ctl.reconcile(ctx, cache.NewObjectName("", "src")); err != nil || wait != imagemeta.SecretRecheck || len(fake.calls) > 0 {
		t.Errorf("still missing: wait %s err %v registry calls %v", wait, err, fake.calls)
	}
	// Once it exists, the registry is listed again with it.
	_, err = h.kube.CoreV1().Secrets("aim-system").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "regcred", Namespace: "aim-system"}}, metav1.CreateOptions{})
	must(t, err)
	h.now = h.now.Add(imagemeta.SecretRecheck)
	wait, err = ctl.reconcile(ctx, cache.NewObjectName("", "src"))
	s = refresh()
	filters = meta.FindStatusCondition(s.Status.Conditions, "FiltersReady")
	if err != nil || wait != time.Hour || len(fake.calls) == 0 || h.secrets != 1 || filters == nil || strings.Contains(filters.Message, "pull secrets") {
		t.Errorf("secret created: wait %s err %v registry calls %d secrets given %d FiltersReady %+v", wait, err, len(fake.calls), h.secrets, filters)
	}
}

// TestSecretChecksForgotten: the controller remembers when it last looked for a source's missing pull secrets
// only while the source exists and waits for them, so that deleted sources do not accumulate: a listing and the
// source's deletion forget it.
func TestSecretChecksForgotten(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "src", UID: "uid-src", Generation: 1},
		Spec: aimv1.AIMClusterModelSourceSpec{Registry: "r.example", Filters: []aimv1.AIMModelSourceFilter{{Image: "aim/*"}},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "regcred"}}}}
	h := newHarness(t, src, map[string][]string{"aim/qwen": {"0.9.0"}})
	ctx, key := context.Background(), cache.NewObjectName("", "src")
	// reconcileAfter moves the clock on, reconciles, and checks how many sources are remembered.
	reconcileAfter := func(d time.Duration, when string, want int) {
		t.Helper()
		h.now = h.now.Add(d)
		_, err := h.ctl.reconcile(ctx, key)
		must(t, err)
		h.refresh(t)
		h.ctl.secretChecksMu.Lock()
		n := len(h.ctl.secretChecks)
		h.ctl.secretChecksMu.Unlock()
		if n != want {
			t.Fatalf("%s: %d sources remembered, want %d", when, n, want)
		}
	}
	reconcileAfter(0, "after the first listing", 0)
	reconcileAfter(imagemeta.SecretRecheck, "after a look for the missing secret", 1)
	// The next listing reads the secrets itself: the look is forgotten.
	reconcileAfter(time.Hour, "after a listing", 0)
	reconcileAfter(imagemeta.SecretRecheck, "after another look", 1)
	must(t, h.sources.Delete(src))
	_, err := h.ctl.reconcile(ctx, key)
	h.ctl.secretChecksMu.Lock()
	defer h.ctl.secretChecksMu.Unlock()
	if err != nil || len(h.ctl.secretChecks) != 0 {
		t.Errorf("after the source is gone: err %v, %d sources remembered, want 0", err, len(h.ctl.secretChecks))
	}
}

// TestSyncLeavesExistingModels: as aim-engine's, a sync applies only the models of new images
// (internal/aimclustermodelsource/reconcile.go:226), so a changed labelPropagation labels the new models and no
// request touches the existing ones, which keep their labels.
func TestSyncLeavesExistingModels(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "src", UID: "uid-src", Generation: 1, Labels: map[string]string{"team": "a"}},
		Spec: aimv1.AIMClusterModelSourceSpec{Registry: "r.example", SyncInterval: &aimv1.Duration{Duration: time.Hour},
			Filters: []aimv1.AIMModelSourceFilter{{Image: "aim/*"}}}}
	h := newHarness(t, src, map[string][]string{"aim/qwen": {"0.8.5"}})
	ctx, key := context.Background(), cache.NewObjectName("", "src")
	_, err := h.ctl.reconcile(ctx, key)
	must(t, err)
	h.refresh(t)
	must(t, h.clusterConfigs.Add(&aimv1.AIMClusterRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: runtimeconfig.DefaultName, UID: "rc"},
		Spec: aimv1.AIMRuntimeConfigSpec{LabelPropagation: &aimv1.AIMLabelPropagationConfig{Enabled: ptr.To(true), Match: []string{"team"}}}}))
	h.lister.repos["aim/qwen"] = append(h.lister.repos["aim/qwen"], "0.9.0")
	h.now = h.now.Add(time.Hour)
	before := len(h.client.Actions())
	_, err = h.ctl.reconcile(ctx, key)
	must(t, err)
	var applied []string
	for _, a := range h.client.Actions()[before:] {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetResource().Resource == "aimclustermodels" {
			applied = append(applied, p.GetName())
		}
	}
	oldName, newName := ModelName(img("aim/qwen", "0.8.5")), ModelName(img("aim/qwen", "0.9.0"))
	if !cmp.Equal(applied, []string{newName}) {
		t.Errorf("applied %v, want only the new model %s", applied, newName)
	}
	for name, team := range map[string]string{oldName: "", newName: "a"} {
		m, err := h.client.AimV1alpha1().AIMClusterModels().Get(ctx, name, metav1.GetOptions{})
		if err != nil || m.Labels["team"] != team {
			t.Errorf("model %s: labels %v err %v, want team %q", name, m.GetLabels(), err, team)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFiltersOutcome: FiltersReady's reasons are aim-engine's; every failed filter is named in the message.
func TestFiltersOutcome(t *testing.T) {
	infra := state.NewError(state.Infrastructure, "RegistryUnreachable", "filters[1] \"x/*\": connection refused")
	for _, tc := range []struct {
		name             string
		filters, images  int
		errs             []error
		reason, contains string
		state            aimv1.AIMStatus
	}{
		{"none", 0, 0, nil, "NoFilters", "No filters configured", aimv1.AIMStatusProgressing},
		{"all listed", 2, 5, nil, "AllFiltersSucceeded", "All 2 filters succeeded; 5 images match", ""},
		{"one of two failed", 2, 5, []error{infra}, "SomeFiltersFailed", "1 of 2 filters had errors: filters[1]", aimv1.AIMStatusDegraded},
		{"all failed", 1, 0, []error{infra}, "AllFiltersFailed", "All 1 filters failed: filters[1]", ""},
	} {
		reason, msg, st := FiltersOutcome(tc.filters, tc.images, tc.errs)
		if reason != tc.reason || !strings.Contains(msg, tc.contains) || st != tc.state {
			t.Errorf("%s: %s %q %q, want %s containing %q, state %q", tc.name, reason, msg, st, tc.reason, tc.contains, tc.state)
		}
	}
}

// TestDeletedModelIsRecreated: as aim-engine, which watches the models it owns and creates every selected image
// without a model on each reconcile (internal/aimclustermodelsource/reconcile.go:206), a model deleted by a user
// comes back on the reconcile its deletion queues, not at the next syncInterval; maxModels still applies, an image
// no longer selected is not made again, and once the count is right the steady state neither lists nor writes.
func TestDeletedModelIsRecreated(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "src", UID: "uid-src", Generation: 1},
		Spec: aimv1.AIMClusterModelSourceSpec{Registry: "r.example", MaxModels: ptr.To[int32](2),
			SyncInterval: &aimv1.Duration{Duration: time.Hour}, Filters: []aimv1.AIMModelSourceFilter{{Image: "aim/*"}}}}
	h := newHarness(t, src, map[string][]string{"aim/qwen": {"0.8.5", "0.9.0"}, "aim/llama": {"1.0.0"}})
	ctx, key := context.Background(), cache.NewObjectName("", "src")
	_, err := h.ctl.reconcile(ctx, key)
	must(t, err)
	h.refresh(t)
	del := func(name string) {
		t.Helper()
		must(t, h.client.AimV1alpha1().AIMClusterModels().Delete(ctx, name, metav1.DeleteOptions{}))
		must(t, h.models.Delete(&aimv1.AIMClusterModel{ObjectMeta: metav1.ObjectMeta{Name: name}}))
	}
	models := func() []string {
		t.Helper()
		ms, err := h.client.AimV1alpha1().AIMClusterModels().List(ctx, metav1.ListOptions{})
		must(t, err)
		var out []string
		for _, m := range ms.Items {
			out = append(out, m.Name)
		}
		return out
	}
	newest, llama := ModelName(img("aim/qwen", "0.9.0")), ModelName(img("aim/llama", "1.0.0"))
	steady := func(step string) {
		t.Helper()
		h.lister.calls = nil
		before := len(h.client.Actions())
		h.now = h.now.Add(time.Minute)
		_, err := h.ctl.reconcile(ctx, key)
		if err != nil || len(h.lister.calls) > 0 || len(h.client.Actions()) != before {
			t.Errorf("%s, steady state: err %v registry calls %v API actions %v", step, err, h.lister.calls, h.client.Actions()[before:])
		}
	}

	// The limit keeps the same two models: the deleted one comes back, not the third image.
	del(newest)
	h.now = h.now.Add(10 * time.Minute)
	_, err = h.ctl.reconcile(ctx, key)
	must(t, err)
	s := h.refresh(t)
	if got := models(); !cmp.Equal(got, []string{llama, newest}, cmpSort) || s.Status.DiscoveredModels != 2 || !s.Status.ModelsLimitReached {
		t.Errorf("after deleting %s: models %v, status %+v", newest, got, s.Status)
	}
	steady("re-created")

	// An image no longer selected: one listing, nothing made, the count follows.
	h.lister.repos = map[string][]string{"aim/qwen": {"0.9.0"}}
	del(llama)
	_, err = h.ctl.reconcile(ctx, key)
	must(t, err)
	s = h.refresh(t)
	if got := models(); !cmp.Equal(got, []string{newest}) || s.Status.DiscoveredModels != 1 || len(h.lister.calls) == 0 {
		t.Errorf("image gone: models %v, discovered %d, registry calls %v", got, s.Status.DiscoveredModels, h.lister.calls)
	}
	steady("image gone")
}

// TestSyncSeenBeforeItsModels: the informers may show the events of the models a sync created before the
// status the sync wrote, or that status before the models. Neither is a reason to sync again: the reconcile lists
// nothing and writes nothing (it looks again shortly while its own status is unseen), and another source's
// expected models are not its.
func TestSyncSeenBeforeItsModels(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "src", UID: "uid-src", Generation: 1},
		Spec: aimv1.AIMClusterModelSourceSpec{Registry: "r.example", SyncInterval: &aimv1.Duration{Duration: time.Hour},
			Filters: []aimv1.AIMModelSourceFilter{{Image: "aim/*"}}}}
	h := newHarness(t, src, map[string][]string{"aim/qwen": {"0.9.0"}, "aim/llama": {"1.0.0"}})
	ctx, key := context.Background(), cache.NewObjectName("", "src")
	_, err := h.ctl.reconcile(ctx, key)
	must(t, err)
	// A source of another name listing the same images expects models of the same names.
	other := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "other", UID: "uid-other"}}
	existing, err := h.ctl.existing(other)
	if n := countOwned(existing); err != nil || n != 0 {
		t.Errorf("another source owns %d of src's expected models (%v), want 0", n, err)
	}
	for _, step := range []struct {
		name    string
		refresh func()
		wait    time.Duration
	}{
		{"nothing seen yet", func() {}, reconcile.WriteSettle},
		{"status seen, models not yet", func() { h.refreshSource(t) }, time.Hour - 2*time.Second},
		{"models seen", func() { h.refresh(t) }, time.Hour - 3*time.Second},
	} {
		step.refresh()
		h.lister.calls = nil
		before := len(h.client.Actions())
		h.now = h.now.Add(time.Second)
		wait, err := h.ctl.reconcile(ctx, key)
		if err != nil || wait != step.wait || len(h.lister.calls) > 0 || len(h.client.Actions()) != before {
			t.Errorf("%s: wait %s (want %s), err %v, registry calls %v, API actions %v", step.name, wait, step.wait, err,
				h.lister.calls, h.client.Actions()[before:])
		}
	}
}

var cmpSort = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	slices.Sort(out)
	return out
})

func TestModelsMissing(t *testing.T) {
	synced := &aimv1.AIMClusterModelSource{Status: aimv1.AIMClusterModelSourceStatus{DiscoveredModels: 2, LastSyncTime: ptr.To(metav1.Now())}}
	never := synced.DeepCopy()
	never.Status.LastSyncTime = nil
	for _, tc := range []struct {
		name  string
		src   *aimv1.AIMClusterModelSource
		owned int
		want  bool
	}{
		{"all there", synced, 2, false},
		{"more than made (adopted)", synced, 3, false},
		{"one deleted", synced, 1, true},
		{"never synced (SyncDue lists anyway)", never, 0, false},
	} {
		if got := ModelsMissing(tc.src, tc.owned); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestNews: the controller's own status writes do not queue a source; changes of its spec, labels or
// annotations do, and so does the periodic resync, the same version delivered again.
func TestNews(t *testing.T) {
	src := &aimv1.AIMClusterModelSource{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "10", Generation: 2,
		Labels: map[string]string{"team": "a"}}}
	changed := func(f func(*aimv1.AIMClusterModelSource)) *aimv1.AIMClusterModelSource {
		n := src.DeepCopy()
		n.ResourceVersion = "11"
		f(n)
		return n
	}
	for name, tc := range map[string]struct {
		obj  *aimv1.AIMClusterModelSource
		want bool
	}{
		"resync":      {src.DeepCopy(), true},
		"status":      {changed(func(n *aimv1.AIMClusterModelSource) { n.Status.DiscoveredModels = 3 }), false},
		"spec":        {changed(func(n *aimv1.AIMClusterModelSource) { n.Generation = 3 }), true},
		"labels":      {changed(func(n *aimv1.AIMClusterModelSource) { n.Labels["team"] = "b" }), true},
		"annotations": {changed(func(n *aimv1.AIMClusterModelSource) { n.Annotations = map[string]string{"a": "b"} }), true},
	} {
		if got := news(src, tc.obj); got != tc.want {
			t.Errorf("%s: news %v, want %v", name, got, tc.want)
		}
	}
}
