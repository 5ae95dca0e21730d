package resource

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// Reference is a field of an object that names other AIM objects (F16). The first of Targets that exists is
// the one it means: a namespaced kind in Namespace, then the cluster-scoped kind of the name, as the
// controller resolves it.
type Reference struct {
	Field     *field.Path
	Name      string
	Namespace string
	Targets   []Target
}

// Target is a kind a reference may name.
type Target struct {
	Resource, Kind string
	Namespaced     bool
}

// The targets of the references AIM objects make.
var (
	modelTarget                = Target{Resource: "aimmodels", Kind: "AIMModel", Namespaced: true}
	clusterModelTarget         = Target{Resource: "aimclustermodels", Kind: "AIMClusterModel"}
	templateTarget             = Target{Resource: "aimservicetemplates", Kind: "AIMServiceTemplate", Namespaced: true}
	clusterTemplateTarget      = Target{Resource: "aimclusterservicetemplates", Kind: "AIMClusterServiceTemplate"}
	runtimeConfigTarget        = Target{Resource: "aimruntimeconfigs", Kind: "AIMRuntimeConfig", Namespaced: true}
	clusterRuntimeConfigTarget = Target{Resource: "aimclusterruntimeconfigs", Kind: "AIMClusterRuntimeConfig"}

	// Models are an AIMModel of the namespace, then an AIMClusterModel (F12); ClusterModels an AIMClusterModel.
	Models, ClusterModels = []Target{modelTarget, clusterModelTarget}, []Target{clusterModelTarget}
	// Templates are an AIMServiceTemplate of the namespace, then an AIMClusterServiceTemplate.
	Templates = []Target{templateTarget, clusterTemplateTarget}
	// NamespaceTemplates and ClusterTemplates are one of the two kinds only (a template cache's templateScope).
	NamespaceTemplates, ClusterTemplates = []Target{templateTarget}, []Target{clusterTemplateTarget}
	// RuntimeConfigs are an AIMRuntimeConfig of the namespace or an AIMClusterRuntimeConfig (both, merged, when
	// both exist); ClusterRuntimeConfigs an AIMClusterRuntimeConfig.
	RuntimeConfigs, ClusterRuntimeConfigs = []Target{runtimeConfigTarget, clusterRuntimeConfigTarget}, []Target{clusterRuntimeConfigTarget}
)

// RuntimeConfigReference is the reference of a runtimeConfigName, none for the default config, which may be
// missing (DefaultConfigNotFound is Ready).
func RuntimeConfigReference(path *field.Path, name, namespace string) []Reference {
	if name == "" || name == v1alpha1.DefaultRuntimeConfigName {
		return nil
	}
	targets := RuntimeConfigs
	if namespace == "" {
		targets = ClusterRuntimeConfigs
	}
	return []Reference{{Field: path, Name: name, Namespace: namespace, Targets: targets}}
}

// Exists says whether the AIM object resource namespace/name exists ("" namespace for a cluster-scoped one).
type Exists func(ctx context.Context, resource, namespace, name string) (bool, error)

// WarnOfMissingReferences makes creates, and updates that change a reference, warn about each reference that
// names no existing object (F16): the object is stored, as aim-engine stores it, and waits for the object,
// which a GitOps tool may well apply next; the warning tells the user who typed a wrong name at once, before
// its status does. A failed lookup warns of nothing.
func (r *REST) WarnOfMissingReferences(exists Exists) {
	if r.references == nil {
		return
	}
	check := referenceCheck{references: r.references, exists: exists}
	r.CreateStrategy = createReferences{RESTCreateStrategy: r.CreateStrategy, check: check}
	r.UpdateStrategy = updateReferences{RESTUpdateStrategy: r.UpdateStrategy, check: check}
}

type referenceCheck struct {
	references func(obj runtime.Object) []Reference
	exists     Exists
}

// warnings are the warnings about the references of obj that name nothing, leaving out those old made too.
func (c referenceCheck) warnings(ctx context.Context, obj, old runtime.Object) []string {
	var had map[string]bool
	if old != nil {
		had = map[string]bool{}
		for _, ref := range c.references(old) {
			had[ref.Field.String()+"\x00"+ref.Name] = true
		}
	}
	var out []string
	for _, ref := range c.references(obj) {
		if ref.Name == "" || had[ref.Field.String()+"\x00"+ref.Name] {
			continue
		}
		if w := c.missing(ctx, ref); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// missing is the warning about ref when none of its targets exists, else "".
func (c referenceCheck) missing(ctx context.Context, ref Reference) string {
	var looked []string
	for _, t := range ref.Targets {
		namespace := ""
		if t.Namespaced {
			namespace = ref.Namespace
		}
		found, err := c.exists(ctx, t.Resource, namespace, ref.Name)
		if err != nil || found {
			return ""
		}
		if namespace != "" {
			looked = append(looked, fmt.Sprintf("%s %q in namespace %q", t.Kind, ref.Name, namespace))
		} else {
			looked = append(looked, fmt.Sprintf("%s %q", t.Kind, ref.Name))
		}
	}
	what := "no " + looked[0]
	if len(looked) > 1 {
		what = "neither " + strings.Join(looked, " nor ")
	}
	return fmt.Sprintf("%s: %s exists; the object waits for it and says so in its status", ref.Field, what)
}

type createReferences struct {
	rest.RESTCreateStrategy
	check referenceCheck
}

func (s createReferences) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string {
	return append(s.RESTCreateStrategy.WarningsOnCreate(ctx, obj), s.check.warnings(ctx, obj, nil)...)
}

type updateReferences struct {
	rest.RESTUpdateStrategy
	check referenceCheck
}

func (s updateReferences) WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string {
	return append(s.RESTUpdateStrategy.WarningsOnUpdate(ctx, obj, old), s.check.warnings(ctx, obj, old)...)
}
