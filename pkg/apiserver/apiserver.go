// Package apiserver assembles the aim-apiserver: the generic API server with the aim.eai.amd.com group
// installed on etcd storage. It follows the Config -> Complete -> New chain of k8s.io/apiserver.
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/declared"
	"github.com/aim-apiserver/aim-apiserver/pkg/fieldformat"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimartifact"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclustermodel"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclustermodelsource"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclusterruntimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclusterservicetemplate"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimmodel"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimruntimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimservice"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimservicetemplate"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimtemplatecache"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// Resources are the ten kinds the server installs.
func Resources() []resource.Installer {
	return []resource.Installer{
		aimservice.Definition(),
		aimservicetemplate.Definition(),
		aimclusterservicetemplate.Definition(),
		aimmodel.Definition(),
		aimclustermodel.Definition(),
		aimruntimeconfig.Definition(),
		aimclusterruntimeconfig.Definition(),
		aimtemplatecache.Definition(),
		aimartifact.Definition(),
		aimclustermodelsource.Definition(),
	}
}

// Config is the server configuration.
type Config struct {
	GenericConfig *genericapiserver.RecommendedConfig
	// Controller, when set, runs the embedded controller against the cluster of KubeConfig.
	Controller *ControllerConfig
	// NoControllerNote, when set, is put in the Ready condition (reason ControllerNotRunning) of every object
	// created: local mode without a controller says so in each object's status.
	NoControllerNote string
	// Declared are the ConfigMaps whose objects aim-apiserver creates and keeps as they declare them (package
	// declared): the AIMClusterRuntimeConfig "default", an AIMClusterModelSource.
	Declared []Declared
}

// Declared says where an object of a kind is declared, and how to read that ConfigMap.
type Declared struct {
	Kind       declared.Kind
	ConfigMap  types.NamespacedName
	KubeConfig *restclient.Config
}

// ControllerConfig configures the embedded controller.
type ControllerConfig struct {
	Options controller.Options
	// KubeConfig reaches the cluster whose Nodes, Jobs and Pods the controller reads and manages.
	KubeConfig *restclient.Config
}

type completedConfig struct {
	GenericConfig    genericapiserver.CompletedConfig
	Controller       *ControllerConfig
	NoControllerNote string
	Declared         []Declared
}

// CompletedConfig can only be built by Complete, so New never sees an incomplete config.
type CompletedConfig struct {
	*completedConfig
}

// AIMServer is the running server.
type AIMServer struct {
	GenericAPIServer *genericapiserver.GenericAPIServer
}

// Complete fills in the fields the generic server derives.
func (c *Config) Complete() CompletedConfig {
	return CompletedConfig{&completedConfig{GenericConfig: c.GenericConfig.Complete(), Controller: c.Controller,
		NoControllerNote: c.NoControllerNote, Declared: c.Declared}}
}

// New builds the server and installs the AIM API group.
func (c completedConfig) New() (*AIMServer, error) {
	if err := c.checkFieldFormats(); err != nil {
		return nil, err
	}
	generic, err := c.GenericConfig.New("aim-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, fmt.Errorf("creating generic API server: %w", err)
	}
	apiGroupInfo := genericapiserver.NewDefaultAPIGroupInfo(aim.GroupName, Scheme, metav1.ParameterCodec, Codecs)
	storage := map[string]rest.Storage{}
	mains := map[string]*resource.REST{}
	for _, r := range Resources() {
		main, status, err := r.NewStorage(Scheme, c.GenericConfig.RESTOptionsGetter)
		if err != nil {
			return nil, err
		}
		if c.NoControllerNote != "" {
			main.MarkUnreconciled(c.NoControllerNote)
		}
		mains[r.ResourceName()] = main
		storage[r.ResourceName()] = main
		storage[r.ResourceName()+"/status"] = status
	}
	exists := existsIn(mains)
	for _, main := range mains {
		main.WarnOfMissingReferences(exists)
	}
	apiGroupInfo.VersionedResourcesStorageMap[v1alpha1.SchemeGroupVersion.Version] = storage
	if err := generic.InstallAPIGroup(&apiGroupInfo); err != nil {
		return nil, fmt.Errorf("installing API group %s: %w", aim.GroupName, err)
	}
	if c.Controller != nil {
		if err := c.installController(generic); err != nil {
			return nil, err
		}
	}
	for _, d := range c.Declared {
		if err := c.installDeclared(generic, d); err != nil {
			return nil, err
		}
	}
	return &AIMServer{GenericAPIServer: generic}, nil
}

// existsIn looks objects up in the stores of the AIM kinds, from the watch cache (resourceVersion 0), so that
// a create's reference warnings cost no etcd read while the reference resolves. An object the cache lacks is
// looked up again from etcd: the cache trails etcd, so a model and the service naming it applied in one
// `kubectl apply` (another replica may have stored the model) would otherwise warn of a model that exists.
func existsIn[G rest.Getter](stores map[string]G) resource.Exists {
	return func(ctx context.Context, res, namespace, name string) (bool, error) {
		store, ok := stores[res]
		if !ok {
			return false, fmt.Errorf("no AIM resource %s", res)
		}
		ctx = genericapirequest.WithNamespace(ctx, namespace)
		_, err := store.Get(ctx, name, &metav1.GetOptions{ResourceVersion: "0"})
		if apierrors.IsNotFound(err) {
			_, err = store.Get(ctx, name, &metav1.GetOptions{})
		}
		switch {
		case err == nil:
			return true, nil
		case apierrors.IsNotFound(err):
			return false, nil
		}
		return false, err
	}
}

// checkFieldFormats puts the field format check innermost in the handler chain, right before the handlers:
// a quantity, date-time or duration that would not decode is a 422 naming the field (package fieldformat).
func (c completedConfig) checkFieldFormats() error {
	kinds := map[string]string{} // the status subresource is checked too: it is the same resource
	for _, r := range Resources() {
		kinds[r.ResourceName()] = r.KindName()
	}
	checker, err := fieldformat.New(Scheme, v1alpha1.SchemeGroupVersion, kinds, c.GenericConfig.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	chain := c.GenericConfig.BuildHandlerChainFunc
	c.GenericConfig.BuildHandlerChainFunc = func(api http.Handler, gc *genericapiserver.Config) http.Handler {
		return chain(checker.WithCheck(api, gc.Serializer), gc)
	}
	return nil
}

// installDeclared applies the object a ConfigMap declares once the server serves (every replica does; the apply
// is idempotent).
func (c completedConfig) installDeclared(s *genericapiserver.GenericAPIServer, d Declared) error {
	kube, err := kubernetes.NewForConfig(d.KubeConfig)
	if err != nil {
		return err
	}
	aimClient, err := versioned.NewForConfig(c.GenericConfig.LoopbackClientConfig)
	if err != nil {
		return err
	}
	applier := &declared.Applier{Kind: d.Kind, ConfigMap: d.ConfigMap, Kube: kube, AIM: aimClient}
	// aim-default-runtime-config, aim-cluster-model-source.
	hook := "aim-" + strings.TrimPrefix(d.Kind.FieldManager, "aim-apiserver-")
	return s.AddPostStartHook(hook, func(ctx genericapiserver.PostStartHookContext) error {
		go applier.Run(ctx.Context)
		return nil
	})
}

// installController starts the embedded controller after the server serves (it reads AIM objects through
// the loopback client) and makes /readyz wait for its informers.
func (c completedConfig) installController(s *genericapiserver.GenericAPIServer) error {
	m, err := manager.New(c.GenericConfig.LoopbackClientConfig, c.Controller.KubeConfig, c.Controller.Options.Manager)
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	if err := controller.Register(m, c.Controller.Options); err != nil {
		return err
	}
	if err := s.AddReadyzChecks(healthz.NamedCheck("aim-controller-informers", func(*http.Request) error {
		if !m.HasSynced() {
			return errors.New("controller informers have not synced")
		}
		return nil
	})); err != nil {
		return fmt.Errorf("adding controller readiness check: %w", err)
	}
	// The controller stops first on shutdown, before the server drains: its workers end and it releases
	// the Lease at once, so that another replica leads within a round trip instead of after the lease
	// duration, and its informers' watches on this server close before the server waits for watches.
	run, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	var started atomic.Bool
	if err := s.AddPostStartHook("aim-controller", func(hook genericapiserver.PostStartHookContext) error {
		started.Store(true)
		context.AfterFunc(hook.Context, stop)
		go func() {
			defer close(done)
			if err := m.Run(run); err != nil {
				klog.ErrorS(err, "Embedded controller stopped")
			}
		}()
		return nil
	}); err != nil {
		return fmt.Errorf("adding the controller start hook: %w", err)
	}
	return s.AddPreShutdownHook("aim-controller", func() error {
		stop()
		if !started.Load() {
			return nil
		}
		select {
		case <-done:
			klog.InfoS("Embedded controller stopped for shutdown")
		case <-time.After(controllerStopTimeout):
			klog.InfoS("Embedded controller still stopping; shutting down anyway", "waited", controllerStopTimeout)
		}
		return nil
	})
}

// controllerStopTimeout bounds how long shutdown waits for the controller's workers to finish their current
// reconciles and release the Lease.
const controllerStopTimeout = 10 * time.Second
