package templatecache

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// FieldManager owns the artifacts the cache controller applies.
const FieldManager = "aim-template-cache-controller"

// Controller reconciles AIMTemplateCaches.
type Controller struct {
	c manager.Clients

	caches           aimlisters.AIMTemplateCacheLister
	artifacts        aimlisters.AIMArtifactLister
	templates        aimlisters.AIMServiceTemplateLister
	clusterTemplates aimlisters.AIMClusterServiceTemplateLister
	configs          runtimeconfig.Configs

	ctl *manager.Controller
}

// Register adds the template cache controller to the manager.
func Register(m *manager.Manager) error {
	v := m.AIMInformers.Aim().V1alpha1()
	ctl := &Controller{c: m.Clients,
		caches: v.AIMTemplateCaches().Lister(), artifacts: v.AIMArtifacts().Lister(),
		templates: v.AIMServiceTemplates().Lister(), clusterTemplates: v.AIMClusterServiceTemplates().Lister(),
		configs: runtimeconfig.ConfigsOf(v),
	}
	// Events name the controller as their source, as aim-engine's do.
	ctl.c.Recorder = m.RecorderFor(FieldManager)
	var err error
	if ctl.ctl, err = manager.NewKindController("template-cache", manager.ReconcilerFunc(ctl.reconcile), v.AIMTemplateCaches().Informer()); err != nil {
		return err
	}
	return m.Add(ctl.ctl, append(runtimeconfig.Dependencies(v, ctl.handler(ctl.configCaches)),
		manager.Dependency{Informer: v.AIMArtifacts().Informer(), Handler: ctl.handler(ctl.artifactCaches)},
		manager.Dependency{Informer: v.AIMServiceTemplates().Informer(), Handler: ctl.handler(func(m metav1.Object) []*aimv1.AIMTemplateCache {
			return ctl.templateCaches(m.GetNamespace(), m.GetName(), aimv1.AIMTemplateScopeNamespace)
		})},
		manager.Dependency{Informer: v.AIMClusterServiceTemplates().Informer(), Handler: ctl.handler(func(m metav1.Object) []*aimv1.AIMTemplateCache {
			return ctl.templateCaches("", m.GetName(), aimv1.AIMTemplateScopeCluster)
		})},
	)...)
}

func (ctl *Controller) reconcile(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	namespace, name := key.Namespace, key.Name
	c, ok, err := reconcile.LookupFinalized(ctx, func() (*aimv1.AIMTemplateCache, error) { return ctl.caches.AIMTemplateCaches(namespace).Get(name) },
		FinalizerArtifactCleanup, ctl.patchCache(namespace), func(c *aimv1.AIMTemplateCache) error { return ctl.cleanupArtifacts(ctx, c) },
		legacyFinalizerArtifactCleanup)
	if !ok {
		return 0, err
	}
	o := Observation{Cache: c}
	o.RuntimeConfig, o.RuntimeConfigErr = ctl.configs.Lookup(c.Spec.RuntimeConfigName, namespace)
	o.Template, o.TemplateErr = ctl.resolveTemplate(c)
	if o.Artifacts, err = ctl.artifacts.AIMArtifacts(namespace).List(labels.Everything()); err != nil {
		return 0, fmt.Errorf("listing the artifacts of namespace %s: %w", namespace, err)
	}
	// Which artifacts other caches list decides which of this one's go (Plan.Superseded): not read, none may.
	if o.Caches, err = ctl.caches.AIMTemplateCaches(namespace).List(labels.Everything()); err != nil {
		return 0, fmt.Errorf("listing the template caches of namespace %s: %w", namespace, err)
	}
	plan := PlanCache(o)

	var applyErr error
	for _, a := range plan.Apply {
		if applyErr = ctl.apply(ctx, a); applyErr != nil {
			break
		}
	}
	for _, a := range plan.Create {
		if applyErr != nil {
			break
		}
		// Create, not apply: a Shared artifact another cache made first is used as it is.
		applyErr = reconcile.CreateShared(ctx, "AIMArtifact", a, ctl.c.AIM.AimV1alpha1().AIMArtifacts(namespace).Create, FieldManager)
	}
	if applyErr == nil && plan.InUse != nil {
		applyErr = reconcile.DeleteStale(ctx, ctl.c.Recorder, c, []string{FieldManager}, "AIMArtifact", o.Artifacts, plan.InUse, ctl.c.AIM.AimV1alpha1().AIMArtifacts(namespace).Delete)
	}
	if applyErr == nil {
		applyErr = reconcile.DeleteUnneeded(ctx, "artifact", plan.Superseded, ctl.c.AIM.AimV1alpha1().AIMArtifacts(namespace).Delete,
			reconcile.StaleDeleted[*aimv1.AIMArtifact](ctl.c.Recorder, c, "AIMArtifact"))
	}
	if applyErr != nil {
		plan.Components = state.WriteFailed(plan.Components, ComponentArtifacts, applyErr)
	}

	return reconcile.Conclude(ctl.c.Recorder, c, "template cache "+key.String(), c.Status, plan.Status,
		reconcile.Outcome{Components: plan.Components, ApplyErr: applyErr},
		reconcile.StatusWriter(ctx, c, ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(namespace).UpdateStatus, FieldManager))
}

// cleanupArtifacts removes the shared artifacts a deleted cache leaves unneeded.
func (ctl *Controller) cleanupArtifacts(ctx context.Context, c *aimv1.AIMTemplateCache) error {
	artifacts, _ := ctl.artifacts.AIMArtifacts(c.Namespace).List(labels.Everything())
	caches, _ := ctl.caches.AIMTemplateCaches(c.Namespace).List(labels.Everything())
	return reconcile.DeleteUnneeded(ctx, "artifact", ArtifactsToClean(c, artifacts, caches),
		ctl.c.AIM.AimV1alpha1().AIMArtifacts(c.Namespace).Delete, nil)
}

func (ctl *Controller) patchCache(namespace string) func(context.Context, string, []byte) error {
	return func(ctx context.Context, name string, data []byte) error {
		_, err := ctl.c.AIM.AimV1alpha1().AIMTemplateCaches(namespace).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: FieldManager})
		return err
	}
}

// resolveTemplate finds the cache's template by its scope; without one, the namespace's first, then the
// cluster's.
func (ctl *Controller) resolveTemplate(c *aimv1.AIMTemplateCache) (*Template, error) {
	name, scope := c.Spec.TemplateName, c.Spec.TemplateScope
	if scope != aimv1.AIMTemplateScopeCluster {
		switch t, err := ctl.templates.AIMServiceTemplates(c.Namespace).Get(name); {
		case err == nil:
			return templateOf(KindNamespaced, t.Name, t.Generation, &t.Status), nil
		case !apierrors.IsNotFound(err):
			return nil, err
		}
	}
	if scope != aimv1.AIMTemplateScopeNamespace {
		switch t, err := ctl.clusterTemplates.Get(name); {
		case err == nil:
			return templateOf(KindCluster, t.Name, t.Generation, &t.Status), nil
		case !apierrors.IsNotFound(err):
			return nil, err
		}
	}
	switch scope {
	case aimv1.AIMTemplateScopeNamespace:
		return nil, state.NewError(state.MissingUpstream, ReasonTemplateNotFound, "AIMServiceTemplate %q not found in namespace %s", name, c.Namespace)
	case aimv1.AIMTemplateScopeCluster:
		return nil, state.NewError(state.MissingUpstream, ReasonTemplateNotFound, "AIMClusterServiceTemplate %q not found", name)
	}
	return nil, state.NewError(state.MissingUpstream, ReasonTemplateNotFound,
		"neither AIMServiceTemplate %q in namespace %s nor AIMClusterServiceTemplate %q exists", name, c.Namespace, name)
}

// templateOf is the cache's view of a template; Stale says so when its status is of an earlier spec
// (state.StaleStatus), which planTemplate decides on.
func templateOf(kind, name string, generation int64, st *aimv1.AIMServiceTemplateStatus) *Template {
	t := &Template{Kind: kind, Name: name, Status: st.Status, ModelSources: st.ModelSources, Ready: meta.FindStatusCondition(st.Conditions, state.ConditionReady)}
	if state.StaleStatus(generation, st.ObservedGeneration) {
		t.Stale = state.StaleMessage(kind+" "+name, generation, st.ObservedGeneration)
	}
	return t
}

// apply server-side applies a Dedicated artifact.
func (ctl *Controller) apply(ctx context.Context, a *aimv1.AIMArtifact) error {
	_, err := reconcile.Apply(ctx, a, ctl.c.AIM.AimV1alpha1().AIMArtifacts(a.Namespace).Apply, FieldManager)
	return err
}

// handler enqueues the caches an event concerns.
func (ctl *Controller) handler(caches func(metav1.Object) []*aimv1.AIMTemplateCache) cache.ResourceEventHandler {
	return manager.OnEvery(func(m metav1.Object) {
		for _, c := range caches(m) {
			ctl.ctl.Add(cache.MetaObjectToName(c))
		}
	})
}

// artifactCaches are the caches an artifact may serve: its owner, or for a Shared artifact every cache of
// the namespace (they find it by source).
func (ctl *Controller) artifactCaches(m metav1.Object) []*aimv1.AIMTemplateCache {
	list, _ := ctl.caches.AIMTemplateCaches(m.GetNamespace()).List(labels.Everything())
	if len(m.GetOwnerReferences()) == 0 {
		return list
	}
	var out []*aimv1.AIMTemplateCache
	for _, c := range list {
		if reconcile.OwnedBy(m, c.UID) {
			out = append(out, c)
		}
	}
	return out
}

// templateCaches are the caches naming a template; namespace is empty for a cluster template.
func (ctl *Controller) templateCaches(namespace, name string, scope aimv1.AIMTemplateScope) []*aimv1.AIMTemplateCache {
	list, _ := ctl.caches.AIMTemplateCaches(namespace).List(labels.Everything())
	var out []*aimv1.AIMTemplateCache
	for _, c := range list {
		other := aimv1.AIMTemplateScopeCluster
		if scope == aimv1.AIMTemplateScopeCluster {
			other = aimv1.AIMTemplateScopeNamespace
		}
		if c.Spec.TemplateName == name && c.Spec.TemplateScope != other {
			out = append(out, c)
		}
	}
	return out
}

// configCaches are the caches a runtime config can matter to.
func (ctl *Controller) configCaches(cfg metav1.Object) []*aimv1.AIMTemplateCache {
	list, _ := ctl.caches.AIMTemplateCaches(cfg.GetNamespace()).List(labels.Everything())
	return slices.DeleteFunc(list, func(c *aimv1.AIMTemplateCache) bool {
		return !runtimeconfig.Affects(cfg, c.Namespace, c.Spec.RuntimeConfigName)
	})
}
