package service

import (
	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/specvalid"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Observation is everything one reconcile of a service reads, from the informer caches only, before anything
// is planned (PlanService).
type Observation struct {
	Service *aimv1.AIMService
	// Mirrors may rewrite the InferenceService's image (rewriteImages).
	Mirrors *mirrors.Config
	// SpecErr is set for a stored spec the API would reject (migrate --allow-invalid).
	SpecErr error

	RuntimeConfig    runtimeconfig.Resolved
	RuntimeConfigErr error
	// Models are what spec.model may mean; Templates the template spec.template names, or every template for
	// selection; GPUModels the AMD GPU models the nodes have.
	Models    []Model
	Templates []Template
	GPUModels []string
	// NamespacedTemplate reads a template of the service's namespace by name (the derived one); TemplateGone
	// reports whether no template of a cache's scope and name exists.
	NamespacedTemplate func(name string) *aimv1.AIMServiceTemplate
	TemplateGone       func(scope aimv1.AIMTemplateScope, name string) bool
	// UsedElsewhere reports whether another live service of the namespace names or runs on a template.
	UsedElsewhere func(template string) bool
	// DerivedTemplates are the namespace's derived templates, for those of earlier names.
	DerivedTemplates []*aimv1.AIMServiceTemplate
	Caches           []*aimv1.AIMTemplateCache

	// ISVC is the InferenceService of WorkloadName, nil if there is none; ISVCErr why it cannot be read.
	ISVC    *kservev1beta1.InferenceService
	ISVCErr error
	// ISVCSteadyInputs are the workload inputs an earlier reconcile found ISVC, as it is now, steady with
	// (reconcile.Steady), "" if none: built from the same inputs, the InferenceService would be sent nowhere.
	ISVCSteadyInputs string
	// ISVCs are the InferenceServices the service controls (for the stale sweep).
	ISVCs        []metav1.Object
	ISVCWarnings []corev1.Event
	Pods         []*corev1.Pod
	PodEvents    []corev1.Event
	// ReplicaSetWarnings are the Warning events of the predictor's ReplicaSets (KServe's Deployment
	// <workload>-predictor, or a Knative revision's), read while it has no pods: why none could be created.
	ReplicaSetWarnings []corev1.Event
	HPA                *autoscalingv2.HorizontalPodAutoscaler

	// RoutesServed is false when the cluster does not serve the Gateway API; RouteObject is the object of
	// RouteName, Route the same as an HTTPRoute, RouteErr why it cannot be read as one, Routes the routes the
	// service controls (for the stale sweep).
	RoutesServed bool
	RouteObject  metav1.Object
	Route        *gatewayv1.HTTPRoute
	RouteErr     error
	Routes       []metav1.Object
}

// observe reads a service's observation from the caches.
func (ctl *Controller) observe(svc *aimv1.AIMService) Observation {
	ns := svc.Namespace
	o := Observation{Service: svc, SpecErr: specvalid.Service(svc), Models: ctl.findModels(svc), Templates: ctl.findTemplates(svc),
		GPUModels: ctl.gpus.Inventory().Models(), RoutesServed: ctl.routes.Lister() != nil, Mirrors: ctl.registries.Config()}
	o.RuntimeConfig, o.RuntimeConfigErr = ctl.configs.Lookup(svc.Spec.RuntimeConfigName, ns)
	o.NamespacedTemplate = func(name string) *aimv1.AIMServiceTemplate {
		t, _ := ctl.templates.AIMServiceTemplates(ns).Get(name)
		return t
	}
	o.TemplateGone = func(scope aimv1.AIMTemplateScope, name string) bool {
		namespaced := func() bool {
			_, err := ctl.templates.AIMServiceTemplates(ns).Get(name)
			return apierrors.IsNotFound(err)
		}
		cluster := func() bool { _, err := ctl.clusterTemplates.Get(name); return apierrors.IsNotFound(err) }
		switch scope {
		case aimv1.AIMTemplateScopeNamespace:
			return namespaced()
		case aimv1.AIMTemplateScopeCluster:
			return cluster()
		}
		return namespaced() && cluster()
	}
	var inUse map[string]bool // listed at the first question only: most reconciles ask none
	o.UsedElsewhere = func(template string) bool {
		if inUse == nil {
			services, _ := ctl.services.AIMServices(ns).List(labels.Everything())
			inUse = templatesInUse(svc, services)
		}
		return inUse[template]
	}
	o.DerivedTemplates, _ = ctl.templates.AIMServiceTemplates(ns).List(labels.SelectorFromSet(labels.Set{aimv1.LabelOrigin: aimv1.OriginDerived}))
	o.Caches, _ = ctl.caches.AIMTemplateCaches(ns).List(labels.Everything())
	ctl.observeWorkload(svc, &o)
	return o
}

// observeWorkload reads what the service made and what became of it: its InferenceServices, the predictor's pods,
// their Events and autoscaler, and its routes.
func (ctl *Controller) observeWorkload(svc *aimv1.AIMService, o *Observation) {
	ns, wname := svc.Namespace, WorkloadName(svc)
	o.ISVC, o.ISVCErr = ctl.getISVC(ns, wname)
	if o.ISVC != nil {
		o.ISVCSteadyInputs = ctl.steady.KnownInputs(o.ISVC)
	}
	if isvcs := ctl.isvcs.Indexer(); isvcs != nil {
		o.ISVCs = manager.Controlled(isvcs, svc.UID)
	}
	o.ISVCWarnings = ctl.c.PodEvents.About("InferenceService", ns, wname)
	o.Pods, _ = ctl.pods.Pods(ns).List(labels.SelectorFromSet(labels.Set{LabelInferenceService: wname}))
	for _, p := range o.Pods {
		o.PodEvents = append(o.PodEvents, ctl.c.PodEvents.About("Pod", p.Namespace, p.Name)...)
	}
	if len(o.Pods) == 0 {
		o.ReplicaSetWarnings = ctl.c.PodEvents.AboutNamed("ReplicaSet", ns, func(name string) bool {
			isvc, ok := kserve.OfPredictorReplicaSet(name)
			return ok && isvc == wname // not the predictor of an InferenceService whose name starts like this one's
		})
	}
	o.HPA, _ = ctl.hpas.HorizontalPodAutoscalers(ns).Get(kserve.HPAName(wname))

	if routes := ctl.routes.Lister(); routes != nil {
		o.Routes = manager.Controlled(ctl.routes.Indexer(), svc.UID)
		if obj, err := routes.ByNamespace(ns).Get(RouteName(svc)); err == nil {
			o.RouteObject, _ = obj.(metav1.Object)
			o.Route, o.RouteErr = manager.AsTyped[gatewayv1.HTTPRoute](obj)
		}
	}
}

func (ctl *Controller) getISVC(namespace, name string) (*kservev1beta1.InferenceService, error) {
	isvcs := ctl.isvcs.Lister()
	if isvcs == nil {
		return nil, state.NewError(state.Infrastructure, ReasonKServeNotInstalled,
			"the cluster does not serve %s; install KServe, and the service goes on once it does", kserve.Resource.GroupResource())
	}
	obj, err := isvcs.ByNamespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return manager.AsTyped[kservev1beta1.InferenceService](obj)
}

// gatewayNotInstalled is the route's error when the cluster does not serve the Gateway API.
func gatewayNotInstalled() error {
	return state.NewError(state.Infrastructure, ReasonGatewayAPINotInstalled,
		"the cluster does not serve %s; install the Gateway API CRDs, and the route is made once it does", gateway.Resource.GroupResource())
}
