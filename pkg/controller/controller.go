// Package controller assembles the embedded controllers. Each kind's controller lives in its own package;
// the manager package runs them.
package controller

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/artifact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/discovery"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gateway"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/gpu"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/model"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/modelsource"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/service"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/sweep"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/template"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/templatecache"
)

// Options configure the controllers.
type Options struct {
	Manager manager.Options
	// DiscoveryBackoff spaces discovery retries after failures.
	DiscoveryBackoff discovery.Backoff
	// ImageMetadataRegistries are the registries models may read image labels from; "*" is any.
	ImageMetadataRegistries []string
	// RegistryConfig is the file of registry mirrors (mirrors.File); "" for none.
	RegistryConfig string
}

// DefaultOptions are the defaults of the controller flags.
func DefaultOptions() Options {
	return Options{Manager: manager.DefaultOptions(), DiscoveryBackoff: discovery.DefaultBackoff, ImageMetadataRegistries: []string{"*"}}
}

// Validate checks the options.
func (o Options) Validate() error {
	if err := o.Manager.Validate(); err != nil {
		return err
	}
	if o.DiscoveryBackoff.Base <= 0 || o.DiscoveryBackoff.Max < o.DiscoveryBackoff.Base {
		return fmt.Errorf("discovery backoff needs 0 < base <= max, not %s and %s", o.DiscoveryBackoff.Base, o.DiscoveryBackoff.Max)
	}
	return nil
}

// Register adds every controller to the manager.
func Register(m *manager.Manager, o Options) error {
	registries, err := mirrors.NewSource(o.RegistryConfig)
	if err != nil {
		return err
	}
	if err := runtimeconfig.Register(m); err != nil {
		return fmt.Errorf("registering the runtime config controllers: %w", err)
	}
	// One GPU inventory for the template and service controllers, from Node events.
	gpus := gpu.NewTracker()
	// Without resyncs, as every dependency (manager.Watch): the inventory changes only with its Nodes.
	reg, err := m.KubeInformers.Core().V1().Nodes().Informer().AddEventHandlerWithResyncPeriod(gpus.Handler(), 0)
	if err != nil {
		return fmt.Errorf("tracking GPU nodes: %w", err)
	}
	m.WaitFor("GPU inventory", reg.HasSynced)
	if err := template.Register(m, o.DiscoveryBackoff, gpus, registries); err != nil {
		return fmt.Errorf("registering the service template controllers: %w", err)
	}
	if err := model.Register(m, imagemeta.Fetcher{Allowed: o.ImageMetadataRegistries, Mirrors: registries}); err != nil {
		return fmt.Errorf("registering the model controllers: %w", err)
	}
	if err := templatecache.Register(m); err != nil {
		return fmt.Errorf("registering the template cache controller: %w", err)
	}
	if err := artifact.Register(m, registries); err != nil {
		return fmt.Errorf("registering the artifact controller: %w", err)
	}
	if err := service.Register(m, gpus, registries); err != nil {
		return fmt.Errorf("registering the service controller: %w", err)
	}
	if err := modelsource.Register(m, registries); err != nil {
		return fmt.Errorf("registering the model source controller: %w", err)
	}
	sources, err := sweepSources(m)
	if err != nil {
		return err
	}
	if err := sweep.Register(m, m.Options.ResyncPeriod, sources...); err != nil {
		return fmt.Errorf("registering the orphan sweep: %w", err)
	}
	return nil
}

// sweepSources are the children the orphan sweep looks after: every kind the controllers create with an AIM
// owner.
func sweepSources(m *manager.Manager) ([]sweep.Source, error) {
	jobs := batchv1.SchemeGroupVersion.WithResource("jobs")
	discoveryObjects, artifactChildren := m.Selected(template.DiscoveryObjects), m.Selected(artifact.Children)
	sources := []sweep.Source{
		sweep.Objects(m.Dynamic, jobs, discoveryObjects.Batch().V1().Jobs().Lister().List),
		sweep.Objects(m.Dynamic, jobs, artifactChildren.Batch().V1().Jobs().Lister().List),
		sweep.Objects(m.Dynamic, corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), artifactChildren.Core().V1().PersistentVolumeClaims().Lister().List),
		sweep.Optional(m.Dynamic, m.Optional(kserve.Resource, kserve.NewObject)),
		sweep.Optional(m.Dynamic, m.Optional(gateway.Resource, gateway.NewObject)),
	}
	for _, kind := range []string{"AIMServiceTemplate", "AIMClusterServiceTemplate", "AIMTemplateCache", "AIMArtifact", "AIMClusterModel"} {
		src, err := sweep.AIM(m, kind)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	return sources, nil
}
