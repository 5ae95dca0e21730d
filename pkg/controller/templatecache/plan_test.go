package templatecache

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/google/go-cmp/cmp"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

var src = aimv1.AIMModelSource{ModelID: "org/m", SourceURI: "hf://org/m.v1", WeightsSize: ptr.To(aimv1.MustParseQuantity("10Gi")),
	Env: []corev1.EnvVar{{Name: "HF_TOKEN", Value: "source"}}}

func testCache(name string, mode aimv1.AIMTemplateCacheMode) *aimv1.AIMTemplateCache {
	return &aimv1.AIMTemplateCache{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", UID: types.UID("uid-c-" + name), Generation: 2},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: "tpl", Mode: mode, StorageClassName: "fast", RuntimeConfigName: "rc",
			DownloadImage: "registry.example/dl:1", ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
			Env: []corev1.EnvVar{{Name: "HF_TOKEN", Value: "cache"}, {Name: "HTTPS_PROXY", Value: "proxy"}}},
	}
}

func readyTemplate(sources ...aimv1.AIMModelSource) *Template {
	return &Template{Kind: KindNamespaced, Name: "tpl", Status: aimv1.AIMStatusReady, ModelSources: sources}
}

func observe(c *aimv1.AIMTemplateCache, t *Template, artifacts ...*aimv1.AIMArtifact) Observation {
	return Observation{Cache: c, Template: t, RuntimeConfig: runtimeconfig.Resolved{Name: "rc"}, Artifacts: artifacts}
}

func derive(c *aimv1.AIMTemplateCache, p Plan) aimv1.AIMStatus {
	return state.Derive(state.Input{Components: p.Components, Previous: c.Status.Conditions, Generation: c.Generation, Now: time.Now()}).Status
}

func TestDesiredArtifactShared(t *testing.T) {
	c := testCache("a", aimv1.AIMTemplateCacheModeShared)
	c.Spec.TemplateScope = aimv1.AIMTemplateScopeNamespace
	c.Labels = map[string]string{"aim.eai.amd.com/service": "chat", "team": "x"}
	a := DesiredArtifact(c, src, 1, runtimeconfig.Resolved{})
	if len(a.OwnerReferences) != 0 {
		t.Errorf("shared artifact owned: %v", a.OwnerReferences)
	}
	// aim-engine's labels: the making cache, its template and the source's index, plus the cache's
	// aim.eai.amd.com/ labels.
	for k, want := range map[string]string{LabelTemplateCreated: "true", LabelTemplateName: "tpl", LabelTemplateScope: "Namespace",
		LabelTemplateIndex: "1", LabelCache: "a", "aim.eai.amd.com/service": "chat", aimv1.LabelManagedBy: aimv1.ManagedByValue, "team": ""} {
		if a.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, a.Labels[k], want)
		}
	}
	if !strings.HasPrefix(a.Name, "hf---org-m-v1-") || len(a.Name) > 63 {
		t.Errorf("name %q", a.Name)
	}
	s := a.Spec
	if s.SourceURI != src.SourceURI || s.ModelID != "org/m" || s.WeightsSize.String() != "10Gi" || s.StorageClassName != "fast" ||
		s.RuntimeConfigName != "rc" || s.ModelDownloadImage != "registry.example/dl:1" || s.ImagePullSecrets[0].Name != "pull" {
		t.Errorf("spec %+v", s)
	}
	if len(s.Env) != 2 || s.Env[0] != (corev1.EnvVar{Name: "HF_TOKEN", Value: "source"}) || s.Env[1].Name != "HTTPS_PROXY" {
		t.Errorf("env %v: the source's env must win over the cache's", s.Env)
	}

	// Another cache with the same download shares the name; a different class or env does not.
	if other := DesiredArtifact(testCache("b", aimv1.AIMTemplateCacheModeShared), src, 0, runtimeconfig.Resolved{}); other.Name != a.Name {
		t.Errorf("caches with equal downloads got %q and %q", a.Name, other.Name)
	}
	slow := testCache("a", aimv1.AIMTemplateCacheModeShared)
	slow.Spec.StorageClassName = "slow"
	creds := testCache("a", aimv1.AIMTemplateCacheModeShared)
	creds.Spec.Env = nil
	for _, other := range []*aimv1.AIMTemplateCache{slow, creds} {
		if ArtifactName(other, src) == a.Name {
			t.Errorf("a different storage class or env shares artifact %q", a.Name)
		}
	}
}

// TestDesiredArtifactSize: spec.size is "0" when the source's size is unknown or zero, as aim-engine writes it
// (a resource.Quantity without omitempty); the artifact then measures the model.
func TestDesiredArtifactSize(t *testing.T) {
	c := testCache("a", aimv1.AIMTemplateCacheModeShared)
	for _, tc := range []struct {
		size *aimv1.Quantity
		want string
	}{{ptr.To(aimv1.MustParseQuantity("10Gi")), `"size":"10Gi"`}, {ptr.To(aimv1.MustParseQuantity("0")), `"size":"0"`}, {nil, `"size":"0"`}} {
		s := src
		s.WeightsSize = tc.size
		data, err := json.Marshal(DesiredArtifact(c, s, 0, runtimeconfig.Resolved{}).Spec)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tc.want) {
			t.Errorf("source size %v: spec %s, want %s", tc.size, data, tc.want)
		}
	}
}

func TestDesiredArtifactDedicated(t *testing.T) {
	c := testCache("mine", aimv1.AIMTemplateCacheModeDedicated)
	a := DesiredArtifact(c, src, 0, runtimeconfig.Resolved{})
	if len(a.OwnerReferences) != 1 || a.OwnerReferences[0].UID != c.UID || !ptr.Deref(a.OwnerReferences[0].Controller, false) ||
		a.OwnerReferences[0].Kind != "AIMTemplateCache" {
		t.Errorf("owners %+v", a.OwnerReferences)
	}
	// Named after the source only, as aim-engine names it: the cache's name is in the hash.
	if a.Labels[LabelCache] != "mine" || !strings.HasPrefix(a.Name, "hf---org-m-v1-") {
		t.Errorf("labels %v name %q", a.Labels, a.Name)
	}
	if a.Name == ArtifactName(testCache("mine", aimv1.AIMTemplateCacheModeShared), src) ||
		a.Name == ArtifactName(testCache("yours", aimv1.AIMTemplateCacheModeDedicated), src) {
		t.Error("dedicated names must differ from shared ones and between caches")
	}
}

// TestArtifactNamesAreAimEngines: expected values computed with aim-engine's algorithm.
func TestArtifactNamesAreAimEngines(t *testing.T) {
	cache := func(mode aimv1.AIMTemplateCacheMode, name, class string, env ...corev1.EnvVar) *aimv1.AIMTemplateCache {
		return &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"},
			Spec: aimv1.AIMTemplateCacheSpec{Mode: mode, StorageClassName: class, Env: env}}
	}
	qwen := aimv1.AIMModelSource{ModelID: "Qwen/Qwen3-32B", SourceURI: "hf://Qwen/Qwen3-32B"}
	shared := aimv1.AIMTemplateCacheModeShared
	for _, tc := range []struct {
		what  string
		cache *aimv1.AIMTemplateCache
		src   aimv1.AIMModelSource
		want  string
	}{
		// Every character outside [a-z0-9-] is a dash of its own; the env list hashes as null when empty.
		{"plain", cache(shared, "", ""), qwen, "hf---qwen-qwen3-32b-c00b812b59"},
		{"storage class", cache(shared, "", "longhorn"), qwen, "hf---qwen-qwen3-32b-4854f5ce16"},
		{"cache env", cache(shared, "", "", corev1.EnvVar{Name: "HF_HUB_ENABLE_HF_TRANSFER", Value: "1"}), qwen, "hf---qwen-qwen3-32b-068d9ca6cc"},
		{"dedicated", cache(aimv1.AIMTemplateCacheModeDedicated, "qwen3-32b-mi300x-lat-fp8-qwen-chat-a942824e", ""), qwen, "hf---qwen-qwen3-32b-ff0bb42721"},
		{"long URI", cache(shared, "", ""), aimv1.AIMModelSource{ModelID: "meta-llama/Llama-3.1-70B",
			SourceURI: "s3://models.example.com/meta-llama/Llama-3.1-70B-Instruct-FP8-KV-quantized-v2"},
			"s3---models-example-com-meta-llama-llama-3-1-70b-ins-f93b67d277"},
	} {
		if got := ArtifactName(tc.cache, tc.src); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.what, got, tc.want)
		}
	}
}

// TestInUse: once every artifact of the cache is Ready, the others it owns may go.
func TestInUse(t *testing.T) {
	dedicated := testCache("c", aimv1.AIMTemplateCacheModeDedicated)
	current := DesiredArtifact(dedicated, src, 0, runtimeconfig.Resolved{})
	current.Status = reported(aimv1.AIMStatusReady, "")
	if p := PlanCache(observe(dedicated, readyTemplate(src), current)); len(p.InUse) != 1 || p.InUse[0] != current.Name {
		t.Errorf("ready cache: in use %v", p.InUse)
	}
	current.Status = reported(aimv1.AIMStatusProgressing, "")
	if p := PlanCache(observe(dedicated, readyTemplate(src), current)); p.InUse != nil {
		t.Errorf("downloading cache: in use %v, want nil", p.InUse)
	}
	if p := PlanCache(observe(dedicated, nil, current)); p.InUse != nil {
		t.Errorf("cache without its template: in use %v, want nil", p.InUse)
	}
}

// reported is an artifact status as the artifact controller writes it: with its Ready condition.
func reported(st aimv1.AIMStatus, pvc string) aimv1.AIMArtifactStatus {
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DownloadJobNotReady", Message: "artifact is " + string(st)}
	if st == aimv1.AIMStatusReady {
		ready = metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "AllComponentsReady", Message: "All components are ready"}
	}
	return aimv1.AIMArtifactStatus{Status: st, PersistentVolumeClaim: pvc, Conditions: []metav1.Condition{ready}}
}

func artifact(name string, status aimv1.AIMStatus, owners ...metav1.OwnerReference) *aimv1.AIMArtifact {
	return &aimv1.AIMArtifact{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", UID: types.UID("uid-a-" + name), OwnerReferences: owners},
		Spec:       aimv1.AIMArtifactSpec{SourceURI: src.SourceURI, StorageClassName: "fast"},
		Status:     reported(status, name+"-cache"),
	}
}

func TestPlanCache(t *testing.T) {
	shared := testCache("c", aimv1.AIMTemplateCacheModeShared)
	dedicated := testCache("c", aimv1.AIMTemplateCacheModeDedicated)
	sharedName, dedicatedName := ArtifactName(shared, src), ArtifactName(dedicated, src)
	owned := metav1.OwnerReference{Kind: "AIMTemplateCache", Name: "c", UID: dedicated.UID, Controller: ptr.To(true)}
	upToDate := func() *aimv1.AIMArtifact {
		a := DesiredArtifact(dedicated, src, 0, runtimeconfig.Resolved{})
		a.UID, a.Status = "uid-d", reported(aimv1.AIMStatusReady, "pvc-d")
		return a
	}
	second := aimv1.AIMModelSource{ModelID: "org/n", SourceURI: "s3://b/n"}

	for _, tc := range []struct {
		name               string
		obs                Observation
		status             aimv1.AIMStatus
		create, apply      int
		artifact, pvc      string // the entry for src, when expected
		entryStatus        aimv1.AIMStatus
		unlisted           string // an artifact still to be made, which the status does not list
		kind, reason, comp string
	}{
		{name: "missing template fails", obs: observe(shared, nil), status: aimv1.AIMStatusFailed, comp: ComponentTemplate, reason: "ReferenceNotFound"},
		{name: "a template gone takes its kind with it", status: aimv1.AIMStatusFailed, comp: ComponentTemplate, reason: "ReferenceNotFound",
			obs: func() Observation {
				c := shared.DeepCopy()
				c.Status.ResolvedTemplateKind = KindCluster
				return observe(c, nil)
			}()},
		{name: "failed template fails the cache with its reason", status: aimv1.AIMStatusFailed, comp: ComponentTemplate, reason: "DiscoveryOutputInvalid", kind: KindNamespaced,
			obs: observe(shared, &Template{Kind: KindNamespaced, Name: "tpl", Status: aimv1.AIMStatusFailed,
				Ready: &metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "DiscoveryOutputInvalid", Message: "DiscoveryJob is not ready"}})},
		{name: "unavailable template makes the cache NotAvailable", status: aimv1.AIMStatusNotAvailable, comp: ComponentTemplate, reason: "GPUNotAvailable", kind: KindCluster,
			obs: observe(shared, &Template{Kind: KindCluster, Name: "tpl", Status: aimv1.AIMStatusNotAvailable,
				Ready: &metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "GPUNotAvailable", Message: "no node has MI355X"}})},
		{name: "degraded template degrades the cache", status: aimv1.AIMStatusDegraded, comp: ComponentTemplate, reason: ReasonTemplateNotReady, kind: KindNamespaced,
			obs: observe(shared, &Template{Kind: KindNamespaced, Name: "tpl", Status: aimv1.AIMStatusDegraded})},
		{name: "unready template waits", status: aimv1.AIMStatusPending, comp: ComponentTemplate, reason: ReasonTemplateNotReady, kind: KindNamespaced,
			obs: observe(shared, &Template{Kind: KindNamespaced, Name: "tpl", Status: aimv1.AIMStatusProgressing})},
		{name: "missing runtime config fails", status: aimv1.AIMStatusFailed, comp: ComponentRuntimeConfig, reason: "ConfigNotFound", kind: KindNamespaced,
			obs: func() Observation {
				o := observe(shared, readyTemplate(src))
				o.RuntimeConfigErr = &runtimeconfig.NotFoundError{Name: "rc", Namespace: "team"}
				return o
			}()},
		{name: "shared: creates the missing artifact", obs: observe(shared, readyTemplate(src)), status: aimv1.AIMStatusProgressing,
			create: 1, unlisted: sharedName, kind: KindNamespaced, comp: ComponentArtifacts, reason: "CreatingCaches"},
		{name: "shared: uses another cache's artifact as it is", status: aimv1.AIMStatusReady,
			obs:      observe(shared, readyTemplate(src), artifact(sharedName, aimv1.AIMStatusReady)),
			artifact: sharedName, pvc: sharedName + "-cache", entryStatus: aimv1.AIMStatusReady, kind: KindNamespaced, comp: ComponentArtifacts, reason: "AllCachesReady"},
		{name: "shared: a Ready artifact of the same source beats a failed one of the derived name", status: aimv1.AIMStatusReady,
			obs:      observe(shared, readyTemplate(src), artifact(sharedName, aimv1.AIMStatusFailed), artifact("by-hand", aimv1.AIMStatusReady)),
			artifact: "by-hand", pvc: "by-hand-cache", entryStatus: aimv1.AIMStatusReady, kind: KindNamespaced, comp: ComponentArtifacts, reason: "AllCachesReady"},
		{name: "shared: a failed artifact of another name (other credentials) is not adopted", status: aimv1.AIMStatusProgressing, create: 1,
			obs:      observe(shared, readyTemplate(src), artifact("other-creds", aimv1.AIMStatusFailed), artifact("downloading-elsewhere", aimv1.AIMStatusProgressing)),
			unlisted: sharedName, kind: KindNamespaced, comp: ComponentArtifacts, reason: "CreatingCaches"},
		{name: "shared: ignores owned artifacts and other storage classes", status: aimv1.AIMStatusProgressing, create: 1,
			obs: func() Observation {
				other := artifact("other-class", aimv1.AIMStatusReady)
				other.Spec.StorageClassName = "slow"
				return observe(shared, readyTemplate(src), artifact("owned", aimv1.AIMStatusReady, owned), other)
			}(),
			unlisted: sharedName, kind: KindNamespaced, comp: ComponentArtifacts, reason: "CreatingCaches"},
		{name: "shared: a failed artifact fails the cache", status: aimv1.AIMStatusFailed,
			obs:      observe(shared, readyTemplate(src), artifact(sharedName, aimv1.AIMStatusFailed)),
			artifact: sharedName, pvc: sharedName + "-cache", entryStatus: aimv1.AIMStatusFailed, kind: KindNamespaced, comp: ComponentArtifacts, reason: "DownloadJobNotReady"},
		{name: "shared: an artifact its controller has not reported on is still being created", status: aimv1.AIMStatusProgressing,
			obs: func() Observation {
				a := artifact(sharedName, aimv1.AIMStatusPending)
				a.Status = aimv1.AIMArtifactStatus{Status: aimv1.AIMStatusPending}
				return observe(shared, readyTemplate(src), a)
			}(),
			artifact: sharedName, entryStatus: aimv1.AIMStatusPending, kind: KindNamespaced, comp: ComponentArtifacts, reason: "CreatingCaches"},
		{name: "shared: without an artifact controller, the artifact's Ready reason", status: aimv1.AIMStatusPending,
			obs: func() Observation {
				a := artifact(sharedName, aimv1.AIMStatusPending)
				a.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionUnknown, Reason: "ControllerNotRunning", Message: "no controller"}}
				return observe(shared, readyTemplate(src), a)
			}(),
			artifact: sharedName, pvc: sharedName + "-cache", entryStatus: aimv1.AIMStatusPending, kind: KindNamespaced, comp: ComponentArtifacts, reason: "ControllerNotRunning"},
		{name: "dedicated: applies its own artifact", obs: observe(dedicated, readyTemplate(src)), status: aimv1.AIMStatusProgressing,
			apply: 1, unlisted: dedicatedName, kind: KindNamespaced, comp: ComponentArtifacts, reason: "CreatingCaches"},
		{name: "dedicated: an up-to-date artifact costs no request", obs: observe(dedicated, readyTemplate(src), upToDate()), status: aimv1.AIMStatusReady,
			artifact: dedicatedName, pvc: "pvc-d", entryStatus: aimv1.AIMStatusReady, kind: KindNamespaced, comp: ComponentArtifacts, reason: "AllCachesReady"},
		{name: "dedicated: a changed cache env re-applies", status: aimv1.AIMStatusReady, apply: 1,
			obs: func() Observation {
				a := upToDate()
				a.Spec.Env = a.Spec.Env[:1]
				return observe(dedicated, readyTemplate(src), a)
			}(),
			artifact: dedicatedName, pvc: "pvc-d", entryStatus: aimv1.AIMStatusReady, kind: KindNamespaced, comp: ComponentArtifacts, reason: "AllCachesReady"},
		{name: "dedicated: never adopts someone else's artifact", status: aimv1.AIMStatusFailed,
			obs:  observe(dedicated, readyTemplate(src), artifact(dedicatedName, aimv1.AIMStatusReady)),
			kind: KindNamespaced, comp: ComponentArtifacts, reason: ReasonArtifactConflict},
		{name: "spec sources win over the template's, which need not be Ready", status: aimv1.AIMStatusProgressing, create: 1,
			obs: func() Observation {
				c := shared.DeepCopy()
				c.Spec.ModelSources = []aimv1.AIMModelSource{src}
				return observe(c, &Template{Kind: KindCluster, Name: "tpl", Status: aimv1.AIMStatusPending, ModelSources: []aimv1.AIMModelSource{second}})
			}(),
			unlisted: sharedName, kind: KindCluster, comp: ComponentArtifacts, reason: "CreatingCaches"},
		{name: "one ready, one missing", status: aimv1.AIMStatusProgressing, create: 1,
			obs:      observe(shared, readyTemplate(src, second), artifact(sharedName, aimv1.AIMStatusReady)),
			artifact: sharedName, pvc: sharedName + "-cache", entryStatus: aimv1.AIMStatusReady, unlisted: ArtifactName(shared, second),
			kind: KindNamespaced, comp: ComponentArtifacts, reason: "CreatingCaches"},
		// As aim-engine: the worst existing artifact, when worse than Progressing, holds while another is made.
		{name: "one failed, one missing", status: aimv1.AIMStatusFailed, create: 1,
			obs:      observe(shared, readyTemplate(src, second), artifact(sharedName, aimv1.AIMStatusFailed)),
			artifact: sharedName, pvc: sharedName + "-cache", entryStatus: aimv1.AIMStatusFailed, unlisted: ArtifactName(shared, second),
			kind: KindNamespaced, comp: ComponentArtifacts, reason: "CreatingCaches"},
		{name: "no sources is trivially Ready", obs: observe(shared, readyTemplate()), status: aimv1.AIMStatusReady,
			kind: KindNamespaced, comp: ComponentArtifacts, reason: "NoCaches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PlanCache(tc.obs)
			if got := derive(tc.obs.Cache, p); got != tc.status {
				t.Errorf("status %s, want %s (%+v)", got, tc.status, p.Components)
			}
			if len(p.Create) != tc.create || len(p.Apply) != tc.apply {
				t.Errorf("create %d apply %d, want %d %d", len(p.Create), len(p.Apply), tc.create, tc.apply)
			}
			if p.Status.ResolvedTemplateKind != tc.kind || p.Status.ObservedGeneration != 2 {
				t.Errorf("resolvedTemplateKind %q observedGeneration %d", p.Status.ResolvedTemplateKind, p.Status.ObservedGeneration)
			}
			var comp *state.Component
			for i := range p.Components {
				if p.Components[i].Name == tc.comp {
					comp = &p.Components[i]
				}
			}
			if comp == nil {
				t.Fatalf("no %s component: %+v", tc.comp, p.Components)
			}
			// The condition's reason: the component's own, else its first error's.
			reason := comp.Reason
			if len(comp.Errors) > 0 && reason == "" {
				if se, ok := comp.Errors[0].(*state.Error); ok {
					reason = se.Reason
				}
			}
			if reason != tc.reason {
				t.Errorf("%s reason %q, want %q (%+v)", tc.comp, reason, tc.reason, comp)
			}
			// Status validation requires every entry's uid: only artifacts that exist are listed, as aim-engine
			// lists them.
			for name, e := range p.Status.Artifacts {
				if e.UID == "" {
					t.Errorf("status entry %q without a uid: %+v", name, e)
				}
			}
			if _, listed := p.Status.Artifacts[tc.unlisted]; tc.unlisted != "" && listed {
				t.Errorf("artifact %q, still to be made, is listed: %v", tc.unlisted, p.Status.Artifacts)
			}
			if tc.artifact == "" {
				return
			}
			e, ok := p.Status.Artifacts[tc.artifact]
			if !ok {
				t.Fatalf("no status entry %q in %v", tc.artifact, p.Status.Artifacts)
			}
			// No mountPoint, as aim-engine lists its artifacts.
			if e.Name != tc.artifact || e.Model != "org/m" || e.MountPoint != "" || e.Status != tc.entryStatus ||
				e.PersistentVolumeClaim != tc.pvc {
				t.Errorf("entry %+v", e)
			}
		})
	}
}

func TestArtifactsToClean(t *testing.T) {
	art := func(name string, st aimv1.AIMStatus, owned bool) *aimv1.AIMArtifact {
		a := &aimv1.AIMArtifact{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue}},
			Status: aimv1.AIMArtifactStatus{Status: st}}
		if owned {
			a.OwnerReferences = []metav1.OwnerReference{{Kind: "AIMTemplateCache", Name: "c"}}
		}
		return a
	}
	cacheWith := func(uid string, deleting bool, names ...string) *aimv1.AIMTemplateCache {
		c := &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: uid, UID: types.UID(uid)}, Status: aimv1.AIMTemplateCacheStatus{
			Artifacts: map[string]aimv1.AIMTemplateCacheArtifactStatus{}}}
		for _, n := range names {
			c.Status.Artifacts[n] = aimv1.AIMTemplateCacheArtifactStatus{Name: n}
		}
		if deleting {
			c.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return c
	}
	me := cacheWith("me", true, "pending", "ready", "dedicated", "shared-with-other", "shared-with-deleting", "users-own", "aim-engines", "other-controllers")
	users := art("users-own", aimv1.AIMStatusProgressing, false)
	users.Labels = nil
	// Made by aim-engine's template cache controller before the migration, and by another of its controllers.
	engines, others := art("aim-engines", aimv1.AIMStatusFailed, false), art("other-controllers", aimv1.AIMStatusFailed, false)
	engines.Labels[aimv1.LabelManagedBy], others.Labels[aimv1.LabelManagedBy] = "aim-template-cache-controller", "aim-artifact-controller"
	artifacts := []*aimv1.AIMArtifact{engines, others, art("pending", aimv1.AIMStatusProgressing, false), art("ready", aimv1.AIMStatusReady, false),
		art("dedicated", aimv1.AIMStatusProgressing, true), art("shared-with-other", aimv1.AIMStatusProgressing, false),
		art("shared-with-deleting", aimv1.AIMStatusFailed, false), art("not-mine", aimv1.AIMStatusProgressing, false), users}
	got := ArtifactsToClean(me, artifacts, []*aimv1.AIMTemplateCache{me, cacheWith("other", false, "shared-with-other"), cacheWith("dying", true, "shared-with-deleting")})
	var names []string
	for _, a := range got {
		names = append(names, a.Name)
	}
	if d := cmp.Diff([]string{"aim-engines", "pending", "shared-with-deleting"}, names); d != "" {
		t.Errorf("cleaned artifacts (-want +got):\n%s", d)
	}
	// One the cache made and no longer lists (its sources changed since): labelled with its name.
	earlier := art("earlier", aimv1.AIMStatusFailed, false)
	earlier.Labels[LabelCache] = "me"
	if got := ArtifactsToClean(me, []*aimv1.AIMArtifact{earlier}, nil); len(got) != 1 {
		t.Errorf("an artifact labelled with the cache, no longer listed: cleaned %v", got)
	}
}

// TestPlanCacheDeletesSupersededArtifacts: a Shared cache whose env changed (new credentials after a failed download)
// gets a new artifact; the one it made before, not Ready, would hold its volume and retry its download for good:
// it is deleted, unless another cache lists it or it is Ready.
func TestPlanCacheDeletesSupersededArtifacts(t *testing.T) {
	c := testCache("c", aimv1.AIMTemplateCacheModeShared)
	old := DesiredArtifact(c, src, 0, runtimeconfig.Resolved{})
	old.UID, old.Status = "uid-old", reported(aimv1.AIMStatusFailed, "pvc-old")
	c.Status.Artifacts = map[string]aimv1.AIMTemplateCacheArtifactStatus{old.Name: {Name: old.Name, Status: aimv1.AIMStatusFailed}}
	c.Spec.Env = []corev1.EnvVar{{Name: "HF_TOKEN", Value: "new"}}
	if DesiredArtifact(c, src, 0, runtimeconfig.Resolved{}).Name == old.Name {
		t.Fatal("the env is not in the artifact's name: the test proves nothing")
	}
	o := observe(c, readyTemplate(src), old)
	if p := PlanCache(o); len(p.Superseded) != 1 || p.Superseded[0].Name != old.Name || len(p.Create) != 1 {
		t.Errorf("superseded %v, create %v; want the old artifact deleted and a new one made", p.Superseded, p.Create)
	}
	other := testCache("other", aimv1.AIMTemplateCacheModeShared)
	other.Status.Artifacts = map[string]aimv1.AIMTemplateCacheArtifactStatus{old.Name: {Name: old.Name}}
	o.Caches = []*aimv1.AIMTemplateCache{c, other}
	if p := PlanCache(o); len(p.Superseded) != 0 {
		t.Errorf("another cache lists it: superseded %v", p.Superseded)
	}
	o.Caches, old.Status = nil, reported(aimv1.AIMStatusReady, "pvc-old")
	if p := PlanCache(o); len(p.Superseded) != 0 {
		t.Errorf("a Ready artifact (a download is worth keeping): superseded %v", p.Superseded)
	}
}

// TestArtifactsComponentPropagatesTheWorstReason: a cache whose artifacts exist but are not all Ready says
// which one and why, with that artifact's Ready reason (aim-engine's ArtifactsReady).
func TestArtifactsComponentPropagatesTheWorstReason(t *testing.T) {
	c := artifactsComponent([]artifactState{
		{name: "b", status: aimv1.AIMStatusReady},
		{name: "a", status: aimv1.AIMStatusFailed, ready: &metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse,
			Reason: "DownloadFailed", Message: "401 from huggingface.co"}},
		{name: "c", status: aimv1.AIMStatusProgressing},
	}, nil)
	if c.State != aimv1.AIMStatusFailed || c.Reason != "DownloadFailed" || c.Message != "One or more caches are not ready: 401 from huggingface.co" {
		t.Errorf("component %+v", c)
	}
	// Without a Ready condition to lend, aim-engine's own words (reconcile.go:453).
	c = artifactsComponent([]artifactState{{name: "a", status: aimv1.AIMStatusDegraded}}, nil)
	if c.State != aimv1.AIMStatusDegraded || c.Reason != ReasonCachesNotReady || c.Message != "One or more caches are not ready" {
		t.Errorf("component %+v", c)
	}
}

// TestServiceTemplateReadyCopiesTheTemplate: ServiceTemplateReady carries a Ready template's own Ready reason and
// message, and aim-engine's words for one without the condition, as its getComponentHealthFromStatus reads them.
func TestServiceTemplateReadyCopiesTheTemplate(t *testing.T) {
	for _, tc := range []struct {
		ready           *metav1.Condition
		reason, message string
	}{
		{&metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "AllComponentsReady", Message: "All components are ready"},
			"AllComponentsReady", "All components are ready"},
		{nil, ReasonResourceFound, MessageNoReadyCondition},
	} {
		tpl := readyTemplate()
		tpl.Ready = tc.ready
		p := PlanCache(observe(testCache("a", aimv1.AIMTemplateCacheModeShared), tpl))
		i := slices.IndexFunc(p.Components, func(c state.Component) bool { return c.Name == ComponentTemplate })
		if i < 0 || p.Components[i].Reason != tc.reason || p.Components[i].Message != tc.message {
			t.Errorf("Ready condition %v: components %+v, want ServiceTemplate %s %q", tc.ready, p.Components, tc.reason, tc.message)
		}
	}
}

// TestMatchIsStable: of two Ready artifacts of other names that serve a Shared cache equally, the one the cache
// lists already, else the first by name, whatever order the lister returns them in: a cache that moved between
// them would remount its services' pods.
func TestMatchIsStable(t *testing.T) {
	c := testCache("c", aimv1.AIMTemplateCacheModeShared)
	desired := DesiredArtifact(c, src, 0, runtimeconfig.Resolved{})
	x, y := artifact("made-by-x", aimv1.AIMStatusReady), artifact("made-by-y", aimv1.AIMStatusReady)
	for _, order := range [][]*aimv1.AIMArtifact{{x, y}, {y, x}} {
		if got, err := match(c, desired, order); err != nil || got != x {
			t.Errorf("order %s, %s: matched %v (%v), want made-by-x", order[0].Name, order[1].Name, got.GetName(), err)
		}
	}
	c.Status.Artifacts = map[string]aimv1.AIMTemplateCacheArtifactStatus{"made-by-y": {Name: "made-by-y"}}
	for _, order := range [][]*aimv1.AIMArtifact{{x, y}, {y, x}} {
		if got, err := match(c, desired, order); err != nil || got != y {
			t.Errorf("listed made-by-y, order %s, %s: matched %v (%v)", order[0].Name, order[1].Name, got.GetName(), err)
		}
	}
}

// TestUpToDateWithTheServersDefaults: a Dedicated artifact as the server stores it, its defaults filled in (the
// downloader image of a cache that names none), is up to date with the desired one, which leaves them out: no
// apply on every reconcile.
func TestUpToDateWithTheServersDefaults(t *testing.T) {
	c := testCache("c", aimv1.AIMTemplateCacheModeDedicated)
	// No downloader image named: the server fills in the default one; and an env value from a file key, whose
	// optional it fills in.
	c.Spec.DownloadImage = ""
	c.Spec.Env = []corev1.EnvVar{{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "creds", Path: "hf.env", Key: "token"}}}}
	desired := DesiredArtifact(c, src, 0, runtimeconfig.Resolved{})
	live := desired.DeepCopy()
	aimv1.SetObjectDefaults_AIMArtifact(live)
	if aimv1.SemanticEqual(live.Spec, desired.Spec) {
		t.Fatal("the defaults change nothing here: the test proves nothing")
	}
	if !upToDate(live, desired) {
		t.Errorf("the stored artifact (defaulted) is not up to date with the desired one")
	}
	live.Spec.SourceURI = "hf://org/other"
	if upToDate(live, desired) {
		t.Error("another source is up to date")
	}
}
