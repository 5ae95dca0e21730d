package artifact

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
)

// downloadedAt is a Ready artifact whose download was verified at done, on a bound volume created at created.
func downloadedAt(done, created time.Time) Observation {
	o := downloading()
	o.PVC.CreationTimestamp = metav1.NewTime(created)
	c := downloadCondition(true, ReasonVerified, "Download and verification complete")
	c.LastTransitionTime = metav1.NewTime(done)
	o.Artifact.Status.Conditions = []metav1.Condition{c}
	o.Artifact.Status.Status = aimv1.AIMStatusReady
	o.Artifact.Status.Progress = &aimv1.AIMDownloadProgress{TotalBytes: 15 * gi, DownloadedBytes: 15 * gi, Percentage: 100, DisplayPercentage: "100 %"}
	return o
}

// succeededAt is the download Job of o's spec and volume, succeeded at t.
func succeededAt(o Observation, t time.Time) *batchv1.Job {
	size, _ := EffectiveSize(o.Artifact)
	j := BuildDownloadJob(o.Artifact, o.RuntimeConfig, o.Mirrors, size, o.Volume())
	j.Status.CompletionTime = &metav1.Time{Time: t}
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t)}}
	return j
}

// conclude stores what a reconcile of o derives, as reconcile.Conclude writes it.
func conclude(o Observation, p Plan) aimv1.AIMArtifactStatus {
	out := derive(o.Artifact, p)
	st := p.Status
	st.SetConditions(out.Conditions)
	st.SetStatus(string(out.Status))
	return st
}

// TestNewVolumeIsDownloadedAgain: a download counts only for the volume it was written to. A volume created
// after DownloadComplete last changed (deleted and re-created, say after it was Lost) is empty: a new download
// Job runs and the artifact is not Ready meanwhile, whether the volume is bound (immediate binding) or waits
// for the download pod (WaitForFirstConsumer).
func TestNewVolumeIsDownloadedAgain(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	later := t0.Add(time.Hour)
	for _, tc := range []struct {
		name string
		obs  func() Observation
		// wantJob: a new download Job is planned; wantStale: the old Job of its name is deleted.
		wantJob, wantStale bool
	}{
		{name: "immediate binding", wantJob: true, obs: func() Observation { return downloadedAt(t0, later) }},
		{name: "wait for first consumer", wantJob: true, obs: func() Observation {
			o := downloadedAt(t0, later)
			o.PVC.Status.Phase = corev1.ClaimPending
			return o
		}},
		{name: "created the second the download was verified", wantJob: true, obs: func() Observation { return downloadedAt(t0, t0) }},
		{name: "an earlier release's condition", wantJob: true, obs: func() Observation {
			o := downloadedAt(t0, later)
			o.Artifact.Status.Conditions[0].Reason = reasonLegacyDownloadDone
			return o
		}},
		{name: "the old Job of the same name is deleted first", wantStale: true, obs: func() Observation {
			o := downloadedAt(t0, later)
			o.DownloadJob = succeededAt(o, t0)
			return o
		}},
		{name: "the old Job of the same name is being deleted", obs: func() Observation {
			o := downloadedAt(t0, later)
			o.DownloadJob = succeededAt(o, t0)
			o.DownloadJob.DeletionTimestamp = &metav1.Time{Time: later}
			return o
		}},
		{name: "an old Job of another name is not followed", wantJob: true, obs: func() Observation {
			o := downloadedAt(t0, later)
			o.DownloadJob = succeededAt(o, t0)
			o.DownloadJob.Name = "org-m-download-earlier"
			return o
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkRedownload(t, tc.obs(), tc.wantJob, tc.wantStale) })
	}
}

// checkRedownload: o is not Ready, plans a download into its volume (wantJob) or the deletion of the old Job
// of its name (wantStale), and DownloadComplete and the progress no longer speak of the earlier volume.
func checkRedownload(t *testing.T, o Observation, wantJob, wantStale bool) {
	t.Helper()
	p := PlanArtifact(o)
	out := derive(o.Artifact, p)
	if out.Status == aimv1.AIMStatusReady {
		t.Errorf("Ready on a volume newer than its download; components %+v", p.Components)
	}
	if (p.Job != nil) != wantJob || (p.StaleJob != nil) != wantStale {
		t.Fatalf("planned Job %v, stale Job %v; want %v %v", p.Job != nil, p.StaleJob != nil, wantJob, wantStale)
	}
	if p.Job != nil && (p.Job.Labels[LabelComponent] != ComponentDownload ||
		p.Job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != o.PVC.Name) {
		t.Errorf("planned Job %s does not download into %s", p.Job.Name, o.PVC.Name)
	}
	if p.StaleJob != nil && p.StaleJob != o.DownloadJob {
		t.Errorf("stale Job %s, want %s", p.StaleJob.Name, o.DownloadJob.Name)
	}
	c := meta.FindStatusCondition(out.Conditions, ConditionDownloadComplete)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != ReasonDownloading || !strings.Contains(c.Message, o.PVC.Name) {
		t.Errorf("DownloadComplete %+v, want False/Downloading naming the volume", c)
	}
	if p.Status.Progress != nil {
		t.Errorf("progress %+v of the earlier volume kept", p.Status.Progress)
	}
}

// TestVolumeOlderThanDownloadStaysReady: a volume that predates DownloadComplete holds the download: the
// artifact stays Ready with no Job, and a reconcile of the stored status changes nothing (no writes).
func TestVolumeOlderThanDownloadStaysReady(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	for name, obs := range map[string]func() Observation{
		"Job expired": func() Observation { return downloadedAt(t0, t0.Add(-time.Hour)) },
		"Job still there": func() Observation {
			o := downloadedAt(t0, t0.Add(-time.Hour))
			o.DownloadJob = succeededAt(o, t0.Add(-time.Minute))
			return o
		},
		"a volume without a creation time": func() Observation { return downloadedAt(t0, time.Time{}) },
	} {
		t.Run(name, func(t *testing.T) {
			o := obs()
			o.Artifact.Status = conclude(o, PlanArtifact(o))
			stored := *o.Artifact.Status.DeepCopy()
			p := PlanArtifact(o)
			if p.Job != nil || p.StaleJob != nil || p.PVC != nil || p.ServiceAccount != nil || p.RoleBinding != nil {
				t.Errorf("planned Job %v stale %v volume %v account %v binding %v", p.Job, p.StaleJob, p.PVC, p.ServiceAccount, p.RoleBinding)
			}
			if got := conclude(o, p); !apiequality.Semantic.DeepEqual(got, stored) {
				t.Errorf("status changed:\n got %+v\nwant %+v", got, stored)
			}
			if stored.Status != aimv1.AIMStatusReady {
				t.Errorf("status %s, want Ready", stored.Status)
			}
			if c := meta.FindStatusCondition(stored.Conditions, ConditionDownloadComplete); c == nil || !c.LastTransitionTime.Time.Equal(t0) {
				t.Errorf("DownloadComplete %+v", c)
			}
		})
	}
}

// TestRedownloadCycle: the download into a new volume ends Ready for good: its success is dated after the
// volume, so that the artifact is not downloaded again once the Job expired, although the downloader's count
// of the earlier volume said 100 % and DownloadComplete was True all along; also when this controller's clock
// is behind the API server's, which dates the volume.
func TestRedownloadCycle(t *testing.T) {
	for name, skew := range map[string]time.Duration{"same clock": 0, "controller an hour behind": time.Hour} {
		t.Run(name, func(t *testing.T) {
			now := time.Now()
			o := downloadedAt(now.Add(-2*time.Hour), now.Add(skew-time.Minute).Truncate(time.Second))
			o.Now = now
			step := func(name string, want aimv1.AIMStatus) Plan {
				t.Helper()
				p := PlanArtifact(o)
				o.Artifact.Status = conclude(o, p)
				if o.Artifact.Status.Status != want {
					t.Fatalf("%s: status %s, want %s; components %+v", name, o.Artifact.Status.Status, want, p.Components)
				}
				return p
			}
			p := step("new volume", aimv1.AIMStatusProgressing)
			if p.Job == nil {
				t.Fatal("no download Job for the new volume")
			}
			o.DownloadJob, o.Pods = p.Job, []*corev1.Pod{runningPod()}
			o.Artifact.Status.Progress = &aimv1.AIMDownloadProgress{TotalBytes: 15 * gi, DownloadedBytes: 15 * gi, Percentage: 100}
			step("the downloader is done, verifying", aimv1.AIMStatusProgressing)
			o.DownloadJob, o.Pods = succeededAt(o, now.Add(skew)), nil
			step("verified", aimv1.AIMStatusReady)
			o.DownloadJob = nil
			if p := step("the Job expired", aimv1.AIMStatusReady); p.Job != nil {
				t.Errorf("downloaded again: %s", p.Job.Name)
			}
		})
	}
}

// TestStaleRunningJobCondition: while a Job runs into a new volume and DownloadComplete still says True of the
// earlier one (the status write that turned it False was lost), it goes False, not Verifying on the earlier
// volume's 100 %.
func TestStaleRunningJobCondition(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	o := downloadedAt(t0, t0.Add(time.Hour))
	o.DownloadJob, o.Pods = succeededAt(o, t0), []*corev1.Pod{runningPod()}
	o.DownloadJob.Status = batchv1.JobStatus{}
	p := PlanArtifact(o)
	out := derive(o.Artifact, p)
	if c := meta.FindStatusCondition(out.Conditions, ConditionDownloadComplete); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("DownloadComplete %+v, want False", c)
	}
	if out.Status == aimv1.AIMStatusReady || p.Job != nil || p.StaleJob != nil {
		t.Errorf("status %s, Job %v, stale %v: the running Job is followed", out.Status, p.Job, p.StaleJob)
	}
}

// TestDeleteStaleJob: the Job that wrote an earlier volume is deleted in the foreground (its pods first) and
// only if it is still the Job that was seen.
func TestDeleteStaleJob(t *testing.T) {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "org-m-download-1", Namespace: "team", UID: "job-1"}}
	kube := fake.NewClientset(j.DeepCopy())
	ctl := &Controller{c: manager.Clients{Kube: kube}}
	if err := ctl.deleteStaleJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	var del clienttesting.DeleteActionImpl
	for _, a := range kube.Actions() {
		if d, ok := a.(clienttesting.DeleteActionImpl); ok {
			del = d
		}
	}
	opts := del.DeleteOptions
	if del.Name != j.Name || opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationForeground ||
		opts.Preconditions == nil || *opts.Preconditions.UID != "job-1" {
		t.Errorf("delete %s with %+v", del.Name, opts)
	}
	// A Job gone meanwhile is no error.
	if err := ctl.deleteStaleJob(context.Background(), j); err != nil {
		t.Errorf("deleting a Job already gone: %v", err)
	}
}
