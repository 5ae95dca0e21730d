package model

import (
	"context"
	"slices"
	"strings"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/expectations"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// FieldManager owns the templates the model controller applies for models and writes their status; it is the
// source of their Events, as aim-engine's controller is named.
const FieldManager = "aim-model-controller"

// ClusterFieldManager is FieldManager for cluster models: aim-engine runs a controller of its own for them.
const ClusterFieldManager = "aim-cluster-model-controller"

// metadataTimeout bounds one registry lookup.
const metadataTimeout = 30 * time.Second

// Controller reconciles both model kinds.
type Controller struct {
	c       manager.Clients
	fetcher imagemeta.Fetcher
	// clusterRecorder records the Events of cluster models under aim-engine's name of their controller.
	clusterRecorder record.EventRecorder

	models           aimlisters.AIMModelLister
	clusterModels    aimlisters.AIMClusterModelLister
	templates        aimlisters.AIMServiceTemplateLister
	clusterTemplates aimlisters.AIMClusterServiceTemplateLister
	configs          runtimeconfig.Configs
	// written are the models whose last status write the cache does not show yet (reconcile.LookupWritten).
	written *expectations.Writes
}

// Register adds the model controllers to the manager.
func Register(m *manager.Manager, fetcher imagemeta.Fetcher) error {
	v := m.AIMInformers.Aim().V1alpha1()
	ctl := &Controller{c: m.Clients, fetcher: fetcher,
		models: v.AIMModels().Lister(), clusterModels: v.AIMClusterModels().Lister(),
		templates: v.AIMServiceTemplates().Lister(), clusterTemplates: v.AIMClusterServiceTemplates().Lister(),
		configs: runtimeconfig.ConfigsOf(v), written: expectations.NewWrites(),
	}
	// Events name the controller as their source, as aim-engine's do.
	ctl.c.Recorder = m.RecorderFor(FieldManager)
	ctl.clusterRecorder = m.RecorderFor(ClusterFieldManager)
	ns, err := manager.NewKindController("model", manager.ReconcilerFunc(ctl.reconcileNamespaced), v.AIMModels().Informer())
	if err != nil {
		return err
	}
	cl, err := manager.NewKindController("cluster-model", manager.ReconcilerFunc(ctl.reconcileCluster), v.AIMClusterModels().Informer())
	if err != nil {
		return err
	}
	owners := manager.Owners{"AIMModel": {Controller: ns, Namespaced: true}, "AIMClusterModel": {Controller: cl}}
	// The templates a model owns are the children of both controllers: one registration serves both.
	// A model waiting for (or using) a runtime config re-checks when it comes, changes or goes.
	if err := m.Add(ns, append(runtimeconfig.Dependencies(v, ctl.configHandler(ns, cl)),
		manager.Dependency{Informer: v.AIMServiceTemplates().Informer(), Handler: owners.Handler()},
		manager.Dependency{Informer: v.AIMClusterServiceTemplates().Informer(), Handler: owners.Handler()},
	)...); err != nil {
		return err
	}
	return m.Add(cl)
}

// configHandler enqueues the models that name a runtime config: for a namespaced config those of its
// namespace, for a cluster config every model (a namespaced config of the same name may be missing).
func (ctl *Controller) configHandler(ns, cl *manager.Controller) cache.ResourceEventHandler {
	return manager.OnEvery(func(cfg metav1.Object) {
		var models []*aimv1.AIMModel
		if cfg.GetNamespace() != "" {
			models, _ = ctl.models.AIMModels(cfg.GetNamespace()).List(labels.Everything())
		} else {
			models, _ = ctl.models.List(labels.Everything())
			clusterModels, _ := ctl.clusterModels.List(labels.Everything())
			for _, m := range clusterModels {
				if runtimeconfig.Affects(cfg, "", m.Spec.RuntimeConfigName) {
					cl.Enqueue(m)
				}
			}
		}
		for _, m := range models {
			if runtimeconfig.Affects(cfg, m.Namespace, m.Spec.RuntimeConfigName) {
				ns.Enqueue(m)
			}
		}
	})
}

func (ctl *Controller) reconcileNamespaced(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	namespace, name := key.Namespace, key.Name
	wkey := writtenKey("AIMModel", key)
	m, ok, after, err := reconcile.LookupWritten(func() (*aimv1.AIMModel, error) { return ctl.models.AIMModels(namespace).Get(name) }, ctl.written, wkey)
	if !ok {
		return after, err
	}
	ofModel := labels.SelectorFromSet(labels.Set{aimv1.LabelModel: naming.LabelValue(name)})
	owned := func() []TemplateState {
		ts, _ := ctl.templates.AIMServiceTemplates(namespace).List(ofModel)
		return ownedStates(ts, m.UID, func(t *aimv1.AIMServiceTemplate) aimv1.AIMStatus { return t.Status.Status })
	}
	deleteStale := func(ctx context.Context, keep []string) error {
		ts, _ := ctl.templates.AIMServiceTemplates(namespace).List(ofModel)
		return reconcile.DeleteStale(ctx, ctl.c.Recorder, m, []string{FieldManager}, "AIMServiceTemplate", ts, keep, ctl.c.AIM.AimV1alpha1().AIMServiceTemplates(namespace).Delete)
	}
	apply := func(ctx context.Context, t Template) error {
		obj := &aimv1.AIMServiceTemplate{TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMServiceTemplate"},
			ObjectMeta: templateMeta(t.Name, namespace, t.Labels, metav1.NewControllerRef(m, aimv1.SchemeGroupVersion.WithKind("AIMModel"))),
			Spec:       aimv1.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: t.Spec}}
		var live runtime.Object
		if cur, err := ctl.templates.AIMServiceTemplates(namespace).Get(t.Name); err == nil && reconcile.OwnedBy(cur, m.UID) {
			live = cur
		}
		_, err := reconcile.ApplyChanged(ctx, obj, live, reconcile.Sender(ctl.c.AIM.AimV1alpha1().AIMServiceTemplates(namespace).Apply, FieldManager))
		return err
	}
	write := reconcile.TrackedStatusWriter(ctx, m, ctl.c.AIM.AimV1alpha1().AIMModels(namespace).UpdateStatus, FieldManager, ctl.written, wkey)
	return ctl.reconcile(ctx, m, m.Spec, m.Status, namespace, owned, apply, deleteStale, write)
}

func (ctl *Controller) reconcileCluster(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	name := key.Name
	wkey := writtenKey("AIMClusterModel", key)
	m, ok, after, err := reconcile.LookupWritten(func() (*aimv1.AIMClusterModel, error) { return ctl.clusterModels.Get(name) }, ctl.written, wkey)
	if !ok {
		return after, err
	}
	ofModel := labels.SelectorFromSet(labels.Set{aimv1.LabelModel: naming.LabelValue(name)})
	owned := func() []TemplateState {
		ts, _ := ctl.clusterTemplates.List(ofModel)
		return ownedStates(ts, m.UID, func(t *aimv1.AIMClusterServiceTemplate) aimv1.AIMStatus { return t.Status.Status })
	}
	deleteStale := func(ctx context.Context, keep []string) error {
		ts, _ := ctl.clusterTemplates.List(ofModel)
		// Earlier releases wrote a cluster model's templates as FieldManager.
		return reconcile.DeleteStale(ctx, ctl.recorder(""), m, []string{ClusterFieldManager, FieldManager}, "AIMClusterServiceTemplate", ts, keep, ctl.c.AIM.AimV1alpha1().AIMClusterServiceTemplates().Delete)
	}
	apply := func(ctx context.Context, t Template) error {
		t.Spec.Env = nil // cluster templates take their env from runtime configs
		obj := &aimv1.AIMClusterServiceTemplate{TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMClusterServiceTemplate"},
			ObjectMeta: templateMeta(t.Name, "", t.Labels, metav1.NewControllerRef(m, aimv1.SchemeGroupVersion.WithKind("AIMClusterModel"))),
			Spec:       aimv1.AIMClusterServiceTemplateSpec{AIMServiceTemplateSpecCommon: t.Spec}}
		var live runtime.Object
		if cur, err := ctl.clusterTemplates.Get(t.Name); err == nil && reconcile.OwnedBy(cur, m.UID) {
			live = cur
		}
		_, err := reconcile.ApplyChanged(ctx, obj, live, reconcile.Sender(ctl.c.AIM.AimV1alpha1().AIMClusterServiceTemplates().Apply, ClusterFieldManager))
		return err
	}
	write := reconcile.TrackedStatusWriter(ctx, m, ctl.c.AIM.AimV1alpha1().AIMClusterModels().UpdateStatus, ClusterFieldManager, ctl.written, wkey)
	// Pull secrets of cluster models live in the system namespace, like their discovery Jobs.
	return ctl.reconcile(ctx, m, m.Spec, m.Status, ctl.c.Options.SystemNamespace, owned, apply, deleteStale, write)
}

// writtenKey is the key of a model in written, which both kinds share. Keeping the model's read of its image's
// labels to once is why its status writes are tracked: the templates' events come before the status.
func writtenKey(kind string, key cache.ObjectName) string { return kind + "/" + key.String() }

// ownedStates are the states of the templates among ts that uid owns.
func ownedStates[T metav1.Object](ts []T, uid types.UID, status func(T) aimv1.AIMStatus) []TemplateState {
	var out []TemplateState
	for _, t := range ts {
		if reconcile.OwnedBy(t, uid) {
			out = append(out, TemplateState{Name: t.GetName(), Status: status(t)})
		}
	}
	return out
}

// reconcile is the pipeline shared by both kinds. deleteStale deletes the model's templates other than keep.
func (ctl *Controller) reconcile(ctx context.Context, obj reconcile.Object, spec aimv1.AIMModelSpec,
	current aimv1.AIMModelStatus, secretNamespace string, owned func() []TemplateState,
	apply func(context.Context, Template) error, deleteStale func(context.Context, []string) error,
	write func(aimv1.AIMModelStatus) error) (time.Duration, error) {
	status := *current.DeepCopy()
	status.ObservedGeneration = obj.GetGeneration()
	status.SourceType = aimv1.AIMModelSourceTypeImage
	if len(spec.ModelSources) > 0 {
		status.SourceType = aimv1.AIMModelSourceTypeCustom
	}
	var comps []state.Component

	rc, rcErr := ctl.configs.Lookup(spec.RuntimeConfigName, obj.GetNamespace())
	rcComp, recorded := runtimeconfig.Report(rc, rcErr, status.ResolvedRuntimeConfig)
	comps, status.ResolvedRuntimeConfig = append(comps, rcComp), recorded

	metadata, metaComp := ctl.metadata(ctx, obj.GetGeneration(), spec, current, secretNamespace)
	comps = append(comps, metaComp)
	status.ImageMetadata = metadata

	var applyErr error
	if templatesKnown(spec, metadata, rcErr) {
		desired := Desired(obj.GetName(), spec, metadata)
		controller := childlabels.Model
		if obj.GetNamespace() == "" {
			controller = childlabels.ClusterModel
		}
		names := make([]string, 0, len(desired))
		for _, t := range desired {
			t.Labels = TemplateLabels(controller, obj, rc, t.Labels)
			if err := apply(ctx, t); err != nil {
				applyErr = err
				break
			}
			names = append(names, t.Name)
		}
		// The templates the model made that it no longer wants (another recommended deployment, a removed
		// custom template, the name an earlier release gave) would be selected next to the current ones. With
		// createServiceTemplates false the model leaves its templates alone.
		if applyErr == nil && spec.ShouldCreateTemplates() {
			applyErr = deleteStale(ctx, names)
		}
		var templates []TemplateState
		for _, t := range owned() {
			if slices.Contains(names, t.Name) {
				templates = append(templates, t)
			}
		}
		comp := TemplatesComponent(len(desired), templates)
		if applyErr != nil {
			comp = state.Component{Dependency: state.DependencyDownstream, Errors: []error{applyErr}}
		}
		comps = append(comps, templatesOfKind(comp, obj.GetNamespace() == ""))
	} else if comp, ok := awaitingMetadata(spec, rcErr); ok {
		comps = append(comps, templatesOfKind(comp, obj.GetNamespace() == ""))
	}

	// Pull secrets are not watched (the controller may only get them), and a missing image may be pushed
	// later: look again.
	var recheck time.Duration
	now := time.Now()
	since, failing := readFailingSince(current)
	if !failing {
		since = now
	}
	for _, err := range metaComp.Errors {
		recheck = max(recheck, imagemeta.Recheck(err, since, now))
	}
	return reconcile.Conclude(ctl.recorder(obj.GetNamespace()), obj, "model "+obj.GetName(), current, status,
		reconcile.Outcome{Components: comps, ApplyErr: applyErr, RequeueAfter: recheck}, write)
}

// metadata takes the image metadata from the spec, from the status (read once), or from the registry.
func (ctl *Controller) metadata(ctx context.Context, generation int64, spec aimv1.AIMModelSpec, current aimv1.AIMModelStatus,
	secretNamespace string) (*aimv1.ImageMetadata, state.Component) {
	comp := state.Component{Name: ComponentImageMetadata, Dependency: state.DependencyUpstream}
	found := func(md *aimv1.ImageMetadata) state.Component {
		comp.Reason = ReasonImageFound
		if md != nil && md.Model != nil && md.Model.CanonicalName != "" {
			comp.Reason, comp.Message = ReasonImageMetadataFound, md.Model.CanonicalName
		}
		return comp
	}
	switch {
	case spec.ImageMetadata != nil:
		return spec.ImageMetadata.DeepCopy(), found(spec.ImageMetadata)
	case !spec.ShouldExtractMetadata():
		// The labels read before extraction was turned off stay, and templates are planned from them, as in
		// aim-engine, which skips the fetch (internal/aimmodel/reconcile.go:315), writes status.imageMetadata
		// only from a fetch (reconcile.go:516) and plans from the status (reconcile.go:461).
		comp.Reason, comp.Message = ReasonExtractionDisabled, "spec.discovery.extractMetadata is false"
		if current.ImageMetadata != nil {
			comp.Message += "; the labels read before are kept"
		}
		return current.ImageMetadata, comp
	case current.ImageMetadata != nil && readFor(current, generation) && !readFailed(current):
		comp = found(current.ImageMetadata)
		// The message of the read says which mirror answered; it stays while the labels read then are used.
		if c := metadataCondition(current); c != nil && c.Reason == comp.Reason && strings.HasPrefix(c.Message, comp.Message) {
			comp.Message = c.Message
		}
		return current.ImageMetadata, comp
	}
	// A read that fails keeps the labels of this spec's last read, and no others: those of an earlier spec (another
	// image, perhaps) would plan its templates, and, as an outage keeps the condition for its grace, be taken as
	// this spec's once the status says this generation.
	var kept *aimv1.ImageMetadata
	if readFor(current, generation) {
		kept = current.ImageMetadata
	}
	secrets, err := imagemeta.PullSecrets(ctx, ctl.c.Kube, secretNamespace, spec.ImagePullSecrets)
	if err != nil {
		comp.Errors = []error{err}
		return kept, comp
	}
	lookupCtx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	labels, from, err := ctl.fetcher.Labels(lookupCtx, spec.Image, secrets)
	if err != nil {
		comp.Errors = []error{err}
		return kept, comp
	}
	md, err := imagemeta.FromLabels(labels)
	if err != nil {
		comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonInvalidImageLabels, "%s: %v", spec.Image, err)}
		return nil, comp
	}
	comp = found(md)
	if from != "" {
		comp.Message = strings.TrimPrefix(comp.Message+"; labels read from the mirror "+from, "; ")
	}
	return md, comp
}

// readFor reports whether the status's labels were read for this generation of the spec: written by this
// controller for it, or by aim-engine, which writes no observedGeneration and reads an image's labels once (a
// model migrated from it is not read again, as aim-engine would not read it).
func readFor(current aimv1.AIMModelStatus, generation int64) bool {
	return !state.StaleStatus(generation, current.ObservedGeneration)
}

// readFailed reports that the last read of the labels failed: the labels in the status are then of an earlier
// spec (another image, perhaps) and are read again until a read succeeds, rather than taken as this spec's on
// the reconcile after the failure.
func readFailed(current aimv1.AIMModelStatus) bool {
	_, failing := readFailingSince(current)
	return failing
}

// readFailingSince is when the reads of the labels began to fail (the condition's lastTransitionTime), and whether
// the last read failed.
func readFailingSince(current aimv1.AIMModelStatus) (time.Time, bool) {
	if c := metadataCondition(current); c != nil && c.Status == metav1.ConditionFalse {
		return c.LastTransitionTime.Time, true
	}
	return time.Time{}, false
}

// metadataCondition is the status's condition of the image metadata, nil if none.
func metadataCondition(current aimv1.AIMModelStatus) *metav1.Condition {
	return apimeta.FindStatusCondition(current.Conditions, ComponentImageMetadata+state.ComponentSuffix)
}

// templateMeta is the metadata of a model's template: its labels (childlabels.For) and the model as its
// controller.
func templateMeta(name, namespace string, labels map[string]string, owner *metav1.OwnerReference) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels, OwnerReferences: []metav1.OwnerReference{*owner}}
}

// recorder is the Event recorder of a model of namespace ("" for a cluster model).
func (ctl *Controller) recorder(namespace string) record.EventRecorder {
	if namespace == "" && ctl.clusterRecorder != nil {
		return ctl.clusterRecorder
	}
	return ctl.c.Recorder
}
