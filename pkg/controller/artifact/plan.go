// Package artifact reconciles AIMArtifacts: one model (hf:// or s3://) downloaded onto a volume. It measures
// the model when its size is unknown (check-size Job), creates a volume with headroom, and runs the download
// Job under a dedicated service account (F15). The downloader patches status.progress and status.download
// itself; the controller keeps those fields as they are until the Job succeeds, then reports the full size and
// download message Complete, as aim-engine does. A re-created volume is downloaded again, its progress counted
// afresh.
package artifact

import (
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/health"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// displayPercentageNotKnown is the progress shown for a failed download.
const displayPercentageNotKnown = "N/A"

// Observation is what one reconcile of an artifact saw. Children are only given when the artifact owns them.
type Observation struct {
	Artifact *aimv1.AIMArtifact
	// Now is when the observation was made, by this controller's clock.
	Now time.Time
	// Mirrors may rewrite the Jobs' image (rewriteImages).
	Mirrors *mirrors.Config

	RuntimeConfig    runtimeconfig.Resolved
	RuntimeConfigErr error

	// ServiceAccountReady and RoleBindingReady say the downloader's account and its binding exist as built.
	ServiceAccountReady, RoleBindingReady bool

	// PVC is the artifact's volume: the one named PVCName, else the one its status names (made under an
	// earlier release's naming rule, holding the download); nil when neither exists.
	PVC *corev1.PersistentVolumeClaim
	// CheckSizeJob and DownloadJob are the Jobs of the current spec (their names hash the pod spec).
	CheckSizeJob *batchv1.Job
	// CheckSizeOutput is what the succeeded check-size pod printed; CheckSizeOutputErr why it is unknown.
	CheckSizeOutput    string
	CheckSizeOutputErr error
	DownloadJob        *batchv1.Job
	// Pods of the Job being followed while it has not succeeded, and the cached events about them (Warnings, Pulling).
	Pods   []*corev1.Pod
	Events []corev1.Event
}

// Plan is what a reconcile should create and report.
type Plan struct {
	// ServiceAccount, RoleBinding, PVC and Job, when set, are applied.
	ServiceAccount *corev1.ServiceAccount
	RoleBinding    *rbacv1.RoleBinding
	PVC            *corev1.PersistentVolumeClaim
	Job            *batchv1.Job
	// StaleJob, when set, is deleted: a download Job that wrote an earlier volume and has the name of the one
	// the current volume needs.
	StaleJob *batchv1.Job

	Components    []state.Component
	Informational []state.Informational
	// Status carries every field but status and conditions, which the state engine derives. progress and
	// download are the downloader's: they are copied as observed, except that success sets 100 %.
	Status aimv1.AIMArtifactStatus
	// unmade is Status before it named the volume PVC makes, for VolumeNotMade.
	unmade *aimv1.AIMArtifactStatus
}

// VolumeNotMade takes back what the plan wrote into the status about the volume it was to make, which could not
// be made: the status names only a volume that exists, as aim-engine's, which it fills from the volume it reads
// back (reconcile.go:436).
func (p *Plan) VolumeNotMade() {
	if v := p.unmade; v != nil {
		p.Status.PersistentVolumeClaim, p.Status.AllocatedSize, p.Status.HeadroomPercent = v.PersistentVolumeClaim, v.AllocatedSize, v.HeadroomPercent
	}
}

// Volume is the name of the artifact's volume: the observed one, else the one to create.
func (o Observation) Volume() string {
	if o.PVC != nil {
		return o.PVC.Name
	}
	return PVCName(o.Artifact)
}

func (p *Plan) report(component string, dep state.Dependency, st aimv1.AIMStatus, reason, msg string, errs ...error) {
	p.Components = append(p.Components, state.Component{Name: component, Dependency: dep, State: st, Reason: reason, Message: msg, Errors: errs})
}

// EffectiveSize is the model size the artifact states or measured; false when unknown.
func EffectiveSize(a *aimv1.AIMArtifact) (int64, bool) {
	if a.Spec.WeightsSize != nil {
		if n := a.Spec.WeightsSize.Amount(); n.Value() > 0 {
			return n.Value(), true
		}
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
	observeVolume(o, st)
	// The size a user or a check-size Job gave is shown whatever else fails, as aim-engine's DecorateStatus
	// shows it on every reconcile.
	show := func(size int64) {
		if display, ok := displaySize(a.Spec.WeightsSize, size); ok {
			st.DisplaySize = display
		}
	}
	size, known := EffectiveSize(a)
	if known {
		show(size)
	}

	p.Components = append(p.Components, runtimeconfig.Component(o.RuntimeConfig, o.RuntimeConfigErr))
	if o.RuntimeConfigErr != nil {
		return p
	}

	if !o.ServiceAccountReady {
		p.ServiceAccount = BuildServiceAccount(a.Namespace)
	}
	if !o.RoleBindingReady {
		p.RoleBinding = BuildRoleBinding(a.Namespace)
	}
	if o.ServiceAccountReady && o.RoleBindingReady {
		p.report(ComponentAccount, state.DependencyDownstream, aimv1.AIMStatusReady, ReasonAccountReady, DownloaderName)
	} else {
		p.report(ComponentAccount, state.DependencyDownstream, aimv1.AIMStatusProgressing, ReasonAccountCreating,
			"creating ServiceAccount and RoleBinding "+DownloaderName)
	}

	if !known {
		if size, known = measureSize(o, &p); !known {
			return p
		}
		show(size)
	}
	if !planVolume(o, &p, size) {
		// The download Job is reported from the first reconcile that knows the size, as aim-engine reports it.
		comp := health.Job(ComponentDownloadJob, nil)
		if p.PVC != nil {
			comp.Message = "the download Job waits for volume " + p.PVC.Name
		}
		p.Components = append(p.Components, comp)
		return p
	}
	planDownload(o, &p, size)
	return p
}

// displaySize is status.displaySize as aim-engine's reconcile.go sets it: a spec size it cannot format (not a
// whole number of bytes, or beyond 7 EiB) shows as written; a measured one it cannot format leaves the field
// as it was.
func displaySize(written *aimv1.Quantity, measured int64) (string, bool) {
	if written == nil {
		return DisplaySize(measured)
	}
	// In resource.Quantity's canonical form, as aim-engine prints its parsed size.
	spec := written.Amount()
	if spec.IsZero() {
		return DisplaySize(measured)
	}
	if n, whole := spec.AsInt64(); whole {
		if s, ok := DisplaySize(n); ok {
			return s, true
		}
	}
	return spec.String(), true
}

// invalidSizeOutput is the artifact's condition saying that the check-size output of its current spec is no size,
// nil if it has none.
func invalidSizeOutput(a *aimv1.AIMArtifact) *metav1.Condition {
	c := meta.FindStatusCondition(a.Status.Conditions, ComponentCheckSizeOutput+state.ComponentSuffix)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != ReasonInvalidSizeOutput || c.ObservedGeneration != a.Generation {
		return nil
	}
	return c
}

// measureSize measures the size neither the spec nor the status gives with a check-size Job, reported as
// aim-engine does: the Job, its pods and, once it succeeded, its output.
func measureSize(o Observation, p *Plan) (int64, bool) {
	a := o.Artifact
	j := o.CheckSizeJob
	if c := invalidSizeOutput(a); j == nil && c != nil {
		// This spec's output was read and is no size (D10): the artifact stays Failed until its spec changes, rather
		// than measuring again each time the finished Job expires.
		p.report(ComponentCheckSizeOutput, state.DependencyDownstream, "", "", "", state.NewError(state.InvalidSpec, ReasonInvalidSizeOutput, "%s", c.Message))
		return 0, false
	}
	if j == nil {
		comp := health.Job(ComponentCheckSizeJob, nil)
		if !o.ServiceAccountReady {
			comp.Reason, comp.Message = ReasonWaitingForAccount, "the check-size Job waits for ServiceAccount "+DownloaderName
		} else {
			p.Job = BuildCheckSizeJob(a, o.RuntimeConfig, o.Mirrors)
			comp.Message = "creating check-size Job " + p.Job.Name
		}
		p.Components = append(p.Components, comp)
		return 0, false
	}
	p.Components = append(p.Components, health.Job(ComponentCheckSizeJob, j))
	if !health.Succeeded(j) {
		p.Components = append(p.Components, health.Pods(ComponentCheckSizeJobPods, o.Pods, o.Events))
		return 0, false
	}
	if o.CheckSizeOutputErr != nil {
		p.report(ComponentCheckSizeOutput, state.DependencyDownstream, "", "", "", o.CheckSizeOutputErr)
		return 0, false
	}
	n, err := ParseSizeOutput(o.CheckSizeOutput)
	if err != nil {
		p.report(ComponentCheckSizeOutput, state.DependencyDownstream, aimv1.AIMStatusFailed, "", "", err)
		return 0, false
	}
	p.Status.DiscoveredSizeBytes = ptr.To(n)
	return n, true
}

// observeVolume records an existing volume in the status as aim-engine's DecorateStatus does, whatever else the
// reconcile finds (reconcile.go:436-451): its name and, while allocatedSize is zero, the size it requests and the
// headroom. allocatedSize is "0" while no volume is known, as aim-engine writes it: its field is a
// resource.Quantity, whose zero value omitempty does not omit (aimartifact_types.go:206).
func observeVolume(o Observation, st *aimv1.AIMArtifactStatus) {
	if st.AllocatedSize == nil {
		st.AllocatedSize = ptr.To(aimv1.NewQuantity(resource.Quantity{}))
	}
	pvc := o.PVC
	if pvc == nil {
		return
	}
	st.PersistentVolumeClaim = pvc.Name
	if allocated := st.AllocatedSize.Amount(); allocated.IsZero() {
		if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
			st.AllocatedSize = ptr.To(aimv1.NewQuantity(q))
		}
		st.HeadroomPercent = ptr.To(o.RuntimeConfig.PVCHeadroomPercent())
	}
}

// planVolume creates the volume once and reports its phase. An existing volume keeps its size and class: both
// are fixed at creation, so the status reports what the volume has (observeVolume). It returns whether the
// volume exists; a pending one is fine, volumes of WaitForFirstConsumer classes bind when the download pod
// starts.
func planVolume(o Observation, p *Plan, size int64) bool {
	a, st := o.Artifact, &p.Status
	headroom := o.RuntimeConfig.PVCHeadroomPercent()
	if pvc := o.PVC; pvc != nil {
		switch pvc.Status.Phase {
		case corev1.ClaimBound:
			p.report(ComponentVolume, state.DependencyDownstream, aimv1.AIMStatusReady, state.ReasonReady, "")
		case corev1.ClaimLost:
			// aim-engine's words (health_fetchers.go:664): the volume's name is in status.persistentVolumeClaim.
			p.report(ComponentVolume, state.DependencyDownstream, "", "", "",
				state.NewError(state.Infrastructure, ReasonPVCLost, "PVC lost its underlying volume"))
		default:
			p.report(ComponentVolume, state.DependencyDownstream, aimv1.AIMStatusProgressing, ReasonPVCPending, "PVC is pending")
		}
		return true
	}
	allocated, err := AllocatedBytes(size, headroom)
	if err != nil {
		p.report(ComponentVolume, state.DependencyDownstream, aimv1.AIMStatusFailed, "", "", err)
		return false
	}
	q := *resource.NewQuantity(allocated, resource.BinarySI)
	p.PVC = BuildPVC(a, o.RuntimeConfig, q)
	// The status written after this apply reports the volume it made; aim-engine reports it one reconcile
	// later, when it reads the volume back. A volume that cannot be made is not named (VolumeNotMade).
	p.unmade = st.DeepCopy()
	st.PersistentVolumeClaim, st.AllocatedSize, st.HeadroomPercent = p.PVC.Name, ptr.To(aimv1.NewQuantity(q)), ptr.To(headroom)
	p.report(ComponentVolume, state.DependencyDownstream, aimv1.AIMStatusProgressing, health.ReasonResourceNotReady,
		"creating "+p.PVC.Name+" of "+q.String())
	return false
}

// planDownload runs the download Job and follows it, with its pods and the DownloadComplete condition as
// aim-engine reports them. A success is remembered in DownloadComplete (Verified), so that the artifact stays
// Ready after the Job expires and is never downloaded twice onto the same volume; but only for the volume it
// was written to. A volume created since (deleted and re-created, say after it was Lost) is empty: it gets a
// new download, and the artifact is not Ready until that succeeded. In aim-engine a lost volume takes the
// artifact out of Ready, and only its own Ready status holds the download back (reconcile.go:277-286,
// 383-387), so a new Job runs once the old one expired (download.go:109).
func planDownload(o Observation, p *Plan, size int64) {
	a := o.Artifact
	build := func() *batchv1.Job { return BuildDownloadJob(a, o.RuntimeConfig, o.Mirrors, size, o.Volume()) }
	j := o.DownloadJob
	if j != nil && wroteEarlierVolume(j, o.PVC) {
		if j.Name == build().Name {
			replaceDownloadJob(o, p, j)
			return
		}
		j = nil
	}
	done := meta.FindStatusCondition(a.Status.Conditions, ConditionDownloadComplete)
	earlier := done != nil && done.Status == metav1.ConditionTrue && volumeSince(o.PVC, done.LastTransitionTime)
	if j == nil && !earlier && done != nil && done.Status == metav1.ConditionTrue &&
		(done.Reason == ReasonVerified || done.Reason == reasonLegacyDownloadDone) {
		p.Informational = append(p.Informational, state.Informational{Condition: *done})
		return
	}
	// A True condition about an earlier volume goes False first, whatever the Job says: only a change of status
	// moves its transition time, which must follow this volume's creation for the success to come to count.
	cond := state.Informational{Condition: newVolumeCondition(o)}
	if j == nil {
		if earlier {
			// The downloader's count was of the earlier volume.
			p.Status.Progress = nil
			p.Informational = append(p.Informational, cond)
		}
		comp := health.Job(ComponentDownloadJob, nil)
		switch {
		case !o.ServiceAccountReady || !o.RoleBindingReady:
			comp.Reason, comp.Message = ReasonWaitingForAccount, "the download waits for ServiceAccount "+DownloaderName
		case o.PVC.Status.Phase == corev1.ClaimLost:
			// Its pod could not mount the volume; aim-engine applies nothing while a volume is lost.
			comp.Message = "the download Job waits for volume " + o.PVC.Name + ", which lost its underlying volume"
		default:
			p.Job = build()
			comp.Message = "creating download Job " + p.Job.Name
		}
		p.Components = append(p.Components, comp)
		return
	}
	if followed := followDownload(o, p, j, size); !earlier {
		followed.Condition = afterVolume(followed.Condition, o)
		cond = followed
	}
	p.Informational = append(p.Informational, cond)
}

// replaceDownloadJob makes way for the download into a new volume while the Job of the same name, which wrote
// the earlier volume of the same name, has not expired: it is deleted (Plan.StaleJob), and the new Job created
// once it is gone. Job names hash the pod spec, which names the volume but not which one.
func replaceDownloadJob(o Observation, p *Plan, j *batchv1.Job) {
	if j.DeletionTimestamp == nil {
		p.StaleJob = j
	}
	p.report(ComponentDownloadJob, state.DependencyDownstream, aimv1.AIMStatusProgressing, health.ReasonResourceNotReady,
		"deleting Job "+j.Name+", which downloaded into an earlier volume")
	p.Informational = append(p.Informational, state.Informational{Condition: newVolumeCondition(o)})
	p.Status.Progress = nil
}

// newVolumeCondition is DownloadComplete while a volume newer than the last download waits for its own.
func newVolumeCondition(o Observation) metav1.Condition {
	return downloadCondition(false, ReasonDownloading, "Volume "+o.Volume()+" is newer than the last download: downloading again")
}

// followDownload reports a download Job, its pods and progress, and returns the DownloadComplete condition they
// give, as aim-engine's decorateDownloadPhase (reconcile.go:470) does: a failure is a Warning Event, as there
// (AsWarning).
func followDownload(o Observation, p *Plan, j *batchv1.Job, size int64) state.Informational {
	p.Components = append(p.Components, health.Job(ComponentDownloadJob, j))
	if !health.Succeeded(j) {
		p.Components = append(p.Components, health.Pods(ComponentDownloadJobPods, o.Pods, o.Events))
	}
	pr := p.Status.Progress
	downloaded := pr != nil && pr.Percentage >= 100
	podFailed := slices.ContainsFunc(o.Pods, func(pod *corev1.Pod) bool { return pod.Status.Phase == corev1.PodFailed })
	switch {
	case health.Succeeded(j):
		// The verified download is the expected size, whatever the downloader last counted.
		p.Status.Progress = &aimv1.AIMDownloadProgress{TotalBytes: size, DownloadedBytes: size, Percentage: 100, DisplayPercentage: "100 %"}
		if p.Status.Download != nil {
			p.Status.Download.Message = "Complete"
		}
		return state.Informational{Condition: downloadCondition(true, ReasonVerified, "Download and verification complete")}
	case podFailed || health.Failed(j):
		if pr == nil {
			pr = &aimv1.AIMDownloadProgress{}
		}
		pr.DisplayPercentage = displayPercentageNotKnown
		p.Status.Progress = pr
		if downloaded {
			return state.Informational{Condition: downloadCondition(false, ReasonVerificationFailed, "Download completed but verification failed"), Warning: true}
		}
		return state.Informational{Condition: downloadCondition(false, ReasonDownloading, "Download failed before completion"), Warning: true}
	case downloaded:
		return state.Informational{Condition: downloadCondition(true, ReasonVerifying, "Download complete, verifying integrity...")}
	default:
		return state.Informational{Condition: downloadCondition(false, ReasonDownloading, "Download in progress")}
	}
}

// wroteEarlierVolume reports whether a Job succeeded before the volume was created, so into an earlier volume
// of the same name: a volume that a pod uses cannot go away (the kubernetes.io/pvc-protection finalizer), so
// the pod of a Job that succeeded after the volume was created wrote this one. A success in the second the
// volume was made counts as this volume's: a Job is created only once its volume exists, and a fast download
// (a small model, a test cluster) may end within that second, while no volume is deleted and made again
// within the second its Job ended.
func wroteEarlierVolume(j *batchv1.Job, pvc *corev1.PersistentVolumeClaim) bool {
	if !health.Succeeded(j) || pvc == nil || pvc.CreationTimestamp.IsZero() {
		return false
	}
	if t := j.Status.CompletionTime; t != nil {
		return t.Before(&pvc.CreationTimestamp)
	}
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Before(&pvc.CreationTimestamp)
		}
	}
	return false
}

// afterVolume dates a True DownloadComplete after its volume's creation when this controller's clock is behind
// the API server's, which dated the volume: the success would otherwise seem to predate its volume, and the
// artifact be downloaded again after every success.
func afterVolume(c metav1.Condition, o Observation) metav1.Condition {
	if c.Status != metav1.ConditionTrue || o.PVC == nil || o.PVC.CreationTimestamp.IsZero() {
		return c
	}
	if after := o.PVC.CreationTimestamp.Add(time.Second); o.Now.Before(after) {
		c.LastTransitionTime = metav1.NewTime(after)
	}
	return c
}

// volumeSince reports whether the volume was created at or after t, when both times are known. Timestamps have
// whole seconds: the same second counts as after, since no download is created, run and verified within the
// second its volume was made, while a volume deleted and re-created right after a download may be.
func volumeSince(pvc *corev1.PersistentVolumeClaim, t metav1.Time) bool {
	return pvc != nil && !pvc.CreationTimestamp.IsZero() && !t.IsZero() && !t.After(pvc.CreationTimestamp.Time)
}

func downloadCondition(done bool, reason, msg string) metav1.Condition {
	s := metav1.ConditionFalse
	if done {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: ConditionDownloadComplete, Status: s, Reason: reason, Message: msg}
}

// EarlierJob picks, among an artifact's Jobs of one component from earlier specs, the one still to follow: a
// running one first, else one that succeeded; failed ones and Jobs of other owners do not count.
func EarlierJob(jobs []*batchv1.Job, owner types.UID) *batchv1.Job {
	var succeeded *batchv1.Job
	for _, j := range jobs {
		if !reconcile.OwnedBy(j, owner) || j.DeletionTimestamp != nil {
			continue
		}
		switch finished, failed := health.Finished(j); {
		case !finished:
			return j
		case failed == "" && succeeded == nil:
			succeeded = j
		}
	}
	return succeeded
}
