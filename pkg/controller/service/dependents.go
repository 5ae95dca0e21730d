package service

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// dependencyIndex indexes services by what they depend on, so that a change of a template, model, runtime
// config or template cache re-queues the services it can matter to, not every service of the cluster (as
// aim-engine's field indexes do). Keys:
//
//	template:<name>    the template named by spec.template.name, and the one resolved (status.resolvedTemplate)
//	model:<name>       the model named by spec.model.name, and the one resolved; the templates of that model
//	                   are the ones automatic selection could choose
//	image:<image>      spec.model.image: a model with that image may become the service's model
//	config:<name>      spec.runtimeConfigName, "default" when empty (as runtimeconfig.Configs.Lookup resolves it)
//	service:<label>    the service's own name as a label value: the models and derived templates it created
//	                   for itself carry it in aim.eai.amd.com/service
const dependencyIndex = "dependency"

// dependencies are the index keys of a service.
func dependencies(obj any) ([]string, error) {
	svc, ok := obj.(*aimv1.AIMService)
	if !ok {
		return nil, nil
	}
	keys := []string{"config:" + runtimeconfig.Name(svc.Spec.RuntimeConfigName), "service:" + naming.LabelValue(svc.Name)}
	if t := svc.Spec.Template; t != nil && t.Name != "" {
		keys = append(keys, "template:"+t.Name)
	}
	if r := svc.Status.ResolvedTemplate; r != nil && r.Name != "" {
		keys = append(keys, "template:"+r.Name)
	}
	if n := svc.Spec.Model.Name; n != nil && *n != "" {
		keys = append(keys, "model:"+*n)
	}
	if i := svc.Spec.Model.Image; i != nil && *i != "" {
		keys = append(keys, "image:"+*i)
	}
	if r := svc.Status.ResolvedModel; r != nil && r.Name != "" {
		keys = append(keys, "model:"+r.Name)
	}
	return keys, nil
}

var _ cache.IndexFunc = dependencies

// dependedOn are the index keys an AIM object other than a service is known by.
func dependedOn(obj any) []string {
	switch o := obj.(type) {
	case *aimv1.AIMServiceTemplate:
		return withService(o.Labels, "template:"+o.Name, "model:"+o.Spec.ModelName)
	case *aimv1.AIMClusterServiceTemplate:
		return []string{"template:" + o.Name, "model:" + o.Spec.ModelName}
	case *aimv1.AIMModel:
		return withService(o.Labels, "model:"+o.Name, "image:"+o.Spec.Image)
	case *aimv1.AIMClusterModel:
		return []string{"model:" + o.Name, "image:" + o.Spec.Image}
	case *aimv1.AIMRuntimeConfig:
		return []string{"config:" + o.Name}
	case *aimv1.AIMClusterRuntimeConfig:
		return []string{"config:" + o.Name}
	case *aimv1.AIMTemplateCache:
		return []string{"template:" + o.Spec.TemplateName}
	}
	return nil
}

// withService adds to keys the service an object was made for (its aim.eai.amd.com/service label), if any.
func withService(labels map[string]string, keys ...string) []string {
	if s := labels[aimv1.LabelService]; s != "" {
		keys = append(keys, "service:"+s)
	}
	return keys
}

// dependentsHandler re-queues the services that depend on an object: for a namespaced kind those of its
// namespace, for a cluster kind those of every namespace. An update re-queues the dependents of the old
// object too (a template whose model changed no longer matters to the old model's services, which must hear
// of it). Services the object names as owners (derived templates) are re-queued as well. add queues a key.
func (ctl *Controller) dependentsHandler(services cache.Indexer, add func(key cache.ObjectName)) cache.ResourceEventHandler {
	enqueue := func(objs ...any) {
		queued := map[cache.ObjectName]bool{}
		for _, obj := range objs {
			m, ok := manager.EventObject[metav1.Object](obj)
			if !ok {
				continue
			}
			ctl.owners.Enqueue(m)
			for _, key := range dependedOn(m) {
				items, _ := services.ByIndex(dependencyIndex, key)
				for _, item := range items {
					svc, ok := item.(*aimv1.AIMService)
					if !ok || (m.GetNamespace() != "" && svc.Namespace != m.GetNamespace()) {
						continue
					}
					if k := cache.MetaObjectToName(svc); !queued[k] {
						queued[k] = true
						add(k)
					}
				}
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { enqueue(obj) },
		UpdateFunc: func(old, obj any) { enqueue(old, obj) },
		DeleteFunc: func(obj any) { enqueue(obj) },
	}
}
