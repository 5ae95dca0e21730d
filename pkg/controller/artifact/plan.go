// Package artifact reconciles AIMArtifacts: one model (hf:// or s3://) downloaded onto a volume. It measures
// the model when its size is unknown (check-size Job), creates a volume with headroom, and runs the download
// Job under a dedicated service account (F15). The downloader patches status.progress and status.download
// itself; the controller keeps those fields as they are.
package artifact

import (
	"cmp"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Components, conditions and reasons of artifacts.
const (
	ComponentRuntimeConfig = "RuntimeConfig"
	ComponentAccount       = "ServiceAccount"
	ComponentSize          = "Size"
	ComponentVolume        = "PersistentVolumeClaim"
	ComponentDownloadJob   = "Download"

	// ConditionDownloadComplete stays True once a download succeeded, so that the artifact stays Ready after
	// its Job expires.
	ConditionDownloadComplete = "DownloadComplete"

	ReasonCheckSizeFailed  = "CheckSizeFailed"
	ReasonDownloadFailed   = "DownloadFailed"
	ReasonDownloading      = "Downloading"
	ReasonDownloadComplete = "DownloadComplete"
	ReasonJobCreated       = "JobCreated"
)

// Observation is what one reconcile of an artifact saw. Children are only given when the artifact owns them.
type Observation struct {
	Artifact *aimv1.AIMArtifact

	RuntimeConfig    runtimeconfig.Resolved
	RuntimeConfigErr error

	// ServiceAccountReady and RoleBindingReady say the downloader's account and its binding exist as built.
	ServiceAccountReady, RoleBindingReady bool

	PVC *corev1.PersistentVolumeClaim
	// CheckSizeJob and DownloadJob are the Jobs of the current spec (their names hash the pod spec).
	CheckSizeJob *batchv1.Job
	// CheckSizeOutput is what the succeeded check-size pod printed; CheckSizeOutputErr why it is unknown.
	CheckSizeOutput    string
	CheckSizeOutputErr error
	DownloadJob        *batchv1.Job
	// Pods of the unfinished Job, for problems such as ImagePullBackOff.
	Pods []*corev1.Pod
}

// Plan is what a reconcile should create and report.
type Plan struct {
	// ServiceAccount, RoleBinding, PVC and Job, when set, are applied.
	ServiceAccount *corev1.ServiceAccount
	RoleBinding    *rbacv1.RoleBinding
	PVC            *corev1.PersistentVolumeClaim
	Job            *batchv1.Job

	Components    []state.Component
	Informational []metav1.Condition
	// Status carries every field but status and conditions, which the state engine derives. progress and
	// download are the downloader's: they are copied as observed, except that success sets 100 %.
	Status aimv1.AIMArtifactStatus
}

func (p *Plan) report(name string, dep state.Dependency, st aimv1.AIMStatus, reason, msg string, errs ...error) {
	p.Components = append(p.Components, state.Component{Name: name, Dependency: dep, State: st, Reason: reason, Message: msg, Errors: errs})
}

// EffectiveSize is the model size the artifact states or measured; false when unknown.
func EffectiveSize(a *aimv1.AIMArtifact) (int64, bool) {
	if a.Spec.Size != nil && a.Spec.Size.Value() > 0 {
		return a.Spec.Size.Value(), true
	}
	if d := a.Status.DiscoveredSizeBytes; d != nil && *d > 0 {
		return *d, true
	}
	return 0, false
}

// PlanArtifact decides an artifact's next step. It is pure.
func PlanArtifact(o Observation) Plan {
	a := o.Artifact
	p := Plan{Status: *a.Status.DeepCopy()}
	st := &p.Status
	st.ObservedGeneration = a.Generation
	st.Mode = aimv1.AIMTemplateCacheModeShared
	if len(a.OwnerReferences) > 0 {
		st.Mode = aimv1.AIMTemplateCacheModeDedicated
	}

	if o.RuntimeConfigErr != nil {
		p.report(ComponentRuntimeConfig, state.DependencyUpstream, "", "ConfigNotFound", "", state.UpstreamError(o.RuntimeConfigErr))
		return p
	}
	p.report(ComponentRuntimeConfig, state.DependencyUpstream, "", "ConfigFound", "")

	if !o.ServiceAccountReady {
		p.ServiceAccount = BuildServiceAccount(a.Namespace)
	}
	if !o.RoleBindingReady {
		p.RoleBinding = BuildRoleBinding(a.Namespace)
	}
	if o.ServiceAccountReady && o.RoleBindingReady {
		p.report(ComponentAccount, state.DependencyDownstream, aimv1.AIMStatusReady, "AccountReady", DownloaderName)
	} else {
		p.report(ComponentAccount, state.DependencyDownstream, aimv1.AIMStatusProgressing, "Creating",
			"creating ServiceAccount and RoleBinding "+DownloaderName)
	}

	size, known := planSize(o, &p)
	if !known {
		p.Informational = append(p.Informational, downloadCondition(false, "AwaitingSize", "the model size is not known yet"))
		return p
	}
	st.DisplaySize = DisplaySize(size)
	if !planVolume(o, &p, size) {
		return p
	}
	planDownload(o, &p, size)
	return p
}

// planSize takes the size from the spec or the status, or measures it with a check-size Job.
func planSize(o Observation, p *Plan) (int64, bool) {
	a := o.Artifact
	if n, ok := EffectiveSize(a); ok {
		reason := "SizeDiscovered"
		if a.Spec.Size != nil && a.Spec.Size.Value() > 0 {
			reason = "SizeFromSpec"
		}
		p.report(ComponentSize, state.DependencyDownstream, aimv1.AIMStatusReady, reason, DisplaySize(n))
		return n, true
	}
	progressing := func(reason, msg string) {
		p.report(ComponentSize, state.DependencyDownstream, aimv1.AIMStatusProgressing, reason, msg)
	}
	j := o.CheckSizeJob
	if j == nil {
		if !o.ServiceAccountReady {
			progressing("WaitingForServiceAccount", "the check-size Job waits for ServiceAccount "+DownloaderName)
			return 0, false
		}
		p.Job = BuildCheckSizeJob(a, o.RuntimeConfig)
		progressing(ReasonJobCreated, "created check-size Job "+p.Job.Name)
		return 0, false
	}
	switch finished, failed := manager.JobOutcome(j); {
	case !finished:
		if reason, msg, bad := PodProblem(o.Pods); bad {
			p.report(ComponentSize, state.DependencyDownstream, aimv1.AIMStatusFailed, reason, msg)
		} else {
			progressing("CheckingSize", "check-size Job "+j.Name+" is running")
		}
	case failed != "":
		p.report(ComponentSize, state.DependencyDownstream, aimv1.AIMStatusFailed, ReasonCheckSizeFailed,
			fmt.Sprintf("check-size Job %s failed: %s", j.Name, failed))
	case o.CheckSizeOutputErr != nil:
		p.report(ComponentSize, state.DependencyDownstream, "", "", "", o.CheckSizeOutputErr)
	default:
		n, err := ParseSizeOutput(o.CheckSizeOutput)
		if err != nil {
			p.report(ComponentSize, state.DependencyDownstream, aimv1.AIMStatusFailed, "", "", err)
			return 0, false
		}
		p.Status.DiscoveredSizeBytes = ptr.To(n)
		p.report(ComponentSize, state.DependencyDownstream, aimv1.AIMStatusReady, "SizeDiscovered", DisplaySize(n))
		return n, true
	}
	return 0, false
}

// planVolume creates the volume once. An existing volume keeps its size and class: both are fixed at
// creation, so the status reports what the volume has. It returns whether the volume exists.
func planVolume(o Observation, p *Plan, size int64) bool {
	a, st := o.Artifact, &p.Status
	headroom := o.RuntimeConfig.PVCHeadroomPercent()
	st.PersistentVolumeClaim = PVCName(a)
	if o.PVC != nil {
		if q, ok := o.PVC.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
			st.AllocatedSize = &q
		}
		if st.HeadroomPercent == nil {
			st.HeadroomPercent = ptr.To(headroom)
		}
		p.report(ComponentVolume, state.DependencyDownstream, aimv1.AIMStatusReady, "VolumeCreated",
			fmt.Sprintf("%s is %s", o.PVC.Name, cmp.Or(string(o.PVC.Status.Phase), string(corev1.ClaimPending))))
		return true
	}
	allocated, err := AllocatedBytes(size, headroom)
	if err != nil {
		p.report(ComponentVolume, state.DependencyDownstream, aimv1.AIMStatusFailed, "", "", err)
		return false
	}
	q := *resource.NewQuantity(allocated, resource.BinarySI)
	p.PVC = BuildPVC(a, o.RuntimeConfig, q)
	st.AllocatedSize, st.HeadroomPercent = &q, ptr.To(headroom)
	p.report(ComponentVolume, state.DependencyDownstream, aimv1.AIMStatusProgressing, "Creating", "creating "+p.PVC.Name+" of "+q.String())
	p.Informational = append(p.Informational, downloadCondition(false, "AwaitingVolume", "the volume is being created"))
	return false
}

// planDownload runs the download Job and follows it. A success is remembered in DownloadComplete, so that
// the artifact stays Ready after the Job expires and is never downloaded twice onto the same volume.
func planDownload(o Observation, p *Plan, size int64) {
	a := o.Artifact
	report := func(s aimv1.AIMStatus, reason, msg string) {
		p.report(ComponentDownloadJob, state.DependencyDownstream, s, reason, msg)
	}
	j := o.DownloadJob
	if j == nil && meta.IsStatusConditionTrue(a.Status.Conditions, ConditionDownloadComplete) {
		report(aimv1.AIMStatusReady, ReasonDownloadComplete, "")
		p.Informational = append(p.Informational, *meta.FindStatusCondition(a.Status.Conditions, ConditionDownloadComplete))
		return
	}
	if j == nil {
		if !o.ServiceAccountReady || !o.RoleBindingReady {
			report(aimv1.AIMStatusProgressing, "WaitingForServiceAccount", "the download waits for ServiceAccount "+DownloaderName)
		} else {
			p.Job = BuildDownloadJob(a, o.RuntimeConfig, size)
			report(aimv1.AIMStatusProgressing, ReasonJobCreated, "created download Job "+p.Job.Name)
		}
		p.Informational = append(p.Informational, downloadCondition(false, "AwaitingDownload", "the download is starting"))
		return
	}
	switch finished, failed := manager.JobOutcome(j); {
	case !finished:
		if reason, msg, bad := PodProblem(o.Pods); bad {
			report(aimv1.AIMStatusFailed, reason, msg)
		} else {
			msg := "download Job " + j.Name + " is running"
			if pr := a.Status.Progress; pr != nil && pr.DisplayPercentage != "" {
				msg += ": " + pr.DisplayPercentage
			}
			report(aimv1.AIMStatusProgressing, ReasonDownloading, msg)
		}
		p.Informational = append(p.Informational, downloadCondition(false, ReasonDownloading, "the download is running"))
	case failed != "":
		report(aimv1.AIMStatusFailed, ReasonDownloadFailed, fmt.Sprintf("download Job %s failed: %s", j.Name, failed))
		p.Informational = append(p.Informational, downloadCondition(false, ReasonDownloadFailed, failed))
	default:
		report(aimv1.AIMStatusReady, ReasonDownloadComplete, "")
		p.Informational = append(p.Informational, downloadCondition(true, ReasonDownloadComplete, "downloaded by Job "+j.Name))
		p.Status.Progress = complete(p.Status.Progress, size)
	}
}

// complete is the progress of a finished download: the downloader's numbers, at 100 %.
func complete(pr *aimv1.AIMDownloadProgress, size int64) *aimv1.AIMDownloadProgress {
	out := &aimv1.AIMDownloadProgress{}
	if pr != nil {
		out = pr.DeepCopy()
	}
	if out.TotalBytes == 0 {
		out.TotalBytes = size
	}
	out.DownloadedBytes = max(out.DownloadedBytes, out.TotalBytes)
	out.Percentage, out.DisplayPercentage = 100, "100 %"
	return out
}

func downloadCondition(done bool, reason, msg string) metav1.Condition {
	s := metav1.ConditionFalse
	if done {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: ConditionDownloadComplete, Status: s, Reason: reason, Message: msg}
}

// podProblems are container waiting reasons a user must fix (an image or its pull secret, the pod's config);
// the Job would otherwise wait silently.
var podProblems = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true,
	"CreateContainerConfigError": true, "CreateContainerError": true,
}

// PodProblem finds a problem of a Job's pods that needs the user; ok is false when there is none.
func PodProblem(pods []*corev1.Pod) (reason, msg string, ok bool) {
	for _, pod := range pods {
		for _, cs := range pod.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && podProblems[w.Reason] {
				return w.Reason, fmt.Sprintf("pod %s, container %s: %s", pod.Name, cs.Name, cmp.Or(w.Message, w.Reason)), true
			}
		}
	}
	return "", "", false
}

// EarlierJob picks, among an artifact's Jobs of one component from earlier specs, the one still to follow: a
// running one first, else one that succeeded; failed ones and Jobs of other owners do not count.
func EarlierJob(jobs []*batchv1.Job, owner types.UID) *batchv1.Job {
	var succeeded *batchv1.Job
	for _, j := range jobs {
		if !manager.OwnedBy(j, owner) || j.DeletionTimestamp != nil {
			continue
		}
		switch finished, failed := manager.JobOutcome(j); {
		case !finished:
			return j
		case failed == "" && succeeded == nil:
			succeeded = j
		}
	}
	return succeeded
}
