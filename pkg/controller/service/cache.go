package service

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// CachePlan is what the service does about its model cache.
type CachePlan struct {
	// Create is a template cache to create; Use the one the service reads.
	Create, Use *aimv1.AIMTemplateCache
	// Mounts are the ready artifacts the InferenceService mounts.
	Mounts []kserve.CacheMount
	// Component is nil when the service needs no cache: its template has nothing to download.
	Component *state.Component
}

// PlanCache decides on the cache of a service running template t. existing are the namespace's template
// caches. A Shared cache is any shared cache of the template and belongs to no service; a Dedicated one is the
// service's own.
func PlanCache(svc *aimv1.AIMService, t Template, existing []*aimv1.AIMTemplateCache, rc runtimeconfig.Resolved) CachePlan {
	if len(t.Status.ModelSources) == 0 {
		return CachePlan{}
	}
	want := desiredCache(svc, t, rc, svc.Spec.GetCachingMode())
	use := cacheInUse(want, existing)
	comp := state.Component{Name: ComponentCache, Dependency: state.DependencyDownstream}
	if use == nil {
		// aim-engine's shared cache name hashes only the namespace: a namespaced and a cluster template of the
		// same name would share it, and the second could never be created.
		for _, c := range existing {
			if c.Name == want.Name {
				comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonCacheConflict,
					"AIMTemplateCache %s, the name of this template's shared cache, already caches template %s (scope %s, mode %s); rename one of the templates",
					c.Name, c.Spec.TemplateName, cmp.Or(string(c.Spec.TemplateScope), "unset"), cmp.Or(string(c.Spec.Mode), "Shared"))}
				return CachePlan{Component: &comp}
			}
		}
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonCacheCreating, "creating AIMTemplateCache "+want.Name
		return CachePlan{Create: want, Component: &comp}
	}
	what := "AIMTemplateCache " + use.Name
	// A cache that is not Ready is quoted by its status alone, as aim-engine says "Template cache is
	// progressing" (reconcile.go:664): how far a download is shows on its artifact, and quoting that here
	// would rewrite the status of every service of the cache at each step the downloader reports.
	notReady := what + " is " + string(cmp.Or(use.Status.Status, aimv1.AIMStatusPending))
	// The reasons and states are aim-engine's (getCacheHealth): only a Failed cache fails the service; one that
	// is Pending, NotAvailable or Degraded is still being made.
	switch use.Status.Status {
	case aimv1.AIMStatusReady:
		comp.Reason, comp.Message = ReasonCacheReady, what
	case aimv1.AIMStatusProgressing:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonCacheNotReady, notReady
	case aimv1.AIMStatusFailed:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, ReasonCacheFailed, notReady
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonCacheCreating, notReady
	}
	return CachePlan{Use: use, Mounts: Mounts(use), Component: &comp}
}

// desiredCache is the template cache a service in mode (Shared or Dedicated) wants for template t.
func desiredCache(svc *aimv1.AIMService, t Template, rc runtimeconfig.Resolved, mode aimv1.AIMCachingMode) *aimv1.AIMTemplateCache {
	scope := aimv1.AIMTemplateScopeNamespace
	if t.Namespace == "" {
		scope = aimv1.AIMTemplateScopeCluster
	}
	want := &aimv1.AIMTemplateCache{
		TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMTemplateCache"},
		// aim-engine's labels: the service (the one that made a shared cache) and the framework label. Not
		// aim.eai.amd.com/template: every aim.eai.amd.com/* label reaches the cache's artifacts and their Jobs,
		// and aim-engine takes a Job with that label as the template's discovery Job (discovery.go:256).
		ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace,
			Labels: childlabels.For(childlabels.Service, svc, rc, map[string]string{aimv1.LabelService: naming.LabelValue(svc.Name)})},
		Spec: aimv1.AIMTemplateCacheSpec{TemplateName: t.Name, TemplateScope: scope, RuntimeConfigName: svc.Spec.RuntimeConfigName,
			StorageClassName: storageClass(svc, rc)},
	}
	var cachingEnv []corev1.EnvVar
	if t.Caching != nil {
		cachingEnv = t.Caching.Env
	}
	want.Spec.Env = env.Merge(t.Spec.Env, cachingEnv, svc.Spec.Env)
	if mode == aimv1.AIMCachingModeDedicated {
		want.Name = naming.DerivedName([]string{t.Name, svc.Name}, naming.HashLength, naming.MaxLength, string(svc.UID))
		want.Spec.Mode = aimv1.AIMTemplateCacheModeDedicated
		want.OwnerReferences = []metav1.OwnerReference{ownerRef(svc)}
	} else {
		want.Name = naming.DerivedName([]string{t.Name}, naming.HashLength, naming.MaxLength, svc.Namespace)
		want.Spec.Mode = aimv1.AIMTemplateCacheModeShared
	}
	return want
}

// cacheInUse is the cache a service reads: its Dedicated cache of want's name, or the healthiest shared cache of
// the template, by the order of states the status takes (Ready, then Progressing, Pending, Degraded, ...), then
// by name, as aim-engine picks it (caching.go:292, the API's list being in name order).
func cacheInUse(want *aimv1.AIMTemplateCache, existing []*aimv1.AIMTemplateCache) *aimv1.AIMTemplateCache {
	if want.Spec.Mode == aimv1.AIMTemplateCacheModeDedicated {
		for _, c := range existing {
			if c.Name == want.Name {
				return c
			}
		}
		return nil
	}
	var shared []*aimv1.AIMTemplateCache
	for _, c := range existing {
		if c.Spec.TemplateName == want.Spec.TemplateName && c.Spec.Mode != aimv1.AIMTemplateCacheModeDedicated &&
			(c.Spec.TemplateScope == want.Spec.TemplateScope || c.Spec.TemplateScope == "" || c.Spec.TemplateScope == aimv1.AIMTemplateScopeUnknown) {
			shared = append(shared, c)
		}
	}
	slices.SortFunc(shared, func(a, b *aimv1.AIMTemplateCache) int {
		switch {
		case state.Worse(b.Status.Status, a.Status.Status):
			return -1
		case state.Worse(a.Status.Status, b.Status.Status):
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(shared) == 0 {
		return nil
	}
	return shared[0]
}

// Mounts are a cache's ready artifacts as volumes, in a stable order.
func Mounts(c *aimv1.AIMTemplateCache) []kserve.CacheMount {
	var out []kserve.CacheMount
	for _, a := range c.Status.Artifacts {
		if a.Status != aimv1.AIMStatusReady || a.PersistentVolumeClaim == "" || a.Model == "" {
			continue
		}
		// The volume is named after the artifact, as aim-engine names it, so that adopting an InferenceService
		// aim-engine made does not rewrite its volumes (and restart its pods).
		out = append(out, kserve.CacheMount{ModelID: a.Model, PVC: a.PersistentVolumeClaim, Volume: naming.RFC1123Label(a.Name)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ModelID < out[j].ModelID })
	return out
}

// storageClass is the service's storage class, else the runtime config's, else the cluster default ("").
func storageClass(svc *aimv1.AIMService, rc runtimeconfig.Resolved) string {
	if s := svc.Spec.Storage; s != nil && s.DefaultStorageClassName != nil {
		return *s.DefaultStorageClassName
	}
	if s := rc.Spec.Storage; s != nil && s.DefaultStorageClassName != nil {
		return *s.DefaultStorageClassName
	}
	return "" // the legacy top-level field is in rc.Spec.Storage (runtimeconfig.Resolve)
}

// templatesInUse are the templates the live services of the namespace but svc name in spec.template.name or run on
// (status.resolvedTemplate): theirs too, and their caches with them.
func templatesInUse(svc *aimv1.AIMService, services []*aimv1.AIMService) map[string]bool {
	out := map[string]bool{}
	for _, o := range services {
		if o.UID == svc.UID || o.DeletionTimestamp != nil {
			continue
		}
		if o.Spec.Template != nil && o.Spec.Template.Name != "" {
			out[o.Spec.Template.Name] = true
		}
		if o.Status.ResolvedTemplate != nil {
			out[o.Status.ResolvedTemplate.Name] = true
		}
	}
	return out
}

// FinalizerCacheCleanup lets a deleted service remove the shared cache it started when nobody needs it.
const FinalizerCacheCleanup = "aim.eai.amd.com/template-cache-cleanup"

// CachesToClean are the shared caches a deleted service leaves that nobody needs: made by this controller (or by
// aim-engine's service controller, before a migration: childlabels.MadeBy) for the service's template (so not a
// template's own or a user's cache), not Ready (a ready cache is worth keeping for the next service) unless no
// next service can run on its template (unusable: the service's own derived template, or a namespaced template
// that is gone), and not for the template of another live service of the namespace. Dedicated caches need no
// finalizer: the service owns them. The Ready artifacts of a cache stay either way (ArtifactsToClean).
func CachesToClean(svc *aimv1.AIMService, caches []*aimv1.AIMTemplateCache, services []*aimv1.AIMService, unusable bool) []*aimv1.AIMTemplateCache {
	ref := svc.Status.ResolvedTemplate
	if ref == nil || ref.Name == "" || templatesInUse(svc, services)[ref.Name] {
		return nil
	}
	mine := ref.Name
	var out []*aimv1.AIMTemplateCache
	for _, c := range caches {
		if c.Spec.TemplateName == mine && c.Spec.Mode != aimv1.AIMTemplateCacheModeDedicated && len(c.OwnerReferences) == 0 &&
			childlabels.MadeBy(c.Labels, childlabels.Service) && (unusable || c.Status.Status != aimv1.AIMStatusReady) {
			out = append(out, c)
		}
	}
	return out
}
