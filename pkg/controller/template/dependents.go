package template

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// dependencyIndex indexes templates by the model (model:<spec.modelName>) and runtime config
// (config:<spec.runtimeConfigName>, "default" when empty, as runtimeconfig.Configs.Lookup resolves it) they use, so
// that a model or config change re-queues its templates only, as aim-engine's field indexes do.
const dependencyIndex = "dependency"

func dependencies(obj any) ([]string, error) {
	var spec aimv1.AIMServiceTemplateSpecCommon
	switch t := obj.(type) {
	case *aimv1.AIMServiceTemplate:
		spec = t.Spec.AIMServiceTemplateSpecCommon
	case *aimv1.AIMClusterServiceTemplate:
		spec = t.Spec.AIMServiceTemplateSpecCommon
	default:
		return nil, nil
	}
	return []string{"model:" + spec.ModelName, "config:" + runtimeconfig.Name(spec.RuntimeConfigName)}, nil
}

var _ cache.IndexFunc = dependencies

// dependedOn is the index key of a model or runtime config.
func dependedOn(obj any) string {
	switch o := obj.(type) {
	case *aimv1.AIMModel:
		return "model:" + o.Name
	case *aimv1.AIMClusterModel:
		return "model:" + o.Name
	case *aimv1.AIMRuntimeConfig:
		return "config:" + o.Name
	case *aimv1.AIMClusterRuntimeConfig:
		return "config:" + o.Name
	}
	return ""
}

// dependentsHandler re-queues the templates that use a model or runtime config. A namespaced one matters to
// the namespaced templates of its namespace; a cluster one to cluster templates and, as the fallback of a
// namespaced lookup, to namespaced templates of every namespace. addNamespaced and addCluster queue keys.
func dependentsHandler(namespaced, cluster cache.Indexer, addNamespaced, addCluster func(key cache.ObjectName)) cache.ResourceEventHandler {
	// An update keeps the object's name, and so its key: the new object's dependents are the old one's.
	return manager.OnEvery(func(m metav1.Object) {
		key := dependedOn(m)
		if key == "" {
			return
		}
		items, _ := namespaced.ByIndex(dependencyIndex, key)
		for _, item := range items {
			if t, ok := item.(*aimv1.AIMServiceTemplate); ok && (m.GetNamespace() == "" || m.GetNamespace() == t.Namespace) {
				addNamespaced(cache.MetaObjectToName(t))
			}
		}
		if m.GetNamespace() != "" {
			return
		}
		items, _ = cluster.ByIndex(dependencyIndex, key)
		for _, item := range items {
			if t, ok := item.(*aimv1.AIMClusterServiceTemplate); ok {
				addCluster(cache.MetaObjectToName(t))
			}
		}
	})
}
