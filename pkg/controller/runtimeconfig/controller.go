package runtimeconfig

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/install"
	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/specvalid"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// Condition types and reasons of runtime configs.
const (
	ConditionValid = "Valid"
	ConditionReady = "Ready"
	ReasonValid    = "ConfigurationValid"
	ReasonInvalid  = "InvalidSpec"
	controllerName = "runtime-config"
	// fieldManager writes the status and names the controller's Events.
	fieldManager    = "aim-runtime-config-controller"
	clusterCtlrName = "cluster-runtime-config"
)

// Controller gives runtime configs a status (F7): Valid, Ready, status and the number of consumers.
type Controller struct {
	c         manager.Clients
	scheme    *runtime.Scheme
	namespace aimlisters.AIMRuntimeConfigLister
	cluster   aimlisters.AIMClusterRuntimeConfigLister
	consumers consumerListers
}

// Register adds the controllers of both runtime config kinds to the manager.
func Register(m *manager.Manager) error {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	v := m.AIMInformers.Aim().V1alpha1()
	ctl := &Controller{
		c: m.Clients, scheme: scheme,
		namespace: v.AIMRuntimeConfigs().Lister(), cluster: v.AIMClusterRuntimeConfigs().Lister(),
		consumers: newConsumerListers(m),
	}
	// Events name the controller as their source, as aim-engine's do.
	ctl.c.Recorder = m.RecorderFor(fieldManager)
	ns, err := manager.NewKindController(controllerName, manager.ReconcilerFunc(ctl.reconcileNamespaced), v.AIMRuntimeConfigs().Informer())
	if err != nil {
		return err
	}
	cl, err := manager.NewKindController(clusterCtlrName, manager.ReconcilerFunc(ctl.reconcileCluster), v.AIMClusterRuntimeConfigs().Informer())
	if err != nil {
		return err
	}
	// Both controllers count a namespaced consumer: its namespace's config and the cluster config merge.
	handler := consumerHandler(func(namespace, name string) {
		if namespace != "" {
			ns.Add(cache.NewObjectName(namespace, name))
		}
		cl.Add(cache.NewObjectName("", name))
	})
	var consumers []manager.Dependency
	for _, inf := range []cache.SharedIndexInformer{
		v.AIMServices().Informer(), v.AIMServiceTemplates().Informer(), v.AIMClusterServiceTemplates().Informer(),
		v.AIMModels().Informer(), v.AIMClusterModels().Informer(), v.AIMTemplateCaches().Informer(), v.AIMArtifacts().Informer(),
	} {
		consumers = append(consumers, manager.Dependency{Informer: inf, Handler: handler})
	}
	if err := m.Add(ns, consumers...); err != nil {
		return err
	}
	return m.Add(cl)
}

// consumerHandler passes enqueue the config a consumer names (namespace empty for a cluster-scoped consumer)
// whenever the count of that config may have changed: a consumer that starts or stops naming it. A consumer names
// its config in its spec, so only a new generation can: the status writes of a service on its way to Running
// re-queued the config, and counting lists every consumer.
func consumerHandler(enqueue func(namespace, name string)) cache.ResourceEventHandler {
	send := func(obj any) {
		obj, _ = manager.EventObject[any](obj)
		if namespace, name, ok := refOf(obj); ok {
			enqueue(namespace, name)
		}
	}
	return manager.OnSpecChange(cache.ResourceEventHandlerFuncs{
		AddFunc:    send,
		UpdateFunc: func(old, obj any) { send(old); send(obj) },
		DeleteFunc: send,
	})
}

func (ctl *Controller) reconcileNamespaced(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	namespace, name := key.Namespace, key.Name
	obj, ok, err := reconcile.Lookup(func() (*aimv1.AIMRuntimeConfig, error) { return ctl.namespace.AIMRuntimeConfigs(namespace).Get(name) })
	if !ok {
		return 0, err
	}
	status := ctl.desiredStatus(obj.Generation, obj.Spec, obj.Status, ctl.consumers.count(namespace, name))
	return ctl.finish(obj, key.String(), obj.Status, status, reconcile.StatusWriter(ctx, obj, ctl.c.AIM.AimV1alpha1().AIMRuntimeConfigs(namespace).UpdateStatus, fieldManager))
}

func (ctl *Controller) reconcileCluster(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	name := key.Name
	obj, ok, err := reconcile.Lookup(func() (*aimv1.AIMClusterRuntimeConfig, error) { return ctl.cluster.Get(name) })
	if !ok {
		return 0, err
	}
	status := ctl.desiredStatus(obj.Generation, obj.Spec, obj.Status, ctl.consumers.count("", name))
	return ctl.finish(obj, name, obj.Status, status, reconcile.StatusWriter(ctx, obj, ctl.c.AIM.AimV1alpha1().AIMClusterRuntimeConfigs().UpdateStatus, fieldManager))
}

// finish ends a reconcile through reconcile.Finish, as every kind does: a status write that conflicts, or finds the
// object gone, ends quietly (the newer version's watch event brings the object back); the validity Event is
// recorded only once the status that carries it is written.
func (ctl *Controller) finish(obj runtime.Object, what string, old, new aimv1.AIMRuntimeConfigStatus, write func(aimv1.AIMRuntimeConfigStatus) error) (time.Duration, error) {
	return reconcile.Finish(ctl.c.Recorder, reconcile.End{Object: obj, What: "runtime config " + what, Status: new, Stored: old,
		Write: func() error {
			if err := write(new); err != nil {
				return err
			}
			ctl.recordValidity(obj, old, new)
			return nil
		}})
}

// desiredStatus validates the spec again (it may predate a rule) and counts consumers. Conditions keep their
// transition times when unchanged, so an unchanged config yields an identical status and no write.
func (ctl *Controller) desiredStatus(generation int64, spec aimv1.AIMRuntimeConfigSpec, current aimv1.AIMRuntimeConfigStatus, consumers int32) aimv1.AIMRuntimeConfigStatus {
	status := *current.DeepCopy()
	status.ObservedGeneration = generation
	status.Consumers = consumers
	valid := metav1.Condition{Type: ConditionValid, Status: metav1.ConditionTrue, Reason: ReasonValid, ObservedGeneration: generation,
		Message: fmt.Sprintf("used by %d AIM objects", consumers)}
	status.Status = aimv1.AIMStatusReady
	if errs := ctl.validate(spec); len(errs) > 0 {
		valid.Status, valid.Reason, valid.Message = metav1.ConditionFalse, ReasonInvalid, specvalid.Sorted(errs).ToAggregate().Error()
		status.Status = aimv1.AIMStatusFailed
	}
	ready := valid
	ready.Type = ConditionReady
	now := metav1.Now()
	for _, c := range []metav1.Condition{valid, ready} {
		c.LastTransitionTime = now
		meta.SetStatusCondition(&status.Conditions, c)
	}
	return status
}

func (ctl *Controller) validate(spec aimv1.AIMRuntimeConfigSpec) field.ErrorList {
	var internal aim.AIMRuntimeConfigSpec
	if err := ctl.scheme.Convert(&spec, &internal, nil); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	return validation.ValidateRuntimeConfigSpec(&internal, field.NewPath("spec"))
}

func (ctl *Controller) recordValidity(obj runtime.Object, old, new aimv1.AIMRuntimeConfigStatus) {
	was := meta.FindStatusCondition(old.Conditions, ConditionValid)
	now := meta.FindStatusCondition(new.Conditions, ConditionValid)
	if was != nil && was.Status == now.Status {
		return
	}
	if now.Status == metav1.ConditionTrue {
		ctl.c.Recorder.Event(obj, corev1.EventTypeNormal, ReasonValid, "runtime config is valid") // the condition's reason, as every Event
	} else {
		ctl.c.Recorder.Event(obj, corev1.EventTypeWarning, ReasonInvalid, now.Message)
	}
}

// consumerListers read every kind that names a runtime config.
type consumerListers struct {
	services         aimlisters.AIMServiceLister
	templates        aimlisters.AIMServiceTemplateLister
	clusterTemplates aimlisters.AIMClusterServiceTemplateLister
	models           aimlisters.AIMModelLister
	clusterModels    aimlisters.AIMClusterModelLister
	caches           aimlisters.AIMTemplateCacheLister
	artifacts        aimlisters.AIMArtifactLister
}

func newConsumerListers(m *manager.Manager) consumerListers {
	v := m.AIMInformers.Aim().V1alpha1()
	return consumerListers{
		services: v.AIMServices().Lister(), templates: v.AIMServiceTemplates().Lister(),
		clusterTemplates: v.AIMClusterServiceTemplates().Lister(), models: v.AIMModels().Lister(),
		clusterModels: v.AIMClusterModels().Lister(), caches: v.AIMTemplateCaches().Lister(), artifacts: v.AIMArtifacts().Lister(),
	}
}

// count returns how many objects resolve the config: in namespace for a namespaced config, everywhere for a
// cluster config ("" namespace), since every object of that name merges the cluster config in.
func (l consumerListers) count(namespace, name string) int32 {
	all := labels.Everything()
	if namespace != "" {
		return countRefs(l.services.AIMServices(namespace).List(all))(name) +
			countRefs(l.templates.AIMServiceTemplates(namespace).List(all))(name) +
			countRefs(l.models.AIMModels(namespace).List(all))(name) +
			countRefs(l.caches.AIMTemplateCaches(namespace).List(all))(name) +
			countRefs(l.artifacts.AIMArtifacts(namespace).List(all))(name)
	}
	return countRefs(l.services.List(all))(name) + countRefs(l.templates.List(all))(name) +
		countRefs(l.clusterTemplates.List(all))(name) + countRefs(l.models.List(all))(name) +
		countRefs(l.clusterModels.List(all))(name) + countRefs(l.caches.List(all))(name) +
		countRefs(l.artifacts.List(all))(name)
}

// countRefs counts the listed objects that resolve the named config; a lister error counts nothing (the
// cache is local and only fails for a bad selector).
func countRefs[T any](items []T, err error) func(name string) int32 {
	return func(name string) int32 {
		if err != nil {
			return 0
		}
		var n int32
		for _, o := range items {
			if _, ref, ok := refOf(o); ok && ref == name {
				n++
			}
		}
		return n
	}
}

// refOf returns the namespace and the runtime config name an AIM object resolves; cluster-scoped objects
// have an empty namespace.
func refOf(obj any) (namespace, name string, ok bool) {
	switch o := obj.(type) {
	case *aimv1.AIMService:
		return o.Namespace, Name(o.Spec.RuntimeConfigName), true
	case *aimv1.AIMServiceTemplate:
		return o.Namespace, Name(o.Spec.RuntimeConfigName), true
	case *aimv1.AIMClusterServiceTemplate:
		return "", Name(o.Spec.RuntimeConfigName), true
	case *aimv1.AIMModel:
		return o.Namespace, Name(o.Spec.RuntimeConfigName), true
	case *aimv1.AIMClusterModel:
		return "", Name(o.Spec.RuntimeConfigName), true
	case *aimv1.AIMTemplateCache:
		return o.Namespace, Name(o.Spec.RuntimeConfigName), true
	case *aimv1.AIMArtifact:
		return o.Namespace, Name(o.Spec.RuntimeConfigName), true
	}
	return "", "", false
}
