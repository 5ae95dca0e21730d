// Package declared creates the cluster-scoped AIM objects an installation declares in ConfigMaps: the
// AIMClusterRuntimeConfig "default" (the chart's defaultRuntimeConfig) and an AIMClusterModelSource (its
// clusterModelSource, as aim-engine's chart has one). A chart cannot create them itself on install: their kinds
// are served by aim-apiserver, which is not in the cluster's discovery before the install has run, so Helm could
// not map them and Argo CD would fail its first sync. A ConfigMap is an ordinary object any renderer can write;
// aim-apiserver applies what it declares once the API serves and whenever it changes.
package declared

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/scheme"
)

const (
	// SpecKey is the ConfigMap key holding the object's spec, as YAML.
	SpecKey = "spec.yaml"
	// NameKey is the ConfigMap key holding the object's name, where its kind has no fixed one.
	NameKey = "name"
)

// Kind is a cluster-scoped AIM kind an installation may declare.
type Kind struct {
	// Name is the kind's name, as in apiVersion/kind.
	Name string
	// ObjectName is the object's fixed name; empty: the ConfigMap's NameKey names it.
	ObjectName string
	// Resource is the kind's resource (plural), which the apply is sent to.
	Resource string
	// FieldManager owns the fields the ConfigMap sets; users' own fields are left alone.
	FieldManager string
}

var (
	// RuntimeConfig is the AIMClusterRuntimeConfig "default", which every AIM object that names no other resolves.
	RuntimeConfig = Kind{Name: "AIMClusterRuntimeConfig", ObjectName: aimv1.DefaultRuntimeConfigName,
		Resource: "aimclusterruntimeconfigs", FieldManager: "aim-apiserver-default-runtime-config"}
	// ModelSource is an AIMClusterModelSource of the name the ConfigMap gives.
	ModelSource = Kind{Name: "AIMClusterModelSource", Resource: "aimclustermodelsources",
		FieldManager: "aim-apiserver-cluster-model-source"}
)

// Declared is an object a ConfigMap declares: its name and its server-side apply request.
type Declared struct {
	Name string
	Body []byte
}

// Of reads the object a ConfigMap's data declares for kind k.
func (k Kind) Of(data map[string]string) (Declared, error) {
	name := k.ObjectName
	if name == "" {
		if name = data[NameKey]; name == "" {
			return Declared{}, fmt.Errorf("key %s is empty: it names the %s", NameKey, k.Name)
		}
	}
	var spec map[string]any
	if err := yaml.Unmarshal([]byte(data[SpecKey]), &spec); err != nil {
		return Declared{}, fmt.Errorf("%s is not a YAML object: %w", SpecKey, err)
	}
	if spec == nil {
		spec = map[string]any{}
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": aimv1.SchemeGroupVersion.String(), "kind": k.Name,
		"metadata": map[string]any{"name": name},
		"spec":     spec,
	})
	return Declared{Name: name, Body: body}, err
}

// Applier applies what a ConfigMap declares for one kind.
type Applier struct {
	Kind      Kind
	ConfigMap types.NamespacedName
	Kube      kubernetes.Interface
	AIM       versioned.Interface

	applied string // the last request sent, to apply a change only once
}

// Run watches the ConfigMap until ctx ends and applies what it declares when it appears or changes. A
// ConfigMap that goes away leaves the object as it is: other objects use it, and deleting it is the user's
// decision.
func (a *Applier) Run(ctx context.Context) {
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "declared-" + a.Kind.FieldManager})
	defer queue.ShutDown()
	factory := informers.NewSharedInformerFactoryWithOptions(a.Kube, 10*time.Minute, informers.WithNamespace(a.ConfigMap.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", a.ConfigMap.Name).String()
		}))
	informer := factory.Core().V1().ConfigMaps()
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { queue.Add(a.ConfigMap.String()) },
		UpdateFunc: func(any, any) { queue.Add(a.ConfigMap.String()) },
		DeleteFunc: func(any) { queue.Add(a.ConfigMap.String()) },
	}); err != nil {
		utilruntime.HandleError(err)
		return
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	for {
		key, quit := queue.Get()
		if quit {
			return
		}
		cm, err := informer.Lister().ConfigMaps(a.ConfigMap.Namespace).Get(a.ConfigMap.Name)
		if err == nil {
			err = a.Apply(ctx, cm)
		} else {
			// Gone: nothing to apply, and a ConfigMap created again is applied even with the same content.
			a.applied, err = "", nil
		}
		if err != nil {
			klog.ErrorS(err, "Applying a declared object", "kind", a.Kind.Name, "configMap", a.ConfigMap)
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
		}
		queue.Done(key)
	}
}

// Apply server-side applies what the ConfigMap declares, unless it is what was applied last.
func (a *Applier) Apply(ctx context.Context, cm *corev1.ConfigMap) error {
	d, err := a.Kind.Of(cm.Data)
	if err != nil {
		return fmt.Errorf("ConfigMap %s: %w", a.ConfigMap, err)
	}
	if string(d.Body) == a.applied {
		return nil
	}
	opts := &metav1.PatchOptions{FieldManager: a.Kind.FieldManager, Force: ptr.To(true)}
	err = a.AIM.AimV1alpha1().RESTClient().Patch(types.ApplyPatchType).Resource(a.Kind.Resource).Name(d.Name).
		VersionedParams(opts, scheme.ParameterCodec).Body(d.Body).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("applying %s %s from ConfigMap %s: %w", a.Kind.Name, d.Name, a.ConfigMap, err)
	}
	a.applied = string(d.Body)
	klog.InfoS("Applied a declared object", "kind", a.Kind.Name, "name", d.Name, "configMap", a.ConfigMap)
	return nil
}
