package templatecache

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// TestResolveTemplateByScope: a cache's templateScope names the kind of its template; without one, the
// namespace's template wins over the cluster's of the same name.
func TestResolveTemplateByScope(t *testing.T) {
	namespaced := &aimv1.AIMServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tpl", Namespace: "team"}}
	cluster := &aimv1.AIMClusterServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tpl"}}
	for _, tc := range []struct {
		name               string
		scope              aimv1.AIMTemplateScope
		namespace, cluster bool
		wantKind, wantErr  string
	}{
		{name: "no scope, both", namespace: true, cluster: true, wantKind: KindNamespaced},
		{name: "no scope, cluster only", cluster: true, wantKind: KindCluster},
		{name: "unknown scope, cluster only", scope: aimv1.AIMTemplateScopeUnknown, cluster: true, wantKind: KindCluster},
		{name: "no scope, none", wantErr: `neither AIMServiceTemplate "tpl" in namespace team nor AIMClusterServiceTemplate "tpl" exists`},
		{name: "namespace scope, cluster only", scope: aimv1.AIMTemplateScopeNamespace, cluster: true,
			wantErr: `AIMServiceTemplate "tpl" not found in namespace team`},
		{name: "cluster scope, both", scope: aimv1.AIMTemplateScopeCluster, namespace: true, cluster: true, wantKind: KindCluster},
		{name: "cluster scope, namespaced only", scope: aimv1.AIMTemplateScopeCluster, namespace: true,
			wantErr: `AIMClusterServiceTemplate "tpl" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			cl := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			if tc.namespace {
				_ = ns.Add(namespaced)
			}
			if tc.cluster {
				_ = cl.Add(cluster)
			}
			ctl := &Controller{templates: aimlisters.NewAIMServiceTemplateLister(ns), clusterTemplates: aimlisters.NewAIMClusterServiceTemplateLister(cl)}
			c := &aimv1.AIMTemplateCache{ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: "team"},
				Spec: aimv1.AIMTemplateCacheSpec{TemplateName: "tpl", TemplateScope: tc.scope}}
			got, err := ctl.resolveTemplate(c)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("got %+v, %v; want an error saying %q", got, err, tc.wantErr)
				}
			case err != nil || got == nil || got.Kind != tc.wantKind:
				t.Errorf("got %+v, %v; want the %s", got, err, tc.wantKind)
			}
		})
	}
}

// TestStaleTemplateIsWaitedFor: a cache that has made no artifact yet waits for a template whose status is of an
// earlier spec, saying why, and makes no artifact of the model sources that status lists, which may be of a spec
// that is gone. A cache that has its artifacts takes the status as it is (no Pending and back at every edit of the
// template), as does every cache for a current status or one without observedGeneration (aim-engine's).
func TestStaleTemplateIsWaitedFor(t *testing.T) {
	status := func(observed int64) *aimv1.AIMServiceTemplateStatus {
		return &aimv1.AIMServiceTemplateStatus{Status: aimv1.AIMStatusReady, ObservedGeneration: observed, ModelSources: []aimv1.AIMModelSource{src},
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "AllComponentsReady"}}}
	}
	templateComponent := func(p Plan) state.Component {
		i := slices.IndexFunc(p.Components, func(c state.Component) bool { return c.Name == ComponentTemplate })
		if i < 0 {
			t.Fatalf("no template component: %+v", p.Components)
		}
		return p.Components[i]
	}
	fresh := testCache("c", aimv1.AIMTemplateCacheModeShared)
	p := PlanCache(observe(fresh, templateOf(KindNamespaced, "tpl", 3, status(2))))
	if len(p.Create)+len(p.Apply) != 0 {
		t.Errorf("artifacts made from a stale template's sources: create %d, apply %d", len(p.Create), len(p.Apply))
	}
	if c := templateComponent(p); c.State != aimv1.AIMStatusPending || !strings.Contains(c.Message, "its status is of generation 2, its spec of generation 3") {
		t.Errorf("template component of a stale template: %+v", c)
	}
	for _, observed := range []int64{3, 0} {
		if p := PlanCache(observe(fresh, templateOf(KindNamespaced, "tpl", 3, status(observed)))); len(p.Create) != 1 {
			t.Errorf("observedGeneration %d of 3: create %d artifacts, want 1", observed, len(p.Create))
		}
	}
	made := fresh.DeepCopy()
	made.Status.Artifacts = map[string]aimv1.AIMTemplateCacheArtifactStatus{ArtifactName(fresh, src): {Name: ArtifactName(fresh, src), Model: src.ModelID}}
	if c := templateComponent(PlanCache(observe(made, templateOf(KindNamespaced, "tpl", 3, status(2))))); c.State != aimv1.AIMStatusReady {
		t.Errorf("a cache with its artifacts, stale template: %+v, want it taken as it is", c)
	}
}
