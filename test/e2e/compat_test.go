//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// These tests pin what aim-engine users see (docs/design.md R3): status values, condition types and
// reasons, exactly. Each is named after the behaviour.

// statusIs waits until an object's status and one condition read "status condStatus condReason".
func statusIs(t *testing.T, resource, ns, condType, want string) {
	t.Helper()
	args := []string{resource, "-o", fmt.Sprintf(`jsonpath={.status.status} {.status.conditions[?(@.type==%q)].status} {.status.conditions[?(@.type==%q)].reason}`, condType, condType)}
	if ns != "" {
		args = append(args, "-n", ns)
	}
	jsonpathEquals(t, 60*time.Second, want, args...)
}

// conditionReads waits until a condition reads "status reason".
func conditionReads(t *testing.T, resource, ns, condType, want string) {
	t.Helper()
	args := []string{resource, "-o", fmt.Sprintf(`jsonpath={.status.conditions[?(@.type==%q)].status} {.status.conditions[?(@.type==%q)].reason}`, condType, condType)}
	if ns != "" {
		args = append(args, "-n", ns)
	}
	jsonpathEquals(t, 60*time.Second, want, args...)
}

// frozen applies objects with the reconciliation-paused annotation, so that the status the test writes stays.
const paused = `aim.eai.amd.com/reconciliation-paused: "true"`

// frozenModel is an AIMModel the controller leaves alone, with the given status.
func frozenModel(t *testing.T, ns, name, status string) {
	t.Helper()
	admin(t).mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: %s, namespace: %s, annotations: {%s}}
spec: {image: registry.example/aim/%s:1.0}
`, name, ns, paused, name))
	setStatus(t, "aimmdl/"+name, ns, status, "")
}

// setStatus writes status.status (and a Ready condition with reason, when given) of a paused object.
func setStatus(t *testing.T, resource, ns, status, reason string) {
	t.Helper()
	s := map[string]any{"status": status}
	if reason != "" {
		s["conditions"] = []map[string]any{{"type": "Ready", "status": "False", "reason": reason, "message": "set by the test",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}
	}
	kind, name, _ := strings.Cut(resource, "/")
	patchStatus(t, kind, name, ns, s)
}

// TestMissingReferencesFailAndRecover: a service naming a model, a template or a runtime config that does not
// exist is Failed (the component says which, ConfigValid says ReferenceNotFound), as is a model naming a
// missing runtime config or pull secret; each recovers by itself when the object appears.
func TestMissingReferencesFailAndRecover(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-missing")

	// The create warns (F16), through kube-apiserver's proxy, and stores the service.
	out := k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: no-model, namespace: %s}\n"+
		"spec: {model: {name: nowhere}}\n", ns))
	contains(t, "kubectl apply of a service naming a missing model", out, "aimservice.aim.eai.amd.com/no-model created",
		`Warning: spec.model.name: neither AIMModel "nowhere" in namespace "`+ns+`" nor AIMClusterModel "nowhere" exists`)
	statusIs(t, "aimsvc/no-model", ns, "ModelReady", "Failed False ModelNotFound")
	conditionReads(t, "aimsvc/no-model", ns, "ConfigValid", "False ReferenceNotFound")
	conditionReads(t, "aimsvc/no-model", ns, "Ready", "False ReferenceNotFound")
	frozenModel(t, ns, "nowhere", "Progressing")
	statusIs(t, "aimsvc/no-model", ns, "ModelReady", "Pending False ModelNotReady")
	conditionReads(t, "aimsvc/no-model", ns, "ConfigValid", "True ConfigurationValid")

	frozenModel(t, ns, "qwen", "Ready")
	applyService(t, ns, "no-template", "model: {name: qwen}, template: {name: nowhere}")
	statusIs(t, "aimsvc/no-template", ns, "TemplateReady", "Failed False TemplateNotFound")
	conditionReads(t, "aimsvc/no-template", ns, "ConfigValid", "False ReferenceNotFound")
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: nowhere, namespace: %s, annotations: {%s}}
spec: {modelName: qwen, metric: latency, precision: fp8, hardware: {gpu: {requests: 1, model: MI300X}}}
`, ns, paused))
	setStatus(t, "aimtpl/nowhere", ns, "Progressing", "")
	statusIs(t, "aimsvc/no-template", ns, "TemplateReady", "Pending False TemplateNotReady")

	applyService(t, ns, "no-config", "model: {name: qwen}, runtimeConfigName: nowhere")
	statusIs(t, "aimsvc/no-config", ns, "RuntimeConfigReady", "Failed False ConfigNotFound")
	conditionReads(t, "aimsvc/no-config", ns, "ConfigValid", "False ReferenceNotFound")

	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: configless, namespace: %s}
spec:
  image: registry.example/aim/configless:1.0
  runtimeConfigName: nowhere
  imageMetadata: {model: {canonicalName: Org/configless}}
`, ns))
	statusIs(t, "aimmdl/configless", ns, "RuntimeConfigReady", "Failed False ConfigNotFound")
	conditionReads(t, "aimmdl/configless", ns, "ConfigValid", "False ReferenceNotFound")

	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: secretless, namespace: %s}
spec:
  image: 127.0.0.1:1/aim/secretless:1.0
  imagePullSecrets: [{name: nowhere}]
`, ns))
	statusIs(t, "aimmdl/secretless", ns, "ImageMetadataReady", "Failed False SecretNotFound")
	conditionReads(t, "aimmdl/secretless", ns, "ConfigValid", "False ReferenceNotFound")

	// The runtime config appears: the service and the model that named it recover without being touched.
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMRuntimeConfig\nmetadata: {name: nowhere, namespace: %s}\nspec: {}\n", ns))
	conditionReads(t, "aimsvc/no-config", ns, "RuntimeConfigReady", "True ConfigFound")
	jsonpathEquals(t, 60*time.Second, "True", "aimmdl", "configless", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="RuntimeConfigReady")].status}`)
	conditionReads(t, "aimmdl/configless", ns, "ConfigValid", "True ConfigurationValid")
}

// TestServiceModelReadyOnlyWhenModelReady: ModelReady is True/ModelResolved only for a Ready model; a model
// still preparing keeps the service Pending, a Failed or Degraded one fails it (ModelNotReady).
func TestServiceModelReadyOnlyWhenModelReady(t *testing.T) {
	ns := namespace(t, "e2e-modelready")
	frozenModel(t, ns, "qwen", "")
	applyService(t, ns, "chat", "model: {name: qwen}")
	statusIs(t, "aimsvc/chat", ns, "ModelReady", "Pending False ModelNotReady")
	setStatus(t, "aimmdl/qwen", ns, "Progressing", "")
	statusIs(t, "aimsvc/chat", ns, "ModelReady", "Pending False ModelNotReady")
	setStatus(t, "aimmdl/qwen", ns, "Degraded", "SomeTemplatesDegraded")
	statusIs(t, "aimsvc/chat", ns, "ModelReady", "Failed False ModelNotReady")
	setStatus(t, "aimmdl/qwen", ns, "Failed", "AllTemplatesFailed")
	statusIs(t, "aimsvc/chat", ns, "ModelReady", "Failed False ModelNotReady")
	setStatus(t, "aimmdl/qwen", ns, "Ready", "")
	conditionReads(t, "aimsvc/chat", ns, "ModelReady", "True ModelResolved")
}

// TestServiceAutoSelectionWithoutReadyTemplateIsPending: the model has templates, none Ready (the only one is
// Failed): the service waits, TemplateReady=False/TemplateNotReady, and templateMatching records the
// candidate (F3).
func TestServiceAutoSelectionWithoutReadyTemplateIsPending(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-noready")
	frozenModel(t, ns, "qwen", "Ready")
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: broken, namespace: %s, annotations: {%s}}
spec: {modelName: qwen, metric: latency, precision: fp8, hardware: {gpu: {requests: 1, model: MI300X}}}
`, ns, paused))
	setStatus(t, "aimtpl/broken", ns, "Failed", "DiscoveryOutputInvalid")
	applyService(t, ns, "chat", "model: {name: qwen}")
	statusIs(t, "aimsvc/chat", ns, "TemplateReady", "Pending False TemplateNotReady")
	conditionReads(t, "aimsvc/chat", ns, "ConfigValid", "True ConfigurationValid")
	jsonpathEquals(t, 30*time.Second, "broken rejected TemplateNotReady", "aimsvc", "chat", "-n", ns, "-o",
		`jsonpath={.status.templateMatching.candidates[0].name} {.status.templateMatching.candidates[0].status} {.status.templateMatching.candidates[0].reason}`)
}

// TestTemplateCacheMirrorsItsTemplate: a cache follows its template's state: Failed fails it, NotAvailable
// makes it NotAvailable (reason and message from the template's Ready condition), and a template that does
// not exist in the cache's scope fails it with ReferenceNotFound.
func TestTemplateCacheMirrorsItsTemplate(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-cachemirror")
	frozenModel(t, ns, "qwen", "Ready")
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: tpl, namespace: %[1]s, annotations: {%[2]s}}
spec: {modelName: qwen, metric: latency, precision: fp8, hardware: {gpu: {requests: 1, model: MI300X}}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMTemplateCache
metadata: {name: mirror, namespace: %[1]s}
spec: {templateName: tpl, templateScope: Namespace}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMTemplateCache
metadata: {name: absent, namespace: %[1]s}
spec: {templateName: nowhere, templateScope: Namespace}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMTemplateCache
metadata: {name: wrong-scope, namespace: %[1]s}
spec: {templateName: tpl, templateScope: Cluster}
`, ns, paused))
	setStatus(t, "aimtpl/tpl", ns, "Failed", "DiscoveryOutputInvalid")
	statusIs(t, "aimtc/mirror", ns, "ServiceTemplateReady", "Failed False DiscoveryOutputInvalid")
	setStatus(t, "aimtpl/tpl", ns, "NotAvailable", "GPUNotAvailable")
	statusIs(t, "aimtc/mirror", ns, "ServiceTemplateReady", "NotAvailable False GPUNotAvailable")
	statusIs(t, "aimtc/absent", ns, "ServiceTemplateReady", "Failed False ReferenceNotFound")
	statusIs(t, "aimtc/wrong-scope", ns, "ServiceTemplateReady", "Failed False ReferenceNotFound")
	conditionReads(t, "aimtc/wrong-scope", ns, "ConfigValid", "False ReferenceNotFound")
}

// TestInlineModelSourcesAreDiscovered: a template listing its model sources needs no discovery and says so as
// the reference does.
func TestInlineModelSourcesAreDiscovered(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-inline")
	frozenModel(t, ns, "qwen", "Ready")
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: inline, namespace: %s}
spec:
  modelName: qwen
  metric: latency
  precision: fp16
  hardware: {cpu: {requests: "4"}}
  modelSources: [{modelId: Org/Qwen, sourceUri: "hf://Org/Qwen", size: 1Gi}]
`, ns))
	jsonpathEquals(t, 60*time.Second, "True InlineModelSources Model sources provided in-line in spec", "aimtpl", "inline", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="Discovered")].status} {.status.conditions[?(@.type=="Discovered")].reason} {.status.conditions[?(@.type=="Discovered")].message}`)
}

// labelsOf reads an object's labels as a map.
func labelsOf(t *testing.T, kind, name, ns string) map[string]string {
	t.Helper()
	out := admin(t).must("get", kind, name, "-n", ns, "-o", "jsonpath={.metadata.labels}")
	labels := map[string]string{}
	must(t, json.Unmarshal([]byte(out), &labels))
	return labels
}

func hasLabels(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: label %s = %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}

// TestCacheChildrenCarryReferenceLabels: a service's template cache, the cache's artifact, and the artifact's
// volume and download Job carry aim-engine's labels (so selectors written for it work), the cache holds
// aim-engine's finalizer, and a cache holding the old finalizer name gets the new one.
func TestCacheChildrenCarryReferenceLabels(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-labels")
	ns := namespace(t, "e2e-labels")
	applyService(t, ns, "labelled", "model: {name: e2e-labels-model}")
	k.must("label", "aimsvc", "labelled", "-n", ns, "aim.eai.amd.com/team=inference")

	cache := onlyOne(t, 60*time.Second, "aimtc", ns)
	hasLabels(t, "template cache", labelsOf(t, "aimtc", cache, ns), map[string]string{
		"aim.eai.amd.com/service": "labelled", "aim.eai.amd.com/service.name": "labelled"})
	jsonpathEquals(t, 30*time.Second, "aim.eai.amd.com/artifactcleanup", "aimtc", cache, "-n", ns, "-o", "jsonpath={.metadata.finalizers[*]}")

	art := onlyOne(t, 60*time.Second, "aimart", ns)
	hasLabels(t, "artifact", labelsOf(t, "aimart", art, ns), map[string]string{
		"template-created": "true", "aim.eai.amd.com/template.name": "e2e-labels", "aim.eai.amd.com/template.scope": "Cluster",
		"aim.eai.amd.com/template.index": "0", "aim.eai.amd.com/template-cache.name": cache, "aim.eai.amd.com/service": "labelled"})

	pvc := jsonpathSet(t, 30*time.Second, "aimart", art, "-n", ns, "-o", "jsonpath={.status.persistentVolumeClaim}")
	hasLabels(t, "volume", labelsOf(t, "pvc", pvc, ns), map[string]string{
		"aim.eai.amd.com/cache.name": art, "aim.eai.amd.com/cache.type": "template-cache", "aim.eai.amd.com/source-model": "org_model",
		"aim.eai.amd.com/artifact.name": art, "aim.eai.amd.com/template.name": "e2e-labels"})
	job, _ := jobPodOf(t, ns, art, "download")
	jobLabels := labelsOf(t, "job", job, ns)
	hasLabels(t, "download Job", jobLabels, map[string]string{
		"aim.eai.amd.com/cache.name": art, "aim.eai.amd.com/cache.type": "artifact", "aim.eai.amd.com/component": "download"})
	// aim-engine lists a template's discovery Jobs by this label (discovery.go:256).
	if tpl, ok := jobLabels["aim.eai.amd.com/template"]; ok {
		t.Errorf("download Job labelled aim.eai.amd.com/template=%s, the label of a discovery Job", tpl)
	}
	envs := k.must("get", "job", job, "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[0].env[*].name}")
	if envs != "AIM_DOWNLOADER_PROTOCOL TMPDIR HF_HOME EXPECTED_SIZE_BYTES MOUNT_PATH ARTIFACT_NAME ARTIFACT_NAMESPACE STALL_TIMEOUT TARGET_DIR" {
		t.Errorf("download env %q", envs)
	}

	// A cache from an earlier release, with the old finalizer name, gets aim-engine's.
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMTemplateCache
metadata: {name: legacy, namespace: %s, finalizers: [aim.eai.amd.com/artifact-cleanup]}
spec: {templateName: e2e-labels, templateScope: Cluster}
`, ns))
	jsonpathEquals(t, 30*time.Second, "aim.eai.amd.com/artifactcleanup", "aimtc", "legacy", "-n", ns, "-o", "jsonpath={.metadata.finalizers[*]}")
}

// TestStalledDownloadEndsFailed: the download pods report aim-engine's reasons (an image that cannot be
// pulled, a failed attempt), a failed attempt fails the artifact with progress N/A, and a download that
// exhausts its retries (the downloader gives up on a stall) ends Failed with JobBackoffLimitExceeded.
func TestStalledDownloadEndsFailed(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-stall")
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMArtifact\nmetadata: {name: stalls, namespace: %s}\nspec: {sourceUri: \"hf://x/stalls\", modelId: x/stalls, size: 1Gi}\n", ns))
	pvc := jsonpathSet(t, 30*time.Second, "aimart", "stalls", "-n", ns, "-o", "jsonpath={.status.persistentVolumeClaim}")
	conditionReads(t, "aimart/stalls", ns, "CachePvcReady", "False PvcPending")
	bindVolume(t, ns, pvc)
	conditionReads(t, "aimart/stalls", ns, "CachePvcReady", "True Ready")
	job, pod := jobPodOf(t, ns, "stalls", "download")
	conditionReads(t, "aimart/stalls", ns, "DownloadJobReady", "False JobRunning")

	patchStatus(t, "pod", pod, ns, map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{
		"name": "model-download", "image": "x", "imageID": "", "ready": false, "restartCount": 0,
		"state": map[string]any{"waiting": map[string]any{"reason": "ErrImagePull", "message": "pull access denied: unauthorized"}}}}})
	conditionReads(t, "aimart/stalls", ns, "DownloadJobPodsReady", "False ImagePullAuthFailure")

	k.must("patch", "aimart", "stalls", "-n", ns, "--subresource=status", "--type=merge", "-p",
		`{"status":{"progress":{"totalBytes":1073741824,"downloadedBytes":536870912,"percentage":50,"displayPercentage":"50 %"}}}`)
	for attempt := 1; attempt <= 3; attempt++ {
		var current string
		eventually(t, 60*time.Second, fmt.Sprintf("download pod %d", attempt), func() error {
			out := strings.Fields(k.must("get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name="+job,
				"--field-selector", "status.phase=Pending", "-o", "name"))
			if len(out) == 0 {
				return fmt.Errorf("no pending pod")
			}
			current = strings.TrimPrefix(out[0], "pod/")
			return nil
		})
		failPod(t, ns, current, "model-download", "no progress for 120s (STALL_TIMEOUT); giving up")
		statusIs(t, "aimart/stalls", ns, "DownloadJobPodsReady", "Failed False PodFailed")
		jsonpathEquals(t, 30*time.Second, "N/A False Downloading", "aimart", "stalls", "-n", ns, "-o",
			`jsonpath={.status.progress.displayPercentage} {.status.conditions[?(@.type=="DownloadComplete")].status} {.status.conditions[?(@.type=="DownloadComplete")].reason}`)
	}
	statusIs(t, "aimart/stalls", ns, "DownloadJobReady", "Failed False JobBackoffLimitExceeded")
	jsonpathEquals(t, 30*time.Second, "N/A", "aimart", "stalls", "-n", ns, "-o", "jsonpath={.status.progress.displayPercentage}")
}
