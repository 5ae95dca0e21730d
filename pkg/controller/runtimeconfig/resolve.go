// Package runtimeconfig resolves the runtime config an AIM object takes its defaults from: the namespaced
// AIMRuntimeConfig of the name laid over the AIMClusterRuntimeConfig of the same name, field by field, where a
// field that is set in the namespaced config wins even when it is false, zero or empty (F13).
package runtimeconfig

import (
	"cmp"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aiminformers "github.com/aim-apiserver/aim-apiserver/pkg/generated/informers/externalversions/aim/v1alpha1"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// DefaultName is the config every object uses unless it names another; it may be absent.
const DefaultName = aimv1.DefaultRuntimeConfigName

// Defaults used when no config sets a field.
const (
	DefaultPVCHeadroomPercent       = aimv1.DefaultPVCHeadroomPercent
	DefaultMaxConcurrentJobs  int32 = 10
)

// DefaultAccessModes of model cache volumes (F15: configurable, ReadWriteMany unless set).
var DefaultAccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}

// Resolved is the effective config of an object.
type Resolved struct {
	// Name is the config name that was looked up.
	Name string
	// Spec is the merged spec; empty when no config exists.
	Spec aimv1.AIMRuntimeConfigSpec
	// Ref says which config(s) it came from; nil when none exists.
	Ref *aimv1.AIMResolvedReference
	// Version is the UID and generation of each config it came from (reconcile.SpecVersion): the same Version,
	// the same specs, so what is built from them alone need not be compared again; the config's status, which
	// counts its consumers and changes with each (Dependencies), does not move it. It is empty when none
	// exists, and when one has neither a generation nor a resourceVersion (an object built in a test).
	Version string
}

// NotFoundError is a named config that exists neither in the namespace nor in the cluster.
type NotFoundError struct {
	Name, Namespace string
}

// Status makes it an API NotFound (apierrors.IsNotFound), so that consumers report it as any missing
// reference: ConfigValid=False/ReferenceNotFound, Failed.
func (e *NotFoundError) Status() metav1.Status {
	resource := schema.GroupResource{Group: aimv1.GroupName, Resource: "aimclusterruntimeconfigs"}
	if e.Namespace != "" {
		resource.Resource = "aimruntimeconfigs"
	}
	status := apierrors.NewNotFound(resource, e.Name).ErrStatus
	status.Message = e.Error()
	return status
}

func (e *NotFoundError) Error() string {
	if e.Namespace == "" {
		return fmt.Sprintf("AIMClusterRuntimeConfig %q not found", e.Name)
	}
	return fmt.Sprintf("neither AIMRuntimeConfig %q in namespace %q nor AIMClusterRuntimeConfig %q exists", e.Name, e.Namespace, e.Name)
}

// Resolve merges the configs found under an object's runtimeConfigName. ns is nil for cluster-scoped objects
// or when the namespaced config does not exist; cluster is nil when the cluster config does not exist. A
// missing config named "default" is fine; any other missing name is a NotFoundError, which the user must fix.
func Resolve(name, namespace string, ns *aimv1.AIMRuntimeConfig, cluster *aimv1.AIMClusterRuntimeConfig) (Resolved, error) {
	name = Name(name)
	r := Resolved{Name: name}
	switch {
	case ns == nil && cluster == nil:
		if name == DefaultName {
			return r, nil
		}
		return r, &NotFoundError{Name: name, Namespace: namespace}
	case ns == nil:
		r.Spec = normalize(cluster.Spec)
		r.Ref = state.Reference(name, "", cluster.UID, "", "AIMClusterRuntimeConfig")
		r.Version = reconcile.SpecVersion(cluster)
	case cluster == nil:
		r.Spec = normalize(ns.Spec)
		r.Ref = state.Reference(name, ns.Namespace, ns.UID, "AIMRuntimeConfig", "")
		r.Version = reconcile.SpecVersion(ns)
	default:
		r.Spec = Merge(cluster.Spec, ns.Spec)
		r.Ref = &aimv1.AIMResolvedReference{Name: name, Namespace: ns.Namespace, Scope: aimv1.AIMResolutionScopeMerged, Kind: "AIMRuntimeConfig", UID: ns.UID}
		if nv, cv := reconcile.SpecVersion(ns), reconcile.SpecVersion(cluster); nv != "" && cv != "" {
			r.Version = nv + "+" + cv
		}
	}
	return r, nil
}

// Name is the config an object that names configName uses: DefaultName when it names none.
func Name(configName string) string { return cmp.Or(configName, DefaultName) }

// Affects reports whether a change of the runtime config cfg can matter to an object in namespace (empty for
// a cluster-scoped one) that names runtimeConfigName: it resolves to cfg's name (Lookup's rule: empty is
// DefaultName), and a namespaced cfg is in the object's namespace. Controllers re-queue only those.
func Affects(cfg metav1.Object, namespace, runtimeConfigName string) bool {
	return Name(runtimeConfigName) == cfg.GetName() && (cfg.GetNamespace() == "" || cfg.GetNamespace() == namespace)
}

// Configs reads both kinds of runtime config from the informer caches: a name resolves to the namespaced
// config and the cluster config together.
type Configs struct {
	Namespaced aimlisters.AIMRuntimeConfigLister
	Cluster    aimlisters.AIMClusterRuntimeConfigLister
}

// Dependencies are both kinds of runtime config as a controller's dependency, with h hearing of adds, deletes
// and spec changes. A config's status (its consumer count) changes with every object that starts or stops using
// it, and no consumer reads it: with every update passed on, each object created in a bulk create re-queued
// every consumer of the config.
func Dependencies(v aiminformers.Interface, h cache.ResourceEventHandler) []manager.Dependency {
	h = manager.OnSpecChange(h)
	return []manager.Dependency{{Informer: v.AIMRuntimeConfigs().Informer(), Handler: h}, {Informer: v.AIMClusterRuntimeConfigs().Informer(), Handler: h}}
}

// ConfigsOf are the Configs of the AIM informers v.
func ConfigsOf(v aiminformers.Interface) Configs {
	return Configs{Namespaced: v.AIMRuntimeConfigs().Lister(), Cluster: v.AIMClusterRuntimeConfigs().Lister()}
}

// Lookup resolves an object's runtimeConfigName from the informer caches; namespace is empty for
// cluster-scoped objects. Lister errors other than NotFound are returned.
func (cs Configs) Lookup(name, namespace string) (Resolved, error) {
	name = Name(name)
	var nsConfig *aimv1.AIMRuntimeConfig
	if namespace != "" {
		c, err := cs.Namespaced.AIMRuntimeConfigs(namespace).Get(name)
		if err != nil && !apierrors.IsNotFound(err) {
			return Resolved{Name: name}, err
		}
		nsConfig = c
	}
	clusterConfig, err := cs.Cluster.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return Resolved{Name: name}, err
	}
	return Resolve(name, namespace, nsConfig, clusterConfig)
}

// Merge lays over on top of base. Pointer, slice and map fields of over win when set (non-nil), whatever
// their value; env merges by name and node selectors and route annotations by key. Legacy top-level fields
// are moved into storage first.
func Merge(base, over aimv1.AIMRuntimeConfigSpec) aimv1.AIMRuntimeConfigSpec {
	base, over = normalize(base), normalize(over)
	out := aimv1.AIMRuntimeConfigSpec{
		Storage:          Section(base.Storage, over.Storage),
		Routing:          Section(base.Routing, over.Routing),
		Env:              env.Merge(base.Env, over.Env),
		LabelPropagation: Section(base.LabelPropagation, over.LabelPropagation),
		Scheduling:       Section(base.Scheduling, over.Scheduling),
		Discovery:        Section(base.Discovery, over.Discovery),
	}
	if len(out.Env) == 0 {
		out.Env = nil
	}
	return out
}

// normalize moves the deprecated top-level storage fields into storage where storage does not set them.
func normalize(s aimv1.AIMRuntimeConfigSpec) aimv1.AIMRuntimeConfigSpec {
	s = *s.DeepCopy()
	if s.DefaultStorageClassName != "" || s.PVCHeadroomPercent != nil {
		if s.Storage == nil {
			s.Storage = &aimv1.AIMStorageConfig{}
		}
		if s.Storage.DefaultStorageClassName == nil && s.DefaultStorageClassName != "" {
			s.Storage.DefaultStorageClassName = &s.DefaultStorageClassName
		}
		if s.Storage.PVCHeadroomPercent == nil {
			s.Storage.PVCHeadroomPercent = s.PVCHeadroomPercent
		}
	}
	s.DefaultStorageClassName, s.PVCHeadroomPercent, s.Model = "", nil, nil
	return s
}

// Section merges an optional section of the spec (storage, routing, ...), of a config over another and of a
// service's routing over its config's: a section only one side sets is taken whole; where both set it, every
// field over sets (non-nil, whatever its value) wins, and maps merge by key. The rule reads the fields, so a field
// added to a section merges like the others without a line here.
func Section[T any](base, over *T) *T {
	switch {
	case over == nil:
		return base
	case base == nil:
		return over
	}
	out := *base
	merged, o := reflect.ValueOf(&out).Elem(), reflect.ValueOf(over).Elem()
	for i := range o.NumField() {
		switch field := o.Field(i); {
		case field.IsZero():
		case field.Kind() == reflect.Map:
			m := reflect.MakeMapWithSize(field.Type(), merged.Field(i).Len()+field.Len())
			for _, from := range []reflect.Value{merged.Field(i), field} {
				for it := from.MapRange(); it.Next(); {
					m.SetMapIndex(it.Key(), it.Value())
				}
			}
			merged.Field(i).Set(m)
		default:
			merged.Field(i).Set(field)
		}
	}
	return &out
}

// PropagatedLabels are the labels of an AIM object its children inherit: every aim.eai.amd.com/ label, and
// the keys matching the label propagation globs when propagation is enabled.
func (r Resolved) PropagatedLabels(labels map[string]string) map[string]string {
	out := map[string]string{}
	var globs []string
	if lp := r.Spec.LabelPropagation; lp != nil && lp.Enabled != nil && *lp.Enabled {
		globs = lp.Match
	}
	for k, v := range labels {
		if strings.HasPrefix(k, "aim.eai.amd.com/") {
			out[k] = v
			continue
		}
		for _, g := range globs {
			if ok, _ := filepath.Match(g, k); ok {
				out[k] = v
				break
			}
		}
	}
	return out
}

// PVCHeadroomPercent is the effective headroom.
func (r Resolved) PVCHeadroomPercent() int32 {
	if s := r.Spec.Storage; s != nil && s.PVCHeadroomPercent != nil {
		return *s.PVCHeadroomPercent
	}
	return DefaultPVCHeadroomPercent
}

// AccessModes are the effective access modes of cache volumes.
func (r Resolved) AccessModes() []corev1.PersistentVolumeAccessMode {
	if s := r.Spec.Storage; s != nil && len(s.AccessModes) > 0 {
		return s.AccessModes
	}
	return DefaultAccessModes
}

// MaxConcurrentDiscoveryJobs is the effective discovery concurrency limit.
func (r Resolved) MaxConcurrentDiscoveryJobs() int32 {
	if d := r.Spec.Discovery; d != nil && d.MaxConcurrentJobs != nil {
		return *d.MaxConcurrentJobs
	}
	return DefaultMaxConcurrentJobs
}
