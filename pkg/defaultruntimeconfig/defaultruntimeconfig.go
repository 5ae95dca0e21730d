// Package defaultruntimeconfig creates the AIMClusterRuntimeConfig "default" that an installation declares in a
// ConfigMap (the chart's defaultRuntimeConfig). A chart cannot create it itself on install: its kind is served by
// aim-apiserver, which is not in the cluster's discovery before the install has run, so Helm could not map it
// and Argo CD would fail its first sync. The ConfigMap is an ordinary object any renderer can write; aim-apiserver
// applies its spec once the API serves and whenever it changes.
package defaultruntimeconfig

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
	"sigs.k8s.io/yaml"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
)

const (
	// Name is the runtime config every AIM object that names none resolves.
	Name = aimv1.DefaultRuntimeConfigName
	// SpecKey is the ConfigMap key holding the spec, as YAML.
	SpecKey = "spec.yaml"
	// FieldManager owns the fields the ConfigMap sets; users' own fields are left alone.
	FieldManager = "aim-apiserver-default-runtime-config"
)

// Applier applies the ConfigMap's spec to the AIMClusterRuntimeConfig "default".
type Applier struct {
	ConfigMap types.NamespacedName
	Kube      kubernetes.Interface
	AIM       versioned.Interface

	applied string // the last spec applied, to apply a change only once
}

// Body is the server-side apply request for spec (YAML or JSON of an AIMClusterRuntimeConfig spec).
func Body(spec []byte) ([]byte, error) {
	var s map[string]any
	if err := yaml.Unmarshal(spec, &s); err != nil {
		return nil, fmt.Errorf("%s is not a YAML object: %w", SpecKey, err)
	}
	if s == nil {
		s = map[string]any{}
	}
	return json.Marshal(map[string]any{
		"apiVersion": "aim.eai.amd.com/v1alpha1", "kind": "AIMClusterRuntimeConfig",
		"metadata": map[string]any{"name": Name},
		"spec":     s,
	})
}

// Run watches the ConfigMap until ctx ends and applies its spec when it appears or changes. A ConfigMap that goes
// away leaves the runtime config as it is: other objects resolve it, and deleting it is the user's decision.
func (a *Applier) Run(ctx context.Context) {
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "default-runtime-config"})
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
			// Gone: nothing to apply, and a ConfigMap created again is applied even with the same spec.
			a.applied, err = "", nil
		}
		if err != nil {
			klog.ErrorS(err, "Applying the default runtime config", "configMap", a.ConfigMap)
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
		}
		queue.Done(key)
	}
}

// Apply server-side applies the ConfigMap's spec, unless it is the one applied last.
func (a *Applier) Apply(ctx context.Context, cm *corev1.ConfigMap) error {
	spec := cm.Data[SpecKey]
	if spec == a.applied {
		return nil
	}
	body, err := Body([]byte(spec))
	if err != nil {
		return fmt.Errorf("ConfigMap %s: %w", a.ConfigMap, err)
	}
	force := true
	if _, err := a.AIM.AimV1alpha1().AIMClusterRuntimeConfigs().Patch(ctx, Name, types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: FieldManager, Force: &force}); err != nil {
		return fmt.Errorf("applying AIMClusterRuntimeConfig %s from ConfigMap %s: %w", Name, a.ConfigMap, err)
	}
	a.applied = spec
	klog.InfoS("Applied the default runtime config", "configMap", a.ConfigMap, "runtimeConfig", Name)
	return nil
}
