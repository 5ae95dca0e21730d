//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const downloaderSA = "aim-artifact-downloader"

// jobPodOf waits for the Job of an artifact's component (check-size or download) and its pod.
func jobPodOf(t *testing.T, ns, artifact, component string) (job, pod string) {
	t.Helper()
	k := admin(t)
	sel := "aim.eai.amd.com/artifact.name=" + artifact + ",aim.eai.amd.com/component=" + component
	eventually(t, 60*time.Second, component+" Job of "+artifact, func() error {
		out, err := k.run("", "get", "jobs", "-n", ns, "-l", sel, "-o", "name")
		if err != nil || strings.TrimSpace(out) == "" {
			return fmt.Errorf("%v: %q", err, out)
		}
		job = strings.TrimPrefix(strings.Fields(out)[0], "job.batch/")
		return nil
	})
	return job, podOfJob(t, ns, job)
}

// podOfJob waits for the first pod of a Job.
func podOfJob(t *testing.T, ns, job string) (pod string) {
	t.Helper()
	k := admin(t)
	eventually(t, 60*time.Second, "pod of "+job, func() error {
		out, err := k.run("", "get", "pods", "-n", ns, "-l", "batch.kubernetes.io/job-name="+job, "-o", "name")
		if err != nil || strings.TrimSpace(out) == "" {
			return fmt.Errorf("%v: %q", err, out)
		}
		pod = strings.TrimPrefix(strings.Fields(out)[0], "pod/")
		return nil
	})
	return pod
}

// succeedPod plays kubelet: the container exits 0 with message as its termination message; the Job
// controller of kube-controller-manager then completes the Job (Complete and SuccessCriteriaMet).
func succeedPod(t *testing.T, ns, pod, container, message string) {
	t.Helper()
	endPod(t, ns, pod, container, "Succeeded", 0, "Completed", message)
}

// failPod plays kubelet for a failed attempt: the container exits 1 with message as its termination message.
func failPod(t *testing.T, ns, pod, container, message string) {
	t.Helper()
	endPod(t, ns, pod, container, "Failed", 1, "Error", message)
}

// endPod writes a pod's end as kubelet would: its phase and the container's terminated state.
func endPod(t *testing.T, ns, pod, container, phase string, exitCode int, reason, message string) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	data, _ := json.Marshal(map[string]any{"status": map[string]any{
		"phase": phase,
		"containerStatuses": []any{map[string]any{
			"name": container, "image": "x", "imageID": "", "ready": false, "restartCount": 0,
			"state": map[string]any{"terminated": map[string]any{"exitCode": exitCode, "reason": reason, "message": message, "startedAt": now, "finishedAt": now}},
		}},
	}})
	f := filepath.Join(t.TempDir(), "status.json")
	must(t, os.WriteFile(f, data, 0o600))
	admin(t).must("patch", "pod", pod, "-n", ns, "--subresource=status", "--type=merge", "--patch-file", f)
}

// bindVolume plays the volume provisioner (none runs here): the claim becomes Bound.
func bindVolume(t *testing.T, ns, pvc string) {
	t.Helper()
	admin(t).must("patch", "pvc", pvc, "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Bound"}}`)
}

// downloadCaches plays the volume provisioner and kubelet for the n artifacts of a namespace's template caches:
// each volume is bound and each download Job succeeds, so the caches become Ready and their services go on to
// their InferenceServices. Every service caches its template's model sources (the legacy mode Never is
// Dedicated, as in aim-engine).
func downloadCaches(t *testing.T, ns string, n int) {
	t.Helper()
	k := admin(t)
	var arts []string
	eventually(t, 60*time.Second, fmt.Sprintf("%d artifacts in %s", n, ns), func() error {
		arts = strings.Fields(k.must("get", "aimart", "-n", ns, "-o", "jsonpath={.items[*].metadata.name}"))
		if len(arts) != n {
			return fmt.Errorf("artifacts %v", arts)
		}
		return nil
	})
	for _, art := range arts {
		bindVolume(t, ns, jsonpathSet(t, 30*time.Second, "aimart", art, "-n", ns, "-o", "jsonpath={.status.persistentVolumeClaim}"))
		_, pod := jobPodOf(t, ns, art, "download")
		succeedPod(t, ns, pod, "model-download", "")
	}
	eventually(t, 60*time.Second, "template caches of "+ns+" Ready", func() error {
		out := k.must("get", "aimtc", "-n", ns, "-o", "jsonpath={.items[*].status.status}")
		if strings.Trim(strings.ReplaceAll(out, "Ready", ""), " ") != "" || out == "" {
			return fmt.Errorf("caches %q", out)
		}
		return nil
	})
}

// TestTemplateCacheDownloadsSharedArtifact: a Shared cache of a Ready template with an inline, sized source
// makes one artifact, a volume of size + 10 % rounded up to GiB, and a download Job under the dedicated
// service account, which may patch artifact status (the namespace's default account may not). Progress the
// downloader writes survives the controller; the finished Job makes the artifact and the cache Ready.
func TestTemplateCacheDownloadsSharedArtifact(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-cache")
	k.mustApply(fmt.Sprintf(`apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMModel
metadata: {name: small, namespace: %[1]s}
spec: {image: registry.example/aim/small:1.0, imageMetadata: {}}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMServiceTemplate
metadata: {name: small-cpu, namespace: %[1]s}
spec:
  modelName: small
  hardware: {cpu: {requests: "4"}}
  modelSources: [{modelId: org/small, sourceUri: "hf://org/small", size: 10Gi}]
`, ns))
	k.must("wait", "-n", ns, "--for=condition=Ready", "aimtpl/small-cpu", "--timeout=60s")
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMTemplateCache\nmetadata: {name: small, namespace: %s}\nspec: {templateName: small-cpu, templateScope: Namespace}\n", ns))

	art := onlyOne(t, 30*time.Second, "aimart", ns)
	if owners := k.must("get", "aimart", art, "-n", ns, "-o", "jsonpath={.metadata.ownerReferences} {.spec.size} {.spec.modelId}"); owners != " 10Gi org/small" {
		t.Errorf("shared artifact: owners/size/model %q", owners)
	}
	pvc := jsonpathSet(t, 30*time.Second, "aimart", art, "-n", ns, "-o", "jsonpath={.status.persistentVolumeClaim}")
	jsonpathEquals(t, 30*time.Second, "11Gi ReadWriteMany", "pvc", pvc, "-n", ns, "-o", "jsonpath={.spec.resources.requests.storage} {.spec.accessModes[0]}")
	contains(t, "artifact columns", k.must("get", "aimart", art, "-n", ns), "Shared", "10 GiB")

	job, pod := jobPodOf(t, ns, art, "download")
	spec := k.must("get", "job", job, "-n", ns, "-o", "jsonpath={.spec.template.spec.serviceAccountName} {.spec.template.spec.volumes[0].persistentVolumeClaim.claimName} {.spec.template.spec.containers[0].args[0]}")
	if spec != downloaderSA+" "+pvc+" hf://org/small" {
		t.Errorf("download Job: %q", spec)
	}
	k.must("get", "serviceaccount", downloaderSA, "-n", ns)
	// The artifact's download pod is pending (no kubelet here): the cache takes its worst artifact's state and
	// reason, as aim-engine's ArtifactsReady does.
	jsonpathEquals(t, 30*time.Second, "Pending", "aimtc", "small", "-n", ns, "-o", "jsonpath={.status.status}")

	// The downloader's account may patch artifact status; the namespace's default account may not (F15).
	progress := `{"status":{"progress":{"totalBytes":100,"downloadedBytes":50,"percentage":50,"displayPercentage":"50 %"},"download":{"protocol":"XET","attempt":1}}}`
	patch := []string{"patch", "aimart", art, "-n", ns, "--subresource=status", "--type=merge", "-p", progress}
	if out, err := k.run("", append([]string{"--as", "system:serviceaccount:" + ns + ":default"}, patch...)...); err == nil || !strings.Contains(out, "forbidden") {
		t.Errorf("the default service account patched artifact status: %v %s", err, out)
	}
	eventually(t, 30*time.Second, "downloader patches progress", func() error {
		out, err := k.run("", append([]string{"--as", "system:serviceaccount:" + ns + ":" + downloaderSA}, patch...)...)
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	// The controller reconciles on that change and must keep the downloader's fields. (The artifact is Pending:
	// no kubelet starts the download pod here, and aim-engine reports a pending pod so.)
	consistently(t, 2*time.Second, "progress after the controller saw it", func() error {
		if got := k.must("get", "aimart", art, "-n", ns, "-o", "jsonpath={.status.progress.displayPercentage} {.status.download.protocol} {.status.status}"); got != "50 % XET Pending" {
			return fmt.Errorf("%q", got)
		}
		return nil
	})

	bindVolume(t, ns, pvc)
	succeedPod(t, ns, pod, "model-download", "")
	jsonpathEquals(t, 60*time.Second, "Ready 100 %", "aimart", art, "-n", ns, "-o", "jsonpath={.status.status} {.status.progress.displayPercentage}")
	conditionReads(t, "aimart/"+art, ns, "DownloadComplete", "True Verified")
	jsonpathEquals(t, 30*time.Second, "Ready", "aimtc", "small", "-n", ns, "-o", "jsonpath={.status.status}")
	got := k.must("get", "aimtc", "small", "-n", ns, "-o", fmt.Sprintf(`jsonpath={.status.artifacts.%s.persistentVolumeClaim} {.status.artifacts.%s.mountPoint} {.status.resolvedTemplateKind}`, art, art))
	// mountPoint stays empty, as aim-engine leaves it (the service mounts each artifact under its model).
	if got != pvc+"  AIMServiceTemplate" {
		t.Errorf("cache status: %q", got)
	}
}

// TestArtifactCheckSizeSizesTheVolume: an artifact without a size runs a check-size Job; the size its pod
// reports sizes the volume.
func TestArtifactCheckSizeSizesTheVolume(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "e2e-checksize")
	k.mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMArtifact\nmetadata: {name: unsized, namespace: %s}\nspec: {sourceUri: \"hf://x/y\", modelId: x/y}\n", ns))
	job, pod := jobPodOf(t, ns, "unsized", "check-size")
	spec := k.must("get", "job", job, "-n", ns, "-o", "jsonpath={.spec.template.spec.serviceAccountName} {.spec.template.spec.containers[0].command[0]} {.spec.template.spec.containers[0].terminationMessagePolicy} {.spec.backoffLimit}")
	if spec != downloaderSA+" /check-size.sh FallbackToLogsOnError 2" {
		t.Errorf("check-size Job: %q", spec)
	}
	jsonpathEquals(t, 30*time.Second, "Pending False PodsPending", "aimart", "unsized", "-n", ns, "-o",
		`jsonpath={.status.status} {.status.conditions[?(@.type=="CheckSizeJobPodsReady")].status} {.status.conditions[?(@.type=="CheckSizeJobPodsReady")].reason}`)

	succeedPod(t, ns, pod, "check-size", "checking hf://x/y\n"+`{"url":"hf://x/y","sizeBytes":123456789}`)
	jsonpathEquals(t, 60*time.Second, "123456789 118 MiB", "aimart", "unsized", "-n", ns, "-o", "jsonpath={.status.discoveredSizeBytes} {.status.displaySize}")
	pvc := k.must("get", "aimart", "unsized", "-n", ns, "-o", "jsonpath={.status.persistentVolumeClaim}")
	jsonpathEquals(t, 30*time.Second, "1Gi", "pvc", pvc, "-n", ns, "-o", "jsonpath={.spec.resources.requests.storage}")
	jobPodOf(t, ns, "unsized", "download")
}
