package artifact

import (
	"context"
	"fmt"
	"io"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/discovery"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

// FieldManager owns what the artifact controller applies.
const FieldManager = "aim-artifact-controller"

const (
	// outputTail bounds the log read when a check-size pod left no termination message: the result is the
	// last line.
	outputTail  int64 = 20
	outputBytes int64 = 64 << 10
	logTimeout        = 30 * time.Second
)

// Controller reconciles AIMArtifacts.
type Controller struct {
	c manager.Clients
	// registries are the registry mirrors, for image rewriting.
	registries *mirrors.Source

	artifacts aimlisters.AIMArtifactLister
	configs   runtimeconfig.Configs
	pvcs      corelisters.PersistentVolumeClaimLister
	jobs      batchlisters.JobLister
	pods      corelisters.PodLister
	accounts  corelisters.ServiceAccountLister
	bindings  rbaclisters.RoleBindingLister

	ctl *manager.Controller
}

// Children are the PVCs, Jobs and pods made for artifacts, all the artifact controller reads of those kinds.
var Children = manager.Selection{Labels: LabelArtifact}

// DownloaderAccess is the downloader's ServiceAccount and RoleBinding of every namespace.
var DownloaderAccess = manager.Selection{Fields: "metadata.name=" + DownloaderName}

// Register adds the artifact controller to the manager.
func Register(m *manager.Manager, registries *mirrors.Source) error {
	v := m.AIMInformers.Aim().V1alpha1()
	k, access := m.Selected(Children), m.Selected(DownloaderAccess)
	ctl := &Controller{c: m.Clients, registries: registries,
		artifacts: v.AIMArtifacts().Lister(), configs: runtimeconfig.ConfigsOf(v),
		pvcs: k.Core().V1().PersistentVolumeClaims().Lister(), jobs: k.Batch().V1().Jobs().Lister(), pods: k.Core().V1().Pods().Lister(),
		accounts: access.Core().V1().ServiceAccounts().Lister(), bindings: access.Rbac().V1().RoleBindings().Lister(),
	}
	// Events name the controller as their source, as aim-engine's do.
	ctl.c.Recorder = m.RecorderFor(FieldManager)
	var err error
	if ctl.ctl, err = manager.NewKindController("artifact", manager.ReconcilerFunc(ctl.reconcile), v.AIMArtifacts().Informer()); err != nil {
		return err
	}
	owners := manager.Owners{"AIMArtifact": {Controller: ctl.ctl, Namespaced: true}}
	// A runtime config concerns the artifacts that resolve it; the downloader's account every artifact of its
	// namespace.
	configured := ctl.enqueueHandler(func(cfg metav1.Object, a *aimv1.AIMArtifact) bool {
		return runtimeconfig.Affects(cfg, a.Namespace, a.Spec.RuntimeConfigName)
	})
	inNamespace := ctl.enqueueHandler(func(metav1.Object, *aimv1.AIMArtifact) bool { return true })

	// A Warning about a download pod (FailedScheduling, FailedMount, ...) keeps it pending; a Pulling event says
	// that its image is being pulled.
	events := m.PodEvents.Dependencies(manager.JobEventHandler(ctl.jobs, ctl.pods, owners))
	return m.Add(ctl.ctl, append(append(events, runtimeconfig.Dependencies(v, configured)...),
		manager.Dependency{Informer: k.Core().V1().PersistentVolumeClaims().Informer(), Handler: owners.Handler()},
		manager.Dependency{Informer: k.Batch().V1().Jobs().Informer(), Handler: owners.Handler()},
		manager.Dependency{Informer: k.Core().V1().Pods().Informer(), Handler: manager.JobPodHandler(ctl.jobs, owners)},
		// The downloader's account and binding are shared by the artifacts of a namespace.
		manager.Dependency{Informer: access.Core().V1().ServiceAccounts().Informer(), Handler: inNamespace},
		manager.Dependency{Informer: access.Rbac().V1().RoleBindings().Informer(), Handler: inNamespace},
	)...)
}

func (ctl *Controller) reconcile(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	namespace, name := key.Namespace, key.Name
	a, ok, err := reconcile.Lookup(func() (*aimv1.AIMArtifact, error) { return ctl.artifacts.AIMArtifacts(namespace).Get(name) })
	if !ok {
		return 0, err
	}
	o := ctl.observe(ctx, a)
	plan := PlanArtifact(o)

	var applyErr error
	fail := func(component string, err error) {
		applyErr = err
		plan.Components = state.WriteFailed(plan.Components, component, err)
	}
	if plan.ServiceAccount != nil {
		if _, err := reconcile.Apply(ctx, plan.ServiceAccount, ctl.c.Kube.CoreV1().ServiceAccounts(namespace).Apply, FieldManager); err != nil {
			fail(ComponentAccount, err)
		}
	}
	if plan.RoleBinding != nil {
		if _, err := reconcile.Apply(ctx, plan.RoleBinding, ctl.c.Kube.RbacV1().RoleBindings(namespace).Apply, FieldManager); err != nil {
			fail(ComponentAccount, err)
		}
	}
	if plan.PVC != nil {
		if _, err := reconcile.Apply(ctx, plan.PVC, ctl.c.Kube.CoreV1().PersistentVolumeClaims(namespace).Apply, FieldManager); err != nil {
			fail(ComponentVolume, err)
			plan.VolumeNotMade()
		}
	}
	if plan.StaleJob != nil {
		if err := ctl.deleteStaleJob(ctx, plan.StaleJob); err != nil {
			fail(ComponentDownloadJob, err)
		}
	}
	if plan.Job != nil {
		if _, err := reconcile.Apply(ctx, plan.Job, ctl.c.Kube.BatchV1().Jobs(namespace).Apply, FieldManager); err != nil {
			component := ComponentDownloadJob
			if plan.Job.Labels[LabelComponent] == ComponentCheckSize {
				component = ComponentCheckSizeJob
			}
			fail(component, err)
		} else {
			ctl.c.Recorder.Eventf(a, corev1.EventTypeNormal, ReasonJobCreated, "Created %s Job %s", plan.Job.Labels[LabelComponent], plan.Job.Name)
		}
	}

	// The update carries the observed resourceVersion: when the downloader patched progress meanwhile, it
	// conflicts, and the watch event of that patch queues the artifact again with fresh data. Progress is never
	// overwritten with a stale copy.
	return reconcile.Conclude(ctl.c.Recorder, a, "artifact "+key.String(), a.Status, plan.Status,
		reconcile.Outcome{Components: plan.Components, Informational: plan.Informational, ApplyErr: applyErr},
		reconcile.StatusWriter(ctx, a, ctl.c.AIM.AimV1alpha1().AIMArtifacts(namespace).UpdateStatus, FieldManager))
}

// observe gathers an artifact's inputs from the informer caches; only children the artifact owns count.
func (ctl *Controller) observe(ctx context.Context, a *aimv1.AIMArtifact) Observation {
	o := Observation{Artifact: a, Mirrors: ctl.registries.Config(), Now: time.Now()}
	o.RuntimeConfig, o.RuntimeConfigErr = ctl.configs.Lookup(a.Spec.RuntimeConfigName, a.Namespace)
	if _, err := ctl.accounts.ServiceAccounts(a.Namespace).Get(DownloaderName); err == nil {
		o.ServiceAccountReady = true
	}
	if rb, err := ctl.bindings.RoleBindings(a.Namespace).Get(DownloaderName); err == nil {
		want := BuildRoleBinding(a.Namespace)
		o.RoleBindingReady = rb.RoleRef == want.RoleRef && apiequality.Semantic.DeepEqual(rb.Subjects, want.Subjects)
	}
	for _, name := range []string{PVCName(a), a.Status.PersistentVolumeClaim} {
		if pvc, err := ctl.pvcs.PersistentVolumeClaims(a.Namespace).Get(name); err == nil && reconcile.OwnedBy(pvc, a.UID) {
			o.PVC = pvc
			break
		}
	}
	if o.RuntimeConfigErr != nil {
		return o
	}
	size, known := EffectiveSize(a)
	if !known {
		if j := ctl.componentJob(a, BuildCheckSizeJob(a, o.RuntimeConfig, o.Mirrors).Name, ComponentCheckSize); j != nil {
			o.CheckSizeJob = j
			if health.Succeeded(j) {
				o.CheckSizeOutput, o.CheckSizeOutputErr = ctl.output(ctx, j)
			} else {
				o.Pods, o.Events = health.JobPods(ctl.pods, ctl.c.PodEvents, j)
			}
		}
		return o
	}
	if j := ctl.componentJob(a, BuildDownloadJob(a, o.RuntimeConfig, o.Mirrors, size, o.Volume()).Name, ComponentDownload); j != nil {
		o.DownloadJob = j
		if !health.Succeeded(j) {
			o.Pods, o.Events = health.JobPods(ctl.pods, ctl.c.PodEvents, j)
		}
	}
	return o
}

// deleteStaleJob deletes a download Job that wrote an earlier volume, so that the Job of the same name for the
// current one can be created. Foreground: the Job is gone only once its pods are, so that the new Job of its name
// is never shown the old one's pods (pods are found by the job-name label). The UID precondition spares a Job
// created under the name meanwhile.
func (ctl *Controller) deleteStaleJob(ctx context.Context, j *batchv1.Job) error {
	jobs := ctl.c.Kube.BatchV1().Jobs(j.Namespace)
	_, err := reconcile.DeleteSeen(ctx, j, func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
		opts.PropagationPolicy = ptr.To(metav1.DeletePropagationForeground)
		return jobs.Delete(ctx, name, opts)
	})
	if err != nil {
		return fmt.Errorf("deleting Job %s/%s, which downloaded into an earlier volume: %w", j.Namespace, j.Name, err)
	}
	return nil
}

// componentJob is the artifact's Job of a component: the one of the current spec (named by its hash), else
// one of an earlier spec that still runs or that succeeded. A running Job is followed rather than joined by a
// second one writing the same volume; a failed one of an earlier spec is left behind, so that a fixed spec
// (say, credentials) starts afresh.
func (ctl *Controller) componentJob(a *aimv1.AIMArtifact, name, component string) *batchv1.Job {
	if j, err := ctl.jobs.Jobs(a.Namespace).Get(name); err == nil && reconcile.OwnedBy(j, a.UID) {
		return j
	}
	jobs, _ := ctl.jobs.Jobs(a.Namespace).List(labels.SelectorFromSet(jobSelector(a, component)))
	return EarlierJob(jobs, a.UID)
}

// output reads a succeeded check-size pod's result: the termination message, else the end of its log.
func (ctl *Controller) output(ctx context.Context, j *batchv1.Job) (string, error) {
	var succeeded *corev1.Pod
	pods, _ := health.JobPods(ctl.pods, ctl.c.PodEvents, j)
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded {
			succeeded = p
		}
	}
	if succeeded == nil {
		return "", state.NewError(state.MissingDownstream, ReasonCheckSizePodNotFound, "no succeeded pod of Job %s", j.Name)
	}
	if out, ok := discovery.TerminationMessage(succeeded, CheckSizeContainer); ok {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	stream, err := ctl.c.Kube.CoreV1().Pods(j.Namespace).GetLogs(succeeded.Name, &corev1.PodLogOptions{
		Container: CheckSizeContainer, TailLines: ptr.To(outputTail), LimitBytes: ptr.To(outputBytes)}).Stream(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the log of check-size pod %s: %w", succeeded.Name, err)
	}
	defer stream.Close()
	data, err := io.ReadAll(io.LimitReader(stream, outputBytes))
	if err != nil {
		return "", fmt.Errorf("reading the log of check-size pod %s: %w", succeeded.Name, err)
	}
	return string(data), nil
}

// enqueueHandler re-checks the artifacts of the namespace of the object an event is about (every namespace for
// a cluster-scoped one) that concern selects.
func (ctl *Controller) enqueueHandler(concerns func(obj metav1.Object, a *aimv1.AIMArtifact) bool) cache.ResourceEventHandler {
	return manager.OnEvery(func(m metav1.Object) {
		list, err := ctl.artifacts.AIMArtifacts(m.GetNamespace()).List(labels.Everything())
		if err != nil {
			return
		}
		for _, a := range list {
			if concerns(m, a) {
				ctl.ctl.Add(cache.MetaObjectToName(a))
			}
		}
	})
}
