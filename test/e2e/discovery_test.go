//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

const systemNamespace = "aim-system"

// gpuNode creates a Node object with AMD labels and allocatable GPUs; there is no kubelet behind it.
func gpuNode(t *testing.T, name string, labels map[string]string, gpus int) {
	t.Helper()
	k := admin(t)
	lb, _ := json.Marshal(labels)
	k.mustApply(fmt.Sprintf(`{"apiVersion":"v1","kind":"Node","metadata":{"name":%q,"labels":%s}}`, name, lb))
	t.Cleanup(func() { _, _ = k.run("", "delete", "node", name, "--wait=false") })
	status := fmt.Sprintf(`{"status":{"allocatable":{"amd.com/gpu":"%d","cpu":"64","memory":"1Ti","pods":"110"},"capacity":{"amd.com/gpu":"%d","cpu":"64","memory":"1Ti","pods":"110"}}}`, gpus, gpus)
	k.must("patch", "node", name, "--subresource=status", "--type=merge", "-p", status)
}

// clusterTemplate applies a cluster model with inline metadata and a cluster template of it.
func clusterTemplate(t *testing.T, name, gpuModel string) {
	t.Helper()
	k := admin(t)
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModel
metadata: {name: %[1]s-model}
spec:
  image: registry.example/aim/%[1]s:1.0
  imageMetadata: {model: {canonicalName: Org/%[1]s}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterServiceTemplate
metadata: {name: %[1]s}
spec:
  modelName: %[1]s-model
  metric: latency
  precision: fp8
  hardware: {gpu: {requests: 1, model: %[2]s}}
`, name, gpuModel))
	t.Cleanup(func() {
		_, _ = k.run("", "delete", "aimcltpl", name, "--wait=false")
		_, _ = k.run("", "delete", "aimclmdl", name+"-model", "--wait=false")
	})
}

// discoveryPod waits for the discovery Job of a template (attempt n) and returns its Job and pod names.
func discoveryPod(t *testing.T, template string, attempt int) (job, pod string) {
	t.Helper()
	k := admin(t)
	eventually(t, 60*time.Second, fmt.Sprintf("discovery Job %d of %s", attempt, template), func() error {
		out, err := k.run("", "get", "jobs", "-n", systemNamespace, "-l", "aim.eai.amd.com/template="+template, "-o", "name")
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		for _, j := range strings.Fields(out) {
			if strings.HasSuffix(j, fmt.Sprintf("-%d", attempt)) {
				job = strings.TrimPrefix(j, "job.batch/")
				return nil
			}
		}
		return fmt.Errorf("jobs: %q", out)
	})
	return job, podOfJob(t, systemNamespace, job)
}

// finishPod plays kubelet: the discovery container exits 0 with output as its termination message.
func finishPod(t *testing.T, pod, output string) {
	t.Helper()
	succeedPod(t, systemNamespace, pod, "discovery", output)
}

const discoveryOutput = `[{"filename":"vllm-mi300x-fp8-tp1-latency.yaml","profile":{"model":"Org/Model",
"metadata":{"engine":"vllm","gpu":"MI300X","precision":"fp8","gpu_count":1,"metric":"latency","type":"optimized"},
"engine_args":{"tensor-parallel-size":1},"env_vars":{"VLLM_X":"1"}},"models":[{"name":"Org/Model","source":"hf://Org/Model","size_gb":16}]}]`

func TestDiscoveryMakesTemplateReady(t *testing.T) {
	k := admin(t)
	gpuNode(t, "e2e-mi300x", map[string]string{"amd.com/gpu.device-id": "74a1"}, 8)
	clusterTemplate(t, "e2e-discovery", "MI300X")
	job, pod := discoveryPod(t, "e2e-discovery", 1)

	// The Job's pod runs the image's dry run on MI300X nodes, without taking a GPU.
	spec := k.must("get", "job", job, "-n", systemNamespace, "-o", "json")
	contains(t, "discovery pod spec", spec, `"dry-run"`, `"--format=json"`, `"amd.com/gpu.device-id"`, `"74a1"`,
		`"AIM_METRIC"`, `"latency"`, `"AIM_PRECISION"`, `"fp8"`, `"AIM_GPU_MODEL"`, `"MI300X"`, `"AIM_GPU_COUNT"`,
		`"registry.example/aim/e2e-discovery:1.0"`, `"runAsNonRoot": true`, `"FallbackToLogsOnError"`, `"backoffLimit": 0`)
	if strings.Contains(spec, `"amd.com/gpu": "`) {
		t.Errorf("discovery requests GPUs:\n%s", spec)
	}
	// Its pod is pending (no kubelet here): Pending, as aim-engine's DiscoveryPods component makes it.
	jsonpathEquals(t, 30*time.Second, "Pending False PodsPending", "aimcltpl", "e2e-discovery", "-o",
		`jsonpath={.status.status} {.status.conditions[?(@.type=="DiscoveryPodsReady")].status} {.status.conditions[?(@.type=="DiscoveryPodsReady")].reason}`)
	contains(t, "template while discovering", k.must("get", "aimcltpl", "e2e-discovery"), "1 x MI300X")
	// kubelet pulls the image: Progressing, reason Pulling, from its Normal Event.
	pullingEvent(t, systemNamespace, pod)
	jsonpathEquals(t, 30*time.Second, "Progressing False Pulling", "aimcltpl", "e2e-discovery", "-o",
		`jsonpath={.status.status} {.status.conditions[?(@.type=="DiscoveryPodsReady")].status} {.status.conditions[?(@.type=="DiscoveryPodsReady")].reason}`)

	finishPod(t, pod, discoveryOutput)
	k.must("wait", "--for=condition=Ready", "aimcltpl/e2e-discovery", "--timeout=60s")
	contains(t, "ready template", k.must("get", "aimcltpl", "e2e-discovery"), "Ready", "1 x MI300X", "latency", "fp8")
	got := k.must("get", "aimcltpl", "e2e-discovery", "-o", "jsonpath={.status.modelSources[0].modelId} {.status.modelSources[0].size} {.status.profile.metadata.engine} {.status.hardwareSummary}")
	if got != "Org/Model 16Gi vllm 1 x MI300X" {
		t.Errorf("status after discovery: %q", got)
	}
	conds := k.must("get", "aimcltpl", "e2e-discovery", "-o", `jsonpath={.status.conditions[?(@.type=="Discovered")].status}`)
	if conds != "True" {
		t.Errorf("Discovered = %q (F5)", conds)
	}
	// status.discoveryJob names the Job as aim-engine's reference type does: kind, namespace, scope and uid.
	uid := k.must("get", "job", job, "-n", systemNamespace, "-o", "jsonpath={.metadata.uid}")
	ref := k.must("get", "aimcltpl", "e2e-discovery", "-o", "jsonpath={.status.discoveryJob.kind} {.status.discoveryJob.name} {.status.discoveryJob.namespace} {.status.discoveryJob.scope} {.status.discoveryJob.uid}")
	if want := fmt.Sprintf("Job %s %s Namespace %s", job, systemNamespace, uid); ref != want {
		t.Errorf("status.discoveryJob = %q, want %q", ref, want)
	}
	// engine_args is stored as discovery printed it.
	if args := k.must("get", "aimcltpl", "e2e-discovery", "-o", "jsonpath={.status.profile.engine_args}"); args != `{"tensor-parallel-size":1}` {
		t.Errorf("profile.engine_args = %s", args)
	}
}

func TestMalformedDiscoveryOutputFailsAndRetries(t *testing.T) {
	k := admin(t)
	gpuNode(t, "e2e-mi325x", map[string]string{"amd.com/gpu.device-id": "74a5"}, 8)
	clusterTemplate(t, "e2e-malformed", "MI325X")
	_, pod := discoveryPod(t, "e2e-malformed", 1)
	finishPod(t, pod, "Traceback (most recent call last):\n  KeyError: 'gpu'\n")

	// The failure shows until the backoff (3 s in the harness) starts the next attempt.
	seen := map[string]bool{}
	defer func() {
		if t.Failed() {
			t.Logf("observed: %v", seen)
		}
	}()
	eventually(t, 60*time.Second, "template Failed with DiscoveryOutputInvalid", func() error {
		out := k.must("get", "aimcltpl", "e2e-malformed", "-o", `jsonpath={.status.status} {.status.conditions[?(@.type=="Ready")].reason} {.status.conditions[?(@.type=="DiscoveryJobReady")].message}`)
		seen[out] = true
		if !strings.HasPrefix(out, "Failed DiscoveryOutputInvalid ") || !strings.Contains(out, "KeyError") || !strings.Contains(out, "; retrying at ") {
			return fmt.Errorf("%q", out)
		}
		return nil
	})
	eventually(t, 30*time.Second, "Warning event", func() error {
		out := k.must("get", "events", "-A", "--field-selector", "involvedObject.name=e2e-malformed,type=Warning", "-o", "jsonpath={.items[*].reason}")
		if !strings.Contains(out, "DiscoveryOutputInvalid") {
			return fmt.Errorf("warning events: %q", out)
		}
		return nil
	})
	// After the backoff (3 s in the harness) a second Job runs; its good output makes the template Ready.
	_, pod2 := discoveryPod(t, "e2e-malformed", 2)
	if got := k.must("get", "aimcltpl", "e2e-malformed", "-o", "jsonpath={.status.discovery.attempts}"); got != "1" {
		t.Errorf("attempts = %q, want 1", got)
	}
	finishPod(t, pod2, strings.ReplaceAll(discoveryOutput, "MI300X", "MI325X"))
	k.must("wait", "--for=condition=Ready", "aimcltpl/e2e-malformed", "--timeout=60s")
}

func TestMissingGPUIsNotAvailableUntilANodeHasIt(t *testing.T) {
	k := admin(t)
	clusterTemplate(t, "e2e-mi355x", "MI355X")
	eventually(t, 30*time.Second, "template NotAvailable", func() error {
		out := k.must("get", "aimcltpl", "e2e-mi355x", "-o", `jsonpath={.status.status} {.status.conditions[?(@.type=="GPUReady")].reason}`)
		if out != "NotAvailable GPUNotAvailable" {
			return fmt.Errorf("%q", out)
		}
		return nil
	})
	consistently(t, 2*time.Second, "a template without its GPU creates no discovery Job", func() error {
		if out := k.must("get", "jobs", "-n", systemNamespace, "-l", "aim.eai.amd.com/template=e2e-mi355x", "-o", "name"); strings.TrimSpace(out) != "" {
			return fmt.Errorf("created %s", out)
		}
		return nil
	})
	gpuNode(t, "e2e-mi355x-node", map[string]string{"kubernetes.io/hostname": "e2e-mi355x-node"}, 8)
	k.must("label", "node", "e2e-mi355x-node", "amd.com/gpu.device-id=75a3")
	discoveryPod(t, "e2e-mi355x", 1)
	jsonpathEquals(t, 30*time.Second, "JobRunning", "aimcltpl", "e2e-mi355x", "-o", `jsonpath={.status.conditions[?(@.type=="DiscoveryJobReady")].reason}`)
}

// TestNamespacedTemplateInlineSourcesAndCache: a namespaced template names a cluster model (F12), lists its
// sources inline (no discovery), runs on CPU, and with caching enabled owns an AIMTemplateCache.
func TestNamespacedTemplateInlineSourcesAndCache(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-inline")
	k.mustApply("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMClusterModel\nmetadata: {name: e2e-inline-model}\nspec: {image: registry.example/aim/inline:1.0, imageMetadata: {}}\n")
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclmdl", "e2e-inline-model", "--wait=false") })
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: cpu-inline, namespace: %s}
spec:
  modelName: e2e-inline-model
  hardware: {cpu: {requests: "4"}}
  modelSources: [{modelId: org/small, sourceUri: "s3://models/org/small", size: 2Gi}]
  caching: {enabled: true}
`, ns))
	k.must("wait", "-n", ns, "--for=condition=Ready", "aimtpl/cpu-inline", "--timeout=60s")
	got := k.must("get", "aimtpl", "cpu-inline", "-n", ns, "-o", `jsonpath={.status.hardwareSummary} {.status.resolvedModel.kind} {.status.conditions[?(@.type=="Discovered")].reason} {.status.modelSources[0].modelId}`)
	if got != "CPU AIMClusterModel InlineModelSources org/small" {
		t.Errorf("template status: %q", got)
	}
	// (The cache's download Job may already run; discovery Jobs carry their own name label.)
	if jobs := strings.TrimSpace(k.must("get", "jobs", "-n", ns, "-l", "app.kubernetes.io/name=aim-discovery", "-o", "name")); jobs != "" {
		t.Errorf("inline sources ran discovery: %s", jobs)
	}
	eventually(t, 30*time.Second, "owned template cache", func() error {
		out, err := k.run("", "get", "aimtc", "cpu-inline", "-n", ns, "-o", "jsonpath={.spec.templateName} {.spec.templateScope} {.metadata.ownerReferences[0].kind}")
		if err != nil || out != "cpu-inline Namespace AIMServiceTemplate" {
			return fmt.Errorf("%v: %q", err, out)
		}
		return nil
	})
	uid := k.must("get", "aimtc", "cpu-inline", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	jsonpathEquals(t, 30*time.Second, "AIMTemplateCache cpu-inline "+ns+" Namespace "+uid, "aimtpl", "cpu-inline", "-n", ns, "-o",
		"jsonpath={.status.resolvedCache.kind} {.status.resolvedCache.name} {.status.resolvedCache.namespace} {.status.resolvedCache.scope} {.status.resolvedCache.uid}")
	// An explicit false is stored as written.
	k.must("patch", "aimtpl", "cpu-inline", "-n", ns, "--type=merge", "-p", `{"spec":{"caching":{"enabled":false}}}`)
	jsonpathEquals(t, 10*time.Second, "false", "aimtpl", "cpu-inline", "-n", ns, "-o", "jsonpath={.spec.caching.enabled}")
}

// TestDiscoveryPodThatCannotPullShowsAtOnce: a discovery pod kubelet cannot pull the image for shows in the
// template's DiscoveryPodsReady (aim-engine's condition) while the Job still runs, not after its timeout.
func TestDiscoveryPodThatCannotPullShowsAtOnce(t *testing.T) {
	gpuNode(t, "e2e-pull-node", map[string]string{"amd.com/gpu.device-id": "74a1"}, 8)
	clusterTemplate(t, "e2e-pull", "MI300X")
	_, pod := discoveryPod(t, "e2e-pull", 1)
	patchStatus(t, "pod", pod, systemNamespace, map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{
		"name": "discovery", "image": "registry.example/aim/e2e-pull:1.0", "imageID": "", "ready": false, "restartCount": 0,
		"state": map[string]any{"waiting": map[string]any{"reason": "ImagePullBackOff",
			"message": `failed to pull image "registry.example/aim/e2e-pull:1.0": unexpected status: 403 Forbidden`}}}}})
	jsonpathEquals(t, 60*time.Second, "False ImagePullAuthFailure JobRunning", "aimcltpl", "e2e-pull", "-o",
		`jsonpath={.status.conditions[?(@.type=="DiscoveryPodsReady")].status} {.status.conditions[?(@.type=="DiscoveryPodsReady")].reason} {.status.conditions[?(@.type=="DiscoveryJobReady")].reason}`)
}

// TestDiscoveryJobWhosePodsAreRefused: a namespace's LimitRange refuses the discovery Job's pods (a pod memory limit
// of 1Mi, which a pod without limits cannot show it keeps); the job-controller of kube-controller-manager records
// FailedCreate on the Job, and the template's DiscoveryPodsReady quotes it.
func TestDiscoveryJobWhosePodsAreRefused(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-refused")
	k.mustApply(fmt.Sprintf(`apiVersion: v1
kind: LimitRange
metadata: {name: pod-memory, namespace: %[1]s}
spec: {limits: [{type: Pod, max: {memory: 1Mi}}]}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMClusterModel
metadata: {name: e2e-refused-model}
spec: {image: registry.example/aim/refused:1.0, imageMetadata: {}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: cpu-refused, namespace: %[1]s}
spec:
  modelName: e2e-refused-model
  hardware: {cpu: {requests: "4"}}
`, ns))
	t.Cleanup(func() { _, _ = k.run("", "delete", "aimclmdl", "e2e-refused-model", "--wait=false") })
	eventually(t, 60*time.Second, "DiscoveryPodsReady quotes the Job's FailedCreate", func() error {
		out := k.must("get", "aimtpl", "cpu-refused", "-n", ns, "-o",
			`jsonpath={.status.conditions[?(@.type=="DiscoveryPodsReady")].reason}: {.status.conditions[?(@.type=="DiscoveryPodsReady")].message}`)
		if !strings.HasPrefix(out, "NoPods: No pods found: Job discover-") || !strings.Contains(out, " cannot create them: Error creating: pods \"discover-") ||
			!strings.Contains(out, `-*" is forbidden: maximum memory usage per Pod is 1Mi`) {
			return fmt.Errorf("DiscoveryPodsReady: %q", out)
		}
		return nil
	})
}
