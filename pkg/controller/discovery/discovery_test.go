package discovery

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/test/podsecurity"
)

const validOutput = `[{"filename":"vllm-mi300x-fp8-tp1-latency.yaml",
 "profile":{"model":"Qwen/Qwen3-32B","quantized_model":"amd/Qwen3-32B-FP8",
  "metadata":{"engine":"vllm","gpu":"MI300X","precision":"FP8","gpu_count":1,"metric":"latency","type":"optimized"},
  "engine_args":{"tensor-parallel-size":1,"max-model-len":32768},"env_vars":{"VLLM_USE_TRITON_FLASH_ATTN":"0"}},
 "models":[{"name":"amd/Qwen3-32B-FP8","source":"hf://amd/Qwen3-32B-FP8","size_gb":32.5}]},
 {"filename":"other.yaml","profile":{"metadata":{"engine":"vllm"}},"models":[{"name":"a/b","source":"hf://a/b","size_gb":1}]}]`

func TestParse(t *testing.T) {
	res, err := Parse([]byte(validOutput))
	if err != nil {
		t.Fatal(err)
	}
	md := res.Profile.Metadata
	if md.Engine != "vllm" || md.GPU != "MI300X" || md.GPUCount != 1 || md.Metric != aimv1.AIMMetricLatency ||
		md.Precision != aimv1.AIMPrecisionFP8 || md.Type != aimv1.AIMProfileTypeOptimized {
		t.Errorf("metadata %+v", md)
	}
	if res.Profile.EnvVars["VLLM_USE_TRITON_FLASH_ATTN"] != "0" || !strings.Contains(string(res.Profile.EngineArgs.Raw), "max-model-len") {
		t.Errorf("profile %+v", res.Profile)
	}
	if len(res.ModelSources) != 1 {
		t.Fatalf("sources %v (only the first result counts)", res.ModelSources)
	}
	src := res.ModelSources[0]
	want := resource.NewQuantity(int64(32.5*(1<<30)), resource.BinarySI)
	if src.ModelID != "amd/Qwen3-32B-FP8" || src.SourceURI != "hf://amd/Qwen3-32B-FP8" || src.WeightsSize.Text != want.String() {
		t.Errorf("source %+v size %s", src, src.WeightsSize)
	}
}

// TestParseSizeAsAimEngine: size_gb is truncated to whole bytes, and 0 is a size of 0, as aim-engine's
// convertToAIMModelSources writes them.
func TestParseSizeAsAimEngine(t *testing.T) {
	for sizeGB, want := range map[string]int64{"0.7": 751619276, "0": 0} { // 0.7 GiB is 751619276.8 bytes
		res, err := Parse([]byte(`[{"filename":"x","models":[{"name":"a/b","source":"s3://a/b","size_gb":` + sizeGB + `}]}]`))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.ModelSources[0].WeightsSize; got == nil || got.Text != resource.NewQuantity(want, resource.BinarySI).String() {
			t.Errorf("size_gb %s: size %v, want %d bytes", sizeGB, got, want)
		}
	}
}

func TestParseNoisyAndInvalidOutput(t *testing.T) {
	cases := []struct {
		name    string
		out     string
		wantErr string // empty: must parse
	}{
		{"log lines before", "INFO loading profiles [1/3]\nWARNING [x] deprecated\n" + validOutput, ""},
		{"log lines after", validOutput + "\nINFO done [ok]\n", ""},
		{"log lines around, array pretty-printed", "starting\n" + strings.ReplaceAll(validOutput, ",", ",\n  ") + "\n[exit 0]\n", ""},
		{"empty", "  \n", "empty"},
		{"empty array", "[]", "empty"},
		{"malformed", `[{"filename": "x", "profile": {`, "no JSON array"},
		{"not JSON at all", "Traceback (most recent call last):\n  File ...\nKeyError: 'gpu'", "no JSON array"},
		{"an object, not an array", `{"filename":"x"}`, "no JSON array"},
		{"no models", `[{"filename":"x","profile":{"metadata":{"engine":"vllm"}},"models":[]}]`, "no models"},
		{"bad model id", `[{"filename":"x","models":[{"name":"no-slash","source":"hf://a/b"}]}]`, "not an org/name"},
		{"bad source", `[{"filename":"x","models":[{"name":"a/b","source":"https://a/b"}]}]`, "not an hf:// or s3://"},
		{"negative size", `[{"filename":"x","models":[{"name":"a/b","source":"s3://a/b","size_gb":-1}]}]`, "out of range"},
		{"engine args not an object", `[{"filename":"x","profile":{"engine_args":[1]},"models":[{"name":"a/b","source":"s3://a/b"}]}]`, "engine_args"},
		{"oversized", strings.Repeat("x", MaxOutputBytes+1), "more than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse([]byte(tc.out))
			if tc.wantErr == "" {
				if err != nil || res.ModelSources[0].ModelID != "amd/Qwen3-32B-FP8" {
					t.Fatalf("got %v, %v", res, err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalidOutput) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want ErrInvalidOutput mentioning %q", err, tc.wantErr)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("error message is %d bytes; it must stay readable in a condition", len(err.Error()))
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	b := DefaultBackoff
	for attempts, want := range map[int32]time.Duration{
		0: 0, 1: time.Minute, 2: 2 * time.Minute, 3: 4 * time.Minute, 6: 32 * time.Minute, 7: time.Hour, 1000: time.Hour,
	} {
		if got := b.Delay(attempts); got != want {
			t.Errorf("Delay(%d) = %s, want %s", attempts, got, want)
		}
	}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	state := &aimv1.AIMDiscoveryState{Attempts: 2, SpecHash: "h", LastAttemptTime: &metav1.Time{Time: now.Add(-90 * time.Second)}}
	if got := b.Wait(state, "h", now); got != 30*time.Second {
		t.Errorf("wait %s, want 30s", got)
	}
	if got := b.Wait(state, "h", now.Add(time.Minute)); got != 0 {
		t.Errorf("wait after the backoff %s, want 0", got)
	}
	if got := b.Wait(state, "changed-spec", now); got != 0 {
		t.Errorf("a new spec hash must reset the backoff, got %s", got)
	}
	if got := b.Wait(nil, "h", now); got != 0 {
		t.Errorf("no state: wait %s", got)
	}
	// The next attempt's time is the same in the reconcile that records the failure (sub-second) and in every
	// later one, which reads it back to the second.
	recorded := &aimv1.AIMDiscoveryState{Attempts: 2, LastAttemptTime: &metav1.Time{Time: now.Add(400 * time.Millisecond)}}
	if got, want := b.Next(recorded, now), now.Add(2*time.Minute); !got.Equal(want) {
		t.Errorf("Next %s, want %s", got, want)
	}
	if got, want := b.Next(&aimv1.AIMDiscoveryState{Attempts: 1}, now), now.Add(time.Minute); !got.Equal(want) {
		t.Errorf("Next without lastAttemptTime %s, want %s (from now)", got, want)
	}
	fast := Backoff{Base: time.Second, Max: 10 * time.Second}
	if got := fast.Delay(5); got != 10*time.Second {
		t.Errorf("flag-sized backoff: %s", got)
	}
}

func jobSpec() JobSpec {
	return JobSpec{
		TemplateName: "qwen3-32b-mi300x-fp8-latency", TemplateKind: "AIMClusterServiceTemplate", Namespace: "aim-system",
		Owner: *metav1.NewControllerRef(&metav1.ObjectMeta{Name: "qwen3-32b-mi300x-fp8-latency", UID: "u1"},
			aimv1.SchemeGroupVersion.WithKind("AIMClusterServiceTemplate")),
		Controller: childlabels.ClusterServiceTemplate,
		Labels:     map[string]string{"team": "a", aimv1.LabelManagedBy: "someone-else"},
		Image:      "amdenterpriseai/aim-qwen-qwen3-32b:0.8.5",
		Metric:     "latency", Precision: "fp8", GPUModel: "MI300X", GPUCount: 1, ProfileID: "p1",
		Env: []corev1.EnvVar{{Name: "HF_TOKEN", Value: "x"}, {Name: "AIM_METRIC", Value: "throughput"}},
		NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "amd.com/gpu.device-id", Operator: "In", Values: []string{"74a1"}}}}}}},
		Tolerations: []corev1.Toleration{{Key: "amd.com/gpu", Operator: "Exists", Effect: "NoSchedule"}},
	}
}

func TestBuildJob(t *testing.T) {
	s := jobSpec()
	job := BuildJob(s)
	if !strings.HasPrefix(job.Name, "discover-qwen3-32b-mi300x-fp8-latency-") || len(job.Name) > 63 {
		t.Errorf("name %q", job.Name)
	}
	if job.Namespace != "aim-system" || *job.Spec.BackoffLimit != 0 {
		t.Errorf("job spec %+v", job.Spec)
	}
	if o := job.OwnerReferences; len(o) != 1 || !*o[0].Controller || o[0].UID != "u1" {
		t.Errorf("owner %+v", o)
	}
	l := job.Labels
	if l[aimv1.LabelManagedBy] != aimv1.ManagedByValue || l[aimv1.LabelTemplate] != s.TemplateName || l["aim.eai.amd.com/cluster-service-template.name"] != s.TemplateName || l["team"] != "a" {
		t.Errorf("labels %v", l)
	}
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	if c.Name != ContainerName || c.Image != s.Image || strings.Join(c.Args, " ") != "dry-run --format=json" {
		t.Errorf("container %+v", c)
	}
	if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		t.Error("termination message policy")
	}
	podsecurity.Restricted(t, "the discovery pod", &job.Spec.Template.ObjectMeta, &pod)
	env := map[string]string{}
	for _, e := range c.Env {
		if _, dup := env[e.Name]; dup {
			t.Errorf("env %s twice", e.Name)
		}
		env[e.Name] = e.Value
	}
	for k, v := range map[string]string{"AIM_METRIC": "latency", "AIM_PRECISION": "fp8", "AIM_GPU_MODEL": "MI300X", "AIM_GPU_COUNT": "1",
		"AIM_PROFILE_ID": "p1", "HF_TOKEN": "x", "AIM_LOG_LEVEL": "CRITICAL"} {
		if env[k] != v {
			t.Errorf("env %s = %q, want %q", k, env[k], v)
		}
	}
	if pod.RestartPolicy != corev1.RestartPolicyNever || pod.Affinity == nil || len(pod.Tolerations) != 1 {
		t.Errorf("placement %+v %+v", pod.Affinity, pod.Tolerations)
	}

	// Any input change gives another Job; the same inputs the same Job.
	if BuildJob(jobSpec()).Name != job.Name {
		t.Error("same inputs, different name")
	}
	changed := jobSpec()
	changed.Precision = "fp16"
	if BuildJob(changed).Name == job.Name || changed.Hash() == s.Hash() {
		t.Error("changed inputs, same name")
	}
	recreated := jobSpec()
	recreated.Owner.UID = "u2"
	if BuildJob(recreated).Name == job.Name {
		t.Error("a re-created template must not reuse its predecessor's Job name")
	}
	retry := jobSpec()
	retry.Attempt = 2
	if r := BuildJob(retry); r.Name == job.Name || retry.Hash() != s.Hash() || AttemptOf(r.Name) != 2 || AttemptOf(job.Name) != 1 {
		t.Errorf("retry: name %s (first %s), attempt %d", r.Name, job.Name, AttemptOf(r.Name))
	}
	long := jobSpec()
	long.TemplateName = strings.Repeat("a", 200)
	long.Attempt = 9999
	if j := BuildJob(long); len(j.Name) > 63 || len(j.Labels[aimv1.LabelTemplate]) > 63 {
		t.Errorf("long template: name %d chars, label %d chars", len(j.Name), len(j.Labels[aimv1.LabelTemplate]))
	}
}

// TestHashLeavesOutPullSecrets: the pull secrets and the service account decide whether the pod can pull the
// image, not what discovery finds: they change the Job (its name and pod) but not the hash a result is recorded
// under. JobHash is the hash earlier releases recorded and named Jobs by, unchanged.
func TestHashLeavesOutPullSecrets(t *testing.T) {
	s := jobSpec()
	s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	s.ServiceAccountName = "puller"
	// The earlier releases' Hash of this spec, which their status.discovery.specHash and Job names hold.
	if got, want := s.JobHash(), "2e1ba4c9b00c9f27"; got != want {
		t.Errorf("JobHash %s, want the earlier releases' %s", got, want)
	}
	if got, want := BuildJob(s).Name, "discover-qwen3-32b-mi300x-fp8-latency-2e1ba4c9-1"; got != want {
		t.Errorf("Job name %s, want %s (unchanged from earlier releases)", got, want)
	}
	for name, change := range map[string]func(*JobSpec){
		"secret rotated":          func(s *JobSpec) { s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred-2"}} },
		"secrets removed":         func(s *JobSpec) { s.ImagePullSecrets = nil },
		"service account changed": func(s *JobSpec) { s.ServiceAccountName = "other" },
	} {
		c := s
		change(&c)
		if c.Hash() != s.Hash() {
			t.Errorf("%s: the result's hash changed (%s, was %s)", name, c.Hash(), s.Hash())
		}
		if c.JobHash() == s.JobHash() || BuildJob(c).Name == BuildJob(s).Name {
			t.Errorf("%s: same Job %s", name, BuildJob(c).Name)
		}
	}
	other := s
	other.Image = "other:1"
	if other.Hash() == s.Hash() {
		t.Error("a new image kept the result's hash")
	}
}

// TestBuildJobPodSpecIsAIMEngines: the Job's lifetime and its pod's resources and security are aim-engine's: no
// deadline (a pull of a large image over a slow registry must not fail every attempt), a TTL of 60 seconds, no
// resources (above all no GPU), and uid 65532 with no group of its own.
func TestBuildJobPodSpecIsAIMEngines(t *testing.T) {
	job := BuildJob(jobSpec())
	if d := job.Spec.ActiveDeadlineSeconds; d != nil {
		t.Errorf("activeDeadlineSeconds %d, want none", *d)
	}
	if diff := cmp.Diff(ptr.To[int32](60), job.Spec.TTLSecondsAfterFinished); diff != "" {
		t.Errorf("ttlSecondsAfterFinished (-want +got):\n%s", diff)
	}
	pod := job.Spec.Template.Spec
	if diff := cmp.Diff(corev1.ResourceRequirements{}, pod.Containers[0].Resources); diff != "" {
		t.Errorf("discovery container resources (-want +got):\n%s", diff)
	}
	wantPod := &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	if diff := cmp.Diff(wantPod, pod.SecurityContext); diff != "" {
		t.Errorf("pod security context (-want +got):\n%s", diff)
	}
	// As aim-engine's container: runAsNonRoot at both levels.
	wantContainer := &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	if diff := cmp.Diff(wantContainer, pod.Containers[0].SecurityContext); diff != "" {
		t.Errorf("container security context (-want +got):\n%s", diff)
	}
}

// TestBuildJobPodLabels: the pod carries the Job's labels but managed-by, as aim-engine's apply puts them on the
// pod template: the controller's label naming the template and the propagated labels, besides the labels the
// controller selects discovery pods by.
func TestBuildJobPodLabels(t *testing.T) {
	s := jobSpec()
	s.Labels = map[string]string{"team": "a", "aim.eai.amd.com/model.name": "qwen3", aimv1.LabelManagedBy: "someone-else"}
	job := BuildJob(s)
	want := map[string]string{
		LabelName: NameValue, LabelComponent: ComponentValue, aimv1.LabelTemplate: s.TemplateName,
		"aim.eai.amd.com/cluster-service-template.name": s.TemplateName,
		"aim.eai.amd.com/model.name":                    "qwen3", "team": "a",
	}
	if diff := cmp.Diff(want, job.Spec.Template.Labels); diff != "" {
		t.Errorf("pod labels (-want +got):\n%s", diff)
	}
}

// TestBuildJobLabelPrecedence: aim-engine's order, first wins: the Job's own labels, the propagated ones, then the
// controller's label naming the template (internal/controller/utils/reconciler.go:326-333), on the Job and its pods.
func TestBuildJobLabelPrecedence(t *testing.T) {
	s := jobSpec()
	s.Labels = map[string]string{"aim.eai.amd.com/cluster-service-template.name": "propagated", "team": "a",
		aimv1.LabelManagedBy: "someone-else", LabelName: "other", aimv1.LabelTemplate: "other"}
	job := BuildJob(s)
	want := map[string]string{
		LabelName: NameValue, LabelComponent: ComponentValue, aimv1.LabelTemplate: s.TemplateName, aimv1.LabelManagedBy: aimv1.ManagedByValue,
		"aim.eai.amd.com/cluster-service-template.name": "propagated", "team": "a",
	}
	if diff := cmp.Diff(want, job.Labels); diff != "" {
		t.Errorf("job labels (-want +got):\n%s", diff)
	}
	delete(want, aimv1.LabelManagedBy)
	if diff := cmp.Diff(want, job.Spec.Template.Labels); diff != "" {
		t.Errorf("pod labels (-want +got):\n%s", diff)
	}
}

func TestTerminationOutput(t *testing.T) {
	pod := &corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
		{Name: "sidecar", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Message: "nope"}}},
		{Name: ContainerName, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Message: validOutput}}},
	}}}
	out, ok := TerminationOutput(pod)
	if !ok || out != validOutput {
		t.Errorf("got %q %v", out, ok)
	}
	if _, ok := TerminationOutput(&corev1.Pod{}); ok {
		t.Error("running pod has no output")
	}
}
