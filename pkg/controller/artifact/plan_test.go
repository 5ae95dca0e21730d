package artifact

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	"github.com/aim-apiserver/aim-apiserver/test/podsecurity"
)

const gi = int64(1) << 30

func testArtifact() *aimv1.AIMArtifact {
	return &aimv1.AIMArtifact{
		ObjectMeta: metav1.ObjectMeta{Name: "org-m", Namespace: "team", UID: "uid-1", Generation: 3},
		Spec: aimv1.AIMArtifactSpec{SourceURI: "hf://org/m", ModelID: "org/m",
			Env: []corev1.EnvVar{{Name: "HF_TOKEN", Value: "artifact"}, {Name: "STALL_TIMEOUT", Value: "600"}}},
	}
}

func sized(a *aimv1.AIMArtifact, q string) *aimv1.AIMArtifact {
	a.Spec.WeightsSize = ptr.To(aimv1.MustParseQuantity(q))
	return a
}

func config(storage *aimv1.AIMStorageConfig, env ...corev1.EnvVar) runtimeconfig.Resolved {
	return runtimeconfig.Resolved{Name: "default", Spec: aimv1.AIMRuntimeConfigSpec{Storage: storage, Env: env}}
}

func envOf(c corev1.Container) map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		if _, dup := m[e.Name]; dup {
			panic("duplicate env " + e.Name)
		}
		m[e.Name] = e.Value
	}
	return m
}

func TestBuildPVC(t *testing.T) {
	for _, tc := range []struct {
		name       string
		specClass  string
		storage    *aimv1.AIMStorageConfig
		wantClass  *string
		wantModes  []corev1.PersistentVolumeAccessMode
		wantSizeGi int64
	}{
		{name: "defaults: cluster default class, RWX", wantModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}},
		{name: "runtime config class and access modes",
			storage:   &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("rc-class"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
			wantClass: ptr.To("rc-class"), wantModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
		{name: "the artifact's class wins", specClass: "mine",
			storage:   &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("rc-class")},
			wantClass: ptr.To("mine"), wantModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}},
		{name: "an empty runtime config class is the cluster default", storage: &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("")},
			wantModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := testArtifact()
			a.Spec.StorageClassName = tc.specClass
			pvc := BuildPVC(a, config(tc.storage), *resource.NewQuantity(11*gi, resource.BinarySI))
			if got, want := ptr.Deref(pvc.Spec.StorageClassName, "<nil>"), ptr.Deref(tc.wantClass, "<nil>"); got != want {
				t.Errorf("storage class %s, want %s", got, want)
			}
			if len(pvc.Spec.AccessModes) != len(tc.wantModes) || pvc.Spec.AccessModes[0] != tc.wantModes[0] {
				t.Errorf("access modes %v, want %v", pvc.Spec.AccessModes, tc.wantModes)
			}
			if q := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; q.String() != "11Gi" {
				t.Errorf("size %s, want 11Gi", q.String())
			}
			if pvc.Name != PVCName(a) || pvc.OwnerReferences[0].UID != "uid-1" || !ptr.Deref(pvc.OwnerReferences[0].Controller, false) ||
				pvc.Labels[LabelArtifact] != "org-m" || pvc.Labels[aimv1.LabelManagedBy] != aimv1.ManagedByValue {
				t.Errorf("metadata %+v", pvc.ObjectMeta)
			}
		})
	}
}

// TestChildNames: the volume is named as aim-engine names it (expected values computed with its algorithm);
// the Jobs keep the same shape with the pod spec in the hash.
func TestChildNames(t *testing.T) {
	a := testArtifact()
	a.UID = "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"
	for name, want := range map[string]string{
		"hf---qwen-qwen3-32b-c00b812b59": "hf---qwen-qwen3-32b-c00b812b59-cache-7858a5a4",
		// A long artifact name is shortened, "-cache" and the hash stay.
		"hf---meta-llama-llama-3-1-70b-instruct-fp8-kv-quantized-v2-0a1b": "hf---meta-llama-llama-3-1-70b-instruct-fp8-kv-qu-cache-7858a5a4",
	} {
		a.Name = name
		if got := PVCName(a); got != want {
			t.Errorf("PVCName(%s) = %q, want %q", name, got, want)
		}
		for _, j := range []*batchv1.Job{BuildCheckSizeJob(a, config(nil), nil), BuildDownloadJob(a, config(nil), nil, 1, "vol")} {
			component := j.Labels[LabelComponent]
			if len(j.Name) > 63 || !strings.Contains(j.Name, "-"+component+"-") {
				t.Errorf("%s Job %q", component, j.Name)
			}
		}
	}
}

// TestVolumeOfAnEarlierRelease: a volume the artifact's status names (made under an earlier release's naming
// rule) is the artifact's volume: the download is not repeated onto a new, empty one.
func TestVolumeOfAnEarlierRelease(t *testing.T) {
	o := ready()
	o.Artifact = sized(o.Artifact, "10Gi")
	o.PVC = &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "org-m-earlier-name"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	p := PlanArtifact(o)
	if p.PVC != nil || p.Status.PersistentVolumeClaim != "org-m-earlier-name" {
		t.Errorf("planned volume %v, status names %q", p.PVC, p.Status.PersistentVolumeClaim)
	}
	if p.Job == nil || p.Job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "org-m-earlier-name" {
		t.Errorf("download Job %+v does not write the existing volume", p.Job)
	}
}

func checkPod(t *testing.T, j *batchv1.Job, component string, ttl int32) corev1.Container {
	t.Helper()
	pod := j.Spec.Template.Spec
	if *j.Spec.BackoffLimit != 2 || *j.Spec.TTLSecondsAfterFinished != ttl {
		t.Errorf("backoffLimit %d ttl %d", *j.Spec.BackoffLimit, *j.Spec.TTLSecondsAfterFinished)
	}
	if pod.ServiceAccountName != DownloaderName || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("service account %q, restart %q", pod.ServiceAccountName, pod.RestartPolicy)
	}
	sc := pod.SecurityContext
	if !*sc.RunAsNonRoot || *sc.RunAsUser != 1000 || *sc.RunAsGroup != 1000 {
		t.Errorf("pod security context %+v", sc)
	}
	if j.Labels[LabelComponent] != component || j.Spec.Template.Labels[LabelArtifact] != "org-m" || j.OwnerReferences[0].UID != "uid-1" {
		t.Errorf("labels %v / %v, owners %v", j.Labels, j.Spec.Template.Labels, j.OwnerReferences)
	}
	if len(pod.ImagePullSecrets) != 1 || pod.ImagePullSecrets[0].Name != "pull" {
		t.Errorf("pull secrets %v", pod.ImagePullSecrets)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("containers %v", pod.Containers)
	}
	c := pod.Containers[0]
	if len(c.Args) != 1 || c.Args[0] != "hf://org/m" || *c.SecurityContext.AllowPrivilegeEscalation {
		t.Errorf("args %v, security %+v", c.Args, c.SecurityContext)
	}
	if len(j.Name) > 63 || !strings.HasPrefix(j.Name, "org-m-"+component+"-") {
		t.Errorf("job name %q", j.Name)
	}
	return c
}

func TestBuildCheckSizeJob(t *testing.T) {
	a := testArtifact()
	a.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
	rc := config(nil, corev1.EnvVar{Name: "HF_TOKEN", Value: "config"}, corev1.EnvVar{Name: "HTTPS_PROXY", Value: "proxy"})
	j := BuildCheckSizeJob(a, rc, nil)
	c := checkPod(t, j, ComponentCheckSize, 300)
	podsecurity.Restricted(t, "the check-size pod", &j.Spec.Template.ObjectMeta, &j.Spec.Template.Spec)
	if c.Name != "check-size" || c.Image != aimv1.DefaultModelDownloadImage || len(c.Command) != 1 || c.Command[0] != "/check-size.sh" ||
		c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		t.Errorf("container %+v", c)
	}
	if e := envOf(c); e["HF_TOKEN"] != "artifact" || e["HTTPS_PROXY"] != "proxy" {
		t.Errorf("env %v: the artifact's env must win over the runtime config's", e)
	}
	a.Spec.ModelDownloadImage = "registry.example/downloader:1"
	if c := BuildCheckSizeJob(a, rc, nil).Spec.Template.Spec.Containers[0]; c.Image != "registry.example/downloader:1" {
		t.Errorf("image %q", c.Image)
	}
}

func TestBuildDownloadJob(t *testing.T) {
	a := testArtifact()
	a.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
	rc := config(nil, corev1.EnvVar{Name: "HF_TOKEN", Value: "config"}, corev1.EnvVar{Name: "TMPDIR", Value: "/scratch/"})
	j := BuildDownloadJob(a, rc, nil, 123, PVCName(a))
	c := checkPod(t, j, ComponentDownload, 600)
	pod := j.Spec.Template.Spec
	podsecurity.Restricted(t, "the download pod", &j.Spec.Template.ObjectMeta, &pod)
	if c.Name != "model-download" || c.Image != aimv1.DefaultModelDownloadImage || c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("container %+v", c)
	}
	if *pod.SecurityContext.FSGroup != 1000 {
		t.Errorf("fsGroup %v", pod.SecurityContext.FSGroup)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/cache" || len(pod.Volumes) != 1 ||
		pod.Volumes[0].PersistentVolumeClaim.ClaimName != PVCName(a) || c.VolumeMounts[0].Name != pod.Volumes[0].Name {
		t.Errorf("mounts %v volumes %v", c.VolumeMounts, pod.Volumes)
	}
	want := map[string]string{
		"AIM_DOWNLOADER_PROTOCOL": "XET,HF_TRANSFER", "HF_HOME": "/tmp/.hf", "EXPECTED_SIZE_BYTES": "123",
		"MOUNT_PATH": "/cache", "TARGET_DIR": "/cache", "ARTIFACT_NAME": "org-m", "ARTIFACT_NAMESPACE": "team",
		// runtime config over defaults, artifact over both
		"TMPDIR": "/scratch/", "HF_TOKEN": "artifact", "STALL_TIMEOUT": "600",
	}
	got := envOf(c)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("env %s = %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("env %v has extra names", got)
	}
}

// TestJobNamesFollowThePodSpec: a spec change (fixed credentials) runs a new Job at once; the same spec
// keeps the Job.
func TestJobNamesFollowThePodSpec(t *testing.T) {
	a, rc := testArtifact(), config(nil)
	if BuildDownloadJob(a, rc, nil, 1, "vol").Name != BuildDownloadJob(testArtifact(), rc, nil, 1, "vol").Name {
		t.Error("equal specs built different names")
	}
	b := testArtifact()
	b.Spec.Env[0].Value = "fixed"
	if BuildDownloadJob(a, rc, nil, 1, "vol").Name == BuildDownloadJob(b, rc, nil, 1, "vol").Name || BuildCheckSizeJob(a, rc, nil).Name == BuildCheckSizeJob(b, rc, nil).Name {
		t.Error("a changed env kept the Job name")
	}
	long := testArtifact()
	long.Name = strings.Repeat("x", 200)
	if n := BuildDownloadJob(long, rc, nil, 1, "vol").Name; len(n) > 63 {
		t.Errorf("job name %q is longer than a label value", n)
	}
}

func testJob(conds ...batchv1.JobConditionType) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}}
	for _, c := range conds {
		j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "3 failures"})
	}
	return j
}

func waitingPod(reason string) []*corev1.Pod {
	return []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
		Name: "c", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "pull failed"}}}}}}}
}

// derive runs the state engine over a plan, as the controller does.
func derive(a *aimv1.AIMArtifact, p Plan) state.Output {
	return state.Derive(state.Input{Components: p.Components, Previous: a.Status.Conditions, Generation: a.Generation,
		Now: time.Now(), Informational: p.Informational})
}

func ready() Observation {
	return Observation{Artifact: testArtifact(), RuntimeConfig: config(nil), ServiceAccountReady: true, RoleBindingReady: true}
}

func withPVC(o Observation) Observation {
	o.PVC = &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: PVCName(o.Artifact)},
		Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("17Gi")}}}}
	return o
}

func TestPlanArtifact(t *testing.T) {
	progress := &aimv1.AIMDownloadProgress{TotalBytes: 100, DownloadedBytes: 40, Percentage: 40, DisplayPercentage: "40 %"}
	for _, tc := range []struct {
		name   string
		obs    func() Observation
		status aimv1.AIMStatus
		// reason of the component that decides, and what is planned
		component, reason string
		wantJob           string
		wantPVC, wantSA   bool
		// download is the DownloadComplete condition: "status reason message", empty when absent.
		download string
		// progress is the planned status.progress, when the case is about it.
		progress *aimv1.AIMDownloadProgress
		check    func(t *testing.T, p Plan)
	}{
		{name: "missing runtime config fails and blocks everything", status: aimv1.AIMStatusFailed, component: ComponentRuntimeConfig, reason: "ConfigNotFound",
			obs: func() Observation {
				o := ready()
				o.RuntimeConfigErr = &runtimeconfig.NotFoundError{Name: "x", Namespace: "team"}
				return o
			}},
		{name: "first pass creates account and binding, and waits with the check-size Job", status: aimv1.AIMStatusProgressing,
			component: ComponentCheckSizeJob, reason: ReasonWaitingForAccount, wantSA: true,
			obs: func() Observation { return Observation{Artifact: testArtifact(), RuntimeConfig: config(nil)} }},
		{name: "unknown size runs check-size", status: aimv1.AIMStatusProgressing, component: ComponentCheckSizeJob, reason: "ResourceNotReady",
			wantJob: ComponentCheckSize, obs: ready},
		{name: "check-size image cannot be pulled", status: aimv1.AIMStatusProgressing, component: ComponentCheckSizeJobPods, reason: "ImagePullBackOff",
			obs: func() Observation {
				o := ready()
				o.CheckSizeJob, o.Pods = testJob(), waitingPod("ImagePullBackOff")
				return o
			}},
		{name: "check-size running", status: aimv1.AIMStatusProgressing, component: ComponentCheckSizeJob, reason: "JobRunning",
			obs: func() Observation {
				o := ready()
				o.CheckSizeJob, o.Pods = testJob(), waitingPod("ContainerCreating")
				return o
			}},
		{name: "check-size failed", status: aimv1.AIMStatusFailed, component: ComponentCheckSizeJob, reason: "JobBackoffLimitExceeded",
			obs: func() Observation { o := ready(); o.CheckSizeJob = testJob(batchv1.JobFailed); return o }},
		{name: "check-size printed garbage", status: aimv1.AIMStatusFailed, component: ComponentCheckSizeOutput, reason: ReasonInvalidSizeOutput,
			obs: func() Observation {
				o := ready()
				o.CheckSizeJob, o.CheckSizeOutput = testJob(batchv1.JobComplete), "Traceback"
				return o
			}},
		// D10: once this spec's output was no size, the expired Job is not made again; a new spec measures again.
		{name: "check-size printed garbage, its Job expired since", status: aimv1.AIMStatusFailed, component: ComponentCheckSizeOutput, reason: ReasonInvalidSizeOutput,
			obs: func() Observation {
				o := ready()
				o.Artifact.Status.Conditions = []metav1.Condition{{Type: ComponentCheckSizeOutput + "Ready", Status: metav1.ConditionFalse,
					Reason: ReasonInvalidSizeOutput, Message: "check-size output is not a JSON object", ObservedGeneration: o.Artifact.Generation}}
				return o
			}},
		{name: "garbage of an earlier spec: measured again", status: aimv1.AIMStatusProgressing, component: ComponentCheckSizeJob, reason: "ResourceNotReady",
			wantJob: ComponentCheckSize,
			obs: func() Observation {
				o := ready()
				o.Artifact.Status.Conditions = []metav1.Condition{{Type: ComponentCheckSizeOutput + "Ready", Status: metav1.ConditionFalse,
					Reason: ReasonInvalidSizeOutput, Message: "check-size output is not a JSON object", ObservedGeneration: o.Artifact.Generation - 1}}
				return o
			}},
		{name: "check-size output unreadable", status: aimv1.AIMStatusProgressing, component: ComponentCheckSizeOutput, reason: "CheckSizePodNotFound",
			obs: func() Observation {
				o := ready()
				o.CheckSizeJob, o.CheckSizeOutputErr = testJob(batchv1.JobComplete), state.NewError(state.MissingDownstream, "CheckSizePodNotFound", "gone")
				return o
			}},
		{name: "measured size makes the volume", status: aimv1.AIMStatusProgressing, component: ComponentVolume, reason: "ResourceNotReady", wantPVC: true,
			obs: func() Observation {
				o := ready()
				o.CheckSizeJob, o.CheckSizeOutput = testJob(batchv1.JobComplete), `{"url":"hf://org/m","sizeBytes":16106127360}`
				return o
			},
			check: func(t *testing.T, p Plan) {
				if ptr.Deref(p.Status.DiscoveredSizeBytes, 0) != 15*gi || p.Status.DisplaySize != "15 GiB" {
					t.Errorf("size status %v %q", p.Status.DiscoveredSizeBytes, p.Status.DisplaySize)
				}
				if q := p.PVC.Spec.Resources.Requests[corev1.ResourceStorage]; q.String() != "17Gi" || p.Status.AllocatedSize.String() != "17Gi" ||
					*p.Status.HeadroomPercent != 10 || p.Status.PersistentVolumeClaim != p.PVC.Name {
					t.Errorf("volume %s, status %+v", q.String(), p.Status)
				}
			}},
		// aim-engine reports the download Job from the first reconcile that knows the size, before the volume exists.
		{name: "the download Job waits for the volume", status: aimv1.AIMStatusProgressing, component: ComponentDownloadJob, reason: "ResourceNotReady",
			wantPVC: true,
			obs:     func() Observation { o := ready(); sized(o.Artifact, "15Gi"); return o },
			check: func(t *testing.T, p Plan) {
				for _, c := range p.Components {
					if c.Name == ComponentDownloadJob && c.Message != "the download Job waits for volume "+p.PVC.Name {
						t.Errorf("DownloadJob component %+v", c)
					}
				}
			}},
		{name: "spec size with zero headroom", status: aimv1.AIMStatusProgressing, component: ComponentVolume, reason: "ResourceNotReady", wantPVC: true,
			obs: func() Observation {
				o := ready()
				sized(o.Artifact, "10Gi")
				o.RuntimeConfig = config(&aimv1.AIMStorageConfig{PVCHeadroomPercent: ptr.To[int32](0)})
				return o
			},
			check: func(t *testing.T, p Plan) {
				if q := p.PVC.Spec.Resources.Requests[corev1.ResourceStorage]; q.String() != "10Gi" || *p.Status.HeadroomPercent != 0 {
					t.Errorf("volume %s headroom %v", q.String(), *p.Status.HeadroomPercent)
				}
			}},
		{name: "a pending volume does not hold the download back", status: aimv1.AIMStatusProgressing, component: ComponentVolume, reason: ReasonPVCPending,
			wantJob: ComponentDownload,
			obs:     func() Observation { o := ready(); sized(o.Artifact, "15Gi"); return withPVC(o) }},
		{name: "volume exists: download starts", status: aimv1.AIMStatusProgressing, component: ComponentDownloadJob, reason: "ResourceNotReady",
			wantJob: ComponentDownload,
			obs:     func() Observation { o := ready(); sized(o.Artifact, "15Gi"); return bound(withPVC(o)) },
			check: func(t *testing.T, p Plan) {
				if p.Status.AllocatedSize.String() != "17Gi" {
					t.Errorf("allocated %s: the status reports the volume's size", p.Status.AllocatedSize)
				}
				if len(p.Informational) > 0 {
					t.Error("DownloadComplete before the download Job exists")
				}
			}},
		// No download Job onto a lost volume (its pod could not mount it), as aim-engine applies nothing then.
		{name: "lost volume", status: aimv1.AIMStatusProgressing, component: ComponentVolume, reason: ReasonPVCLost,
			obs: func() Observation {
				o := withPVC(ready())
				sized(o.Artifact, "15Gi")
				o.PVC.Status.Phase = corev1.ClaimLost
				return o
			},
			check: func(t *testing.T, p Plan) {
				// aim-engine's words (health_fetchers.go:664).
				for _, c := range p.Components {
					if c.Name == ComponentVolume && (len(c.Errors) != 1 || c.Errors[0].Error() != "PVC lost its underlying volume") {
						t.Errorf("CachePvc errors %v", c.Errors)
					}
					if c.Name == ComponentDownloadJob && !strings.Contains(c.Message, "lost its underlying volume") {
						t.Errorf("DownloadJob component %+v", c)
					}
				}
			}},
		{name: "download waits for the binding", status: aimv1.AIMStatusProgressing, component: ComponentDownloadJob, reason: ReasonWaitingForAccount,
			wantSA: true,
			obs: func() Observation {
				o := ready()
				sized(o.Artifact, "15Gi")
				o.RoleBindingReady = false
				return bound(withPVC(o))
			}},
		{name: "downloading keeps the downloader's progress", status: aimv1.AIMStatusProgressing, component: ComponentDownloadJob, reason: "JobRunning",
			download: "False Downloading Download in progress",
			obs: func() Observation {
				o := downloadingWith(progress, testJob(), runningPod())()
				o.Artifact.Status.Download = &aimv1.AIMDownloadState{Protocol: "XET", Attempt: 1}
				return o
			},
			progress: progress,
			check: func(t *testing.T, p Plan) {
				if p.Status.Download.Protocol != "XET" {
					t.Errorf("download %+v", p.Status.Download)
				}
			}},
		{name: "verifying", status: aimv1.AIMStatusProgressing, component: ComponentDownloadJobPods, reason: "PodsReady",
			download: "True Verifying Download complete, verifying integrity...",
			obs: downloadingWith(&aimv1.AIMDownloadProgress{TotalBytes: 100, DownloadedBytes: 100, Percentage: 100, DisplayPercentage: "100 %"},
				testJob(), runningPod())},
		{name: "download pod cannot pull", status: aimv1.AIMStatusProgressing, component: ComponentDownloadJobPods, reason: "ImagePullBackOff",
			download: "False Downloading Download in progress",
			obs:      downloadingWith(nil, testJob(), waitingPod("ErrImagePull")...)},
		{name: "a failed attempt fails the artifact", status: aimv1.AIMStatusFailed, component: ComponentDownloadJobPods, reason: "PodFailed",
			download: "False Downloading Download failed before completion",
			obs:      downloadingWith(progress, testJob(), failedPod("no progress for 120s (STALL_TIMEOUT), giving up")),
			// N/A with the bytes kept.
			progress: &aimv1.AIMDownloadProgress{TotalBytes: 100, DownloadedBytes: 40, Percentage: 40, DisplayPercentage: "N/A"}},
		{name: "download exhausted its retries", status: aimv1.AIMStatusFailed, component: ComponentDownloadJob, reason: "JobBackoffLimitExceeded",
			download: "False Downloading Download failed before completion",
			obs:      downloadingWith(nil, testJob(batchv1.JobFailed), failedPod("stalled"), failedPod("stalled"), failedPod("stalled")),
			progress: &aimv1.AIMDownloadProgress{DisplayPercentage: "N/A"}},
		{name: "verification failed", status: aimv1.AIMStatusFailed, component: ComponentDownloadJob, reason: "JobBackoffLimitExceeded",
			download: "False VerificationFailed Download completed but verification failed",
			obs:      downloadingWith(&aimv1.AIMDownloadProgress{TotalBytes: 100, DownloadedBytes: 100, Percentage: 100}, testJob(batchv1.JobFailed))},
		{name: "download succeeded", status: aimv1.AIMStatusReady, component: ComponentDownloadJob, reason: "Ready",
			download: "True Verified Download and verification complete",
			obs: func() Observation {
				o := downloadingWith(progress, testJob(batchv1.JobComplete))()
				o.Artifact.Status.Download = &aimv1.AIMDownloadState{Protocol: "XET", Attempt: 1, Message: "Verifying"}
				return o
			},
			// The expected size, not the downloader's last count.
			progress: &aimv1.AIMDownloadProgress{TotalBytes: 15 * gi, DownloadedBytes: 15 * gi, Percentage: 100, DisplayPercentage: "100 %"},
			check: func(t *testing.T, p Plan) {
				want := &aimv1.AIMDownloadState{Protocol: "XET", Attempt: 1, Message: "Complete"}
				if diff := cmp.Diff(want, p.Status.Download); diff != "" {
					t.Errorf("download (-want +got):\n%s", diff)
				}
			}},
		{name: "download succeeded without download state", status: aimv1.AIMStatusReady, component: ComponentDownloadJob, reason: "Ready",
			download: "True Verified Download and verification complete",
			obs:      downloadingWith(nil, testJob(batchv1.JobComplete)),
			progress: &aimv1.AIMDownloadProgress{TotalBytes: 15 * gi, DownloadedBytes: 15 * gi, Percentage: 100, DisplayPercentage: "100 %"},
			check: func(t *testing.T, p Plan) {
				if p.Status.Download != nil {
					t.Errorf("download %+v: the controller only completes the downloader's state", p.Status.Download)
				}
			}},
		{name: "an expired Job after success stays Ready", status: aimv1.AIMStatusReady, component: ComponentVolume, reason: "Ready",
			download: "True Verified done",
			obs: func() Observation {
				o := downloading()
				o.Artifact.Status.Conditions = []metav1.Condition{downloadCondition(true, ReasonVerified, "done")}
				return o
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.obs()
			p := PlanArtifact(o)
			out := derive(o.Artifact, p)
			if out.Status != tc.status {
				t.Errorf("status %s, want %s; components %+v", out.Status, tc.status, p.Components)
			}
			var found bool
			for _, c := range p.Components {
				if c.Name != tc.component {
					continue
				}
				found = true
				reason := c.Reason
				var se *state.Error
				if reason == "" && len(c.Errors) > 0 && errors.As(c.Errors[0], &se) {
					reason = se.Reason
				}
				if reason != tc.reason {
					t.Errorf("%s reason %q, want %q (%+v)", c.Name, reason, tc.reason, c)
				}
			}
			if !found {
				t.Errorf("no %s component in %+v", tc.component, p.Components)
			}
			gotJob := ""
			if p.Job != nil {
				gotJob = p.Job.Labels[LabelComponent]
			}
			if gotJob != tc.wantJob || (p.PVC != nil) != tc.wantPVC || (p.RoleBinding != nil) != tc.wantSA {
				t.Errorf("planned job %q pvc %v binding %v; want %q %v %v", gotJob, p.PVC != nil, p.RoleBinding != nil, tc.wantJob, tc.wantPVC, tc.wantSA)
			}
			if p.Status.ObservedGeneration != 3 || p.Status.Mode != aimv1.AIMTemplateCacheModeShared {
				t.Errorf("observedGeneration %d mode %s", p.Status.ObservedGeneration, p.Status.Mode)
			}
			got := ""
			if c := meta.FindStatusCondition(out.Conditions, ConditionDownloadComplete); c != nil {
				got = string(c.Status) + " " + c.Reason + " " + c.Message
			}
			if got != tc.download {
				t.Errorf("DownloadComplete %q, want %q", got, tc.download)
			}
			// Its Event is a Warning for a failure only, as aim-engine's AsWarning.
			for _, tr := range out.Transitions {
				if tr.Type == ConditionDownloadComplete && tr.Warning != strings.Contains(tc.download, "failed") {
					t.Errorf("DownloadComplete %s: a Warning Event %v", tr.Reason, tr.Warning)
				}
			}
			if tc.progress != nil && (p.Status.Progress == nil || *p.Status.Progress != *tc.progress) {
				t.Errorf("progress %+v, want %+v", p.Status.Progress, tc.progress)
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

// downloading is an artifact of 15Gi whose PVC is bound: what the download Job starts from.
func downloading() Observation {
	o := bound(withPVC(ready()))
	sized(o.Artifact, "15Gi")
	return o
}

// downloadingWith is a download under way: downloading with the downloader's progress so far, the download Job
// and its pods.
func downloadingWith(progress *aimv1.AIMDownloadProgress, job *batchv1.Job, pods ...*corev1.Pod) func() Observation {
	return func() Observation {
		o := downloading()
		o.Artifact.Status.Progress = progress.DeepCopy()
		o.DownloadJob, o.Pods = job, pods
		return o
	}
}

func bound(o Observation) Observation {
	o.PVC.Status.Phase = corev1.ClaimBound
	return o
}

func runningPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
}

func failedPod(msg string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodFailed,
		ContainerStatuses: []corev1.ContainerStatus{{Name: DownloadContainer, State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: msg}}}}}}
}

func TestPlanArtifactModeDedicatedWhenOwned(t *testing.T) {
	o := ready()
	o.Artifact.OwnerReferences = []metav1.OwnerReference{{Kind: "AIMTemplateCache", Name: "c", UID: "c1"}}
	if m := PlanArtifact(o).Status.Mode; m != aimv1.AIMTemplateCacheModeDedicated {
		t.Errorf("mode %s", m)
	}
}

func TestEarlierJob(t *testing.T) {
	owner := types.UID("art")
	mk := func(name string, owned bool, cond batchv1.JobConditionType) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if owned {
			j.OwnerReferences = []metav1.OwnerReference{{UID: owner}}
		}
		if cond != "" {
			j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}
		}
		return j
	}
	for _, tc := range []struct {
		name string
		jobs []*batchv1.Job
		want string
	}{
		{"none", nil, ""},
		{"a running one is followed", []*batchv1.Job{mk("done", true, batchv1.JobComplete), mk("running", true, "")}, "running"},
		{"else one that succeeded", []*batchv1.Job{mk("failed", true, batchv1.JobFailed), mk("done", true, batchv1.JobComplete)}, "done"},
		{"a failed one is left behind", []*batchv1.Job{mk("failed", true, batchv1.JobFailed)}, ""},
		{"other owners' Jobs do not count", []*batchv1.Job{mk("foreign", false, "")}, ""},
	} {
		got := ""
		if j := EarlierJob(tc.jobs, owner); j != nil {
			got = j.Name
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestChildLabels: the volume and the Jobs carry aim-engine's labels, so that selectors written for it keep
// working; the artifact's aim.eai.amd.com/ labels propagate; pods get no managed-by.
func TestChildLabels(t *testing.T) {
	a := testArtifact()
	a.Labels = map[string]string{LabelTemplateCreated: "true", "aim.eai.amd.com/template.name": "tpl", "team": "x"}
	a.Spec.SourceURI = "hf://amd/Llama-3.1-8B"
	pvc := BuildPVC(a, config(nil), *resource.NewQuantity(gi, resource.BinarySI))
	for k, want := range map[string]string{
		LabelCacheName: "org-m", LabelCacheType: CacheTypeTemplateCache, LabelSourceModel: "amd_llama-3.1-8b",
		LabelArtifact: "org-m", "aim.eai.amd.com/template.name": "tpl", aimv1.LabelManagedBy: aimv1.ManagedByValue, "team": "",
	} {
		if got := pvc.Labels[k]; got != want {
			t.Errorf("volume label %s = %q, want %q", k, got, want)
		}
	}
	delete(a.Labels, LabelTemplateCreated)
	if pvc := BuildPVC(a, config(nil), *resource.NewQuantity(gi, resource.BinarySI)); pvc.Labels[LabelCacheType] != "" {
		t.Errorf("cache.type %q on the volume of an artifact no template cache made", pvc.Labels[LabelCacheType])
	}
	for component, j := range map[string]*batchv1.Job{
		ComponentCheckSize: BuildCheckSizeJob(a, config(nil), nil), ComponentDownload: BuildDownloadJob(a, config(nil), nil, 1, PVCName(a)),
	} {
		for k, want := range map[string]string{LabelCacheName: "org-m", LabelCacheType: CacheTypeArtifact, LabelComponent: component,
			LabelArtifact: "org-m", "aim.eai.amd.com/template.name": "tpl"} {
			if j.Labels[k] != want || j.Spec.Template.Labels[k] != want {
				t.Errorf("%s Job label %s = %q, pod %q, want %q", component, k, j.Labels[k], j.Spec.Template.Labels[k], want)
			}
		}
		if j.Labels[aimv1.LabelManagedBy] != aimv1.ManagedByValue || j.Spec.Template.Labels[aimv1.LabelManagedBy] != "" {
			t.Errorf("%s managed-by: Job %q, pod %q", component, j.Labels[aimv1.LabelManagedBy], j.Spec.Template.Labels[aimv1.LabelManagedBy])
		}
	}
	var names []string
	for _, e := range DownloadEnv(testArtifact(), config(nil), 1) {
		names = append(names, e.Name)
	}
	if want := "AIM_DOWNLOADER_PROTOCOL TMPDIR HF_HOME EXPECTED_SIZE_BYTES MOUNT_PATH ARTIFACT_NAME ARTIFACT_NAMESPACE STALL_TIMEOUT TARGET_DIR HF_TOKEN"; strings.Join(names, " ") != want {
		t.Errorf("download env order %v, want %s", names, want)
	}
}

// TestDownloaderImageRewritten: with rewriteImages on, the check-size and download Jobs run the downloader from
// its mirror.
func TestDownloaderImageRewritten(t *testing.T) {
	cfg, err := mirrors.Parse([]byte("rewriteImages: true\nregistries: {ghcr.io: {mirrors: [{endpoint: \"https://mirror.example/ghcr\"}]}}"))
	if err != nil {
		t.Fatal(err)
	}
	a := testArtifact()
	want := "mirror.example/ghcr/silogen/aim-artifact-downloader:0.2.0"
	for _, j := range []*batchv1.Job{BuildCheckSizeJob(a, config(nil), cfg), BuildDownloadJob(a, config(nil), cfg, 1, "vol")} {
		if got := j.Spec.Template.Spec.Containers[0].Image; got != want {
			t.Errorf("%s: image %s, want %s", j.Name, got, want)
		}
	}
	// Where the image is pulled from is no reason for a new Job: the names stay.
	if BuildCheckSizeJob(a, config(nil), cfg).Name != BuildCheckSizeJob(a, config(nil), nil).Name ||
		BuildDownloadJob(a, config(nil), cfg, 1, "vol").Name != BuildDownloadJob(a, config(nil), nil, 1, "vol").Name {
		t.Error("rewriting the image renames the Jobs")
	}
}

// TestDisplaySizeWhateverElseFails: MODEL SIZE shows a size written in the spec or measured earlier while the
// runtime config is missing, as aim-engine's DecorateStatus shows it on every reconcile.
func TestDisplaySizeWhateverElseFails(t *testing.T) {
	written := ready()
	sized(written.Artifact, "50Gi")
	measured := ready()
	measured.Artifact.Status.DiscoveredSizeBytes = ptr.To[int64](3 << 30)
	for name, tc := range map[string]struct {
		obs  Observation
		want string
	}{"size in the spec": {written, "50 GiB"}, "size measured before": {measured, "3 GiB"}} {
		tc.obs.RuntimeConfigErr = &runtimeconfig.NotFoundError{Name: "x", Namespace: "team"}
		if got := PlanArtifact(tc.obs).Status.DisplaySize; got != tc.want {
			t.Errorf("%s, runtime config missing: displaySize %q, want %q", name, got, tc.want)
		}
	}
}

// TestVolumeStatusLikeAimEngine: status.allocatedSize is "0" in every status written while no volume is known,
// as aim-engine's zero resource.Quantity marshals; an existing volume's name, size and headroom show whatever
// else the reconcile finds, and the size is recorded once (aim-engine's reconcile.go:437).
func TestVolumeStatusLikeAimEngine(t *testing.T) {
	noConfig := ready()
	noConfig.RuntimeConfigErr = &runtimeconfig.NotFoundError{Name: "x", Namespace: "team"}
	volumeNoConfig := downloading()
	volumeNoConfig.RuntimeConfigErr = noConfig.RuntimeConfigErr
	tooLarge := ready()
	sized(tooLarge.Artifact, "1Ei")
	expanded := downloading()
	expanded.Artifact.Status.AllocatedSize = ptr.To(aimv1.MustParseQuantity("17Gi"))
	expanded.PVC.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("40Gi")
	for _, tc := range []struct {
		name      string
		obs       Observation
		json, pvc string
		headroom  *int32
	}{
		{name: "unknown size", obs: ready(), json: `"0"`},
		{name: "missing runtime config", obs: noConfig, json: `"0"`},
		{name: "no volume can hold it", obs: tooLarge, json: `"0"`},
		{name: "volume exists", obs: downloading(), json: `"17Gi"`, pvc: PVCName(testArtifact()), headroom: ptr.To[int32](10)},
		{name: "volume exists, runtime config missing", obs: volumeNoConfig, json: `"17Gi"`, pvc: PVCName(testArtifact()), headroom: ptr.To[int32](10)},
		{name: "recorded once", obs: expanded, json: `"17Gi"`, pvc: PVCName(testArtifact())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PlanArtifact(tc.obs)
			data, err := json.Marshal(p.Status)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"allocatedSize":`+tc.json) {
				t.Errorf("status %s, want allocatedSize %s", data, tc.json)
			}
			if p.Status.PersistentVolumeClaim != tc.pvc || !cmp.Equal(p.Status.HeadroomPercent, tc.headroom) || p.PVC != nil {
				t.Errorf("persistentVolumeClaim %q headroom %v volume %v", p.Status.PersistentVolumeClaim, p.Status.HeadroomPercent, p.PVC)
			}
		})
	}
}

// TestVolumeNotMade: the status of a plan whose volume could not be made (a quota, an admission webhook) names
// no volume: allocatedSize "0", as before any volume, and no headroom. A plan that makes no volume keeps the one
// it names.
func TestVolumeNotMade(t *testing.T) {
	o := ready()
	o.Artifact = sized(o.Artifact, "10Gi")
	p := PlanArtifact(o)
	if p.PVC == nil || p.Status.PersistentVolumeClaim != p.PVC.Name || p.Status.AllocatedSize.String() == "0" {
		t.Fatalf("planned volume %v, status %+v", p.PVC, p.Status)
	}
	p.VolumeNotMade()
	if p.Status.PersistentVolumeClaim != "" || p.Status.AllocatedSize == nil || p.Status.AllocatedSize.String() != "0" ||
		p.Status.HeadroomPercent != nil {
		t.Errorf("the status names a volume that was not made: %+v", p.Status)
	}
	made := withPVC(ready())
	p = PlanArtifact(made)
	p.VolumeNotMade()
	if p.PVC != nil || p.Status.PersistentVolumeClaim != made.PVC.Name {
		t.Errorf("status names %q, want the existing %q", p.Status.PersistentVolumeClaim, made.PVC.Name)
	}
}
