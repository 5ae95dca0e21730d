//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/service"
)

// readyClusterTemplate makes a cluster model and template on MI300X nodes and plays its discovery to Ready.
func readyClusterTemplate(t *testing.T, name string) {
	t.Helper()
	gpuNode(t, "e2e-"+name+"-node", map[string]string{"amd.com/gpu.device-id": "74a1"}, 8)
	clusterTemplate(t, name, "MI300X")
	_, pod := discoveryPod(t, name, 1)
	finishPod(t, pod, discoveryOutput)
	admin(t).must("wait", "--for=condition=Ready", "aimcltpl/"+name, "--timeout=60s")
}

// patchStatus writes an object's status subresource as a merge patch, the way KServe or kubelet would.
func patchStatus(t *testing.T, kind, name, namespace string, status map[string]any) {
	t.Helper()
	data, _ := json.Marshal(map[string]any{"status": status})
	f := filepath.Join(t.TempDir(), "status.json")
	must(t, os.WriteFile(f, data, 0o600))
	admin(t).must("patch", kind, name, "-n", namespace, "--subresource=status", "--type=merge", "--patch-file", f)
}

// pullingEvent records kubelet's Event of an image pull under way for a pod (Normal, reason Pulling).
func pullingEvent(t *testing.T, namespace, pod string) {
	t.Helper()
	k := admin(t)
	uid := k.must("get", "pod", pod, "-n", namespace, "-o", "jsonpath={.metadata.uid}")
	now := time.Now().UTC().Format(time.RFC3339)
	k.mustApply(fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":%q,"namespace":%q},
"involvedObject":{"apiVersion":"v1","kind":"Pod","name":%q,"namespace":%q,"uid":%q},"type":"Normal","reason":"Pulling",
"message":"Pulling image \"registry.example/aim/x:1.0\"","source":{"component":"kubelet"},"firstTimestamp":%q,"lastTimestamp":%q,"count":1}`,
		pod+".pulling", namespace, pod, namespace, uid, now, now))
}

// predictorPod creates a pod as KServe's Deployment would, labelled with its InferenceService.
func predictorPod(t *testing.T, namespace, isvc, name string) {
	t.Helper()
	admin(t).mustApply(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"namespace":%q,
"labels":{"serving.kserve.io/inferenceservice":%q}},"spec":{"containers":[{"name":"kserve-container","image":"registry.example/aim/x:1.0"}]}}`,
		name, namespace, isvc))
}

// inferenceServiceName and httpRouteName are the names of a service's InferenceService and HTTPRoute, as
// aim-engine derives them.
func inferenceServiceName(namespace, svc string) string {
	return service.WorkloadName(&aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: svc, Namespace: namespace}})
}

func httpRouteName(namespace, svc string) string {
	return service.RouteName(&aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: svc, Namespace: namespace}})
}

// onlyOne waits until exactly one object of a kind (selected by the optional label selector) exists in a
// applyService applies an AIMService with the given spec (YAML, a flow mapping or indented lines).
func applyService(t *testing.T, namespace, name, spec string) {
	t.Helper()
	if !strings.HasPrefix(spec, "\n") {
		spec = " {" + spec + "}"
	}
	admin(t).mustApply(fmt.Sprintf("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: %s, namespace: %s}\nspec:%s\n", name, namespace, spec))
}

func condition(k kubectl, resource, namespace, typ, field string) string {
	out, _ := k.run("", "get", resource, "-n", namespace, "-o", fmt.Sprintf(`jsonpath={.status.conditions[?(@.type==%q)].%s}`, typ, field))
	return out
}

func TestServiceRunsOnKServe(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-svc")
	ns := namespace(t, "svc")

	applyService(t, ns, "chat", `
  model: {name: e2e-svc-model}
  routing:
    enabled: true
    gatewayRef: {name: inference-gateway, namespace: gateways}
    pathTemplate: "/{.metadata.namespace}/{.metadata.name}"
    requestTimeout: 90s
`)
	downloadCaches(t, ns, 1)

	// The InferenceService appears with the template's GPU placement.
	chat, route := inferenceServiceName(ns, "chat"), httpRouteName(ns, "chat")
	isvc := objectJSON(t, 60*time.Second, "inferenceservice", chat, ns)
	contains(t, "InferenceService", isvc, `"image": "registry.example/aim/e2e-svc:1.0"`, `"amd.com/gpu": "1"`, `"cpu": "4"`,
		`"memory": "32Gi"`, `"memory": "48Gi"`, `"amd.com/gpu.device-id"`, `"74a1"`, `"mountPath": "/dev/shm"`, `"medium": "Memory"`,
		`"containerPort": 8000`, `"name": "kserve-container"`, `"kind": "AIMService"`, `"minReplicas": 1`, `"maxReplicas": 1`,
		`"name": "AIM_METRIC"`, `"value": "latency"`, `"name": "AIM_PRECISION"`, `"value": "fp8"`)
	contains(t, "service while KServe works", k.must("get", "aimsvc", "chat", "-n", ns), "Starting", "e2e-svc-model", "e2e-svc")

	// Routing: an HTTPRoute at the rendered path, to the predictor Service.
	contains(t, "HTTPRoute", k.must("get", "httproute", route, "-n", ns, "-o", "json"), fmt.Sprintf(`"value": "/%s/chat"`, ns),
		fmt.Sprintf(`"name": "%s-predictor"`, chat), `"port": 80`, `"name": "inference-gateway"`, `"request": "1m30s"`, `"replacePrefixMatch": "/"`)

	// KServe's Deployment cannot create the predictor's pods (a LimitRange below AIM's 48Gi memory limit here):
	// the service quotes the ReplicaSet's FailedCreate, where "no predictor pods yet" would say nothing. The
	// replicaset controller of kube-controller-manager and the LimitRanger admission of kube-apiserver play it,
	// with a ReplicaSet named as KServe's Deployment names them.
	rs := chat + "-predictor-6b8f9c"
	k.mustApply(fmt.Sprintf(`
apiVersion: v1
kind: LimitRange
metadata: {name: max-memory, namespace: %[1]s}
spec: {limits: [{type: Container, max: {memory: 32Gi}}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  replicas: 1
  selector: {matchLabels: {e2e: refused-predictor}}
  template:
    metadata: {labels: {e2e: refused-predictor}}
    spec: {containers: [{name: kserve-container, image: registry.example/aim/e2e-svc:1.0, resources: {limits: {memory: 48Gi}}}]}
`, ns, rs))
	want := fmt.Sprintf(`NoPods: no predictor pods yet: ReplicaSet %[1]s cannot create them: Error creating: pods "%[1]s-*" is forbidden: `+
		`maximum memory usage per Container is 32Gi, but limit is 48Gi`, rs)
	jsonpathEquals(t, 60*time.Second, want, "aimsvc", "chat", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="InferenceServicePodsReady")].reason}: {.status.conditions[?(@.type=="InferenceServicePodsReady")].message}`)
	k.must("delete", "replicaset/"+rs, "limitrange/max-memory", "-n", ns, "--wait")

	// Play KServe and kubelet: a predictor pod, pending (PodsPending), then pulling its image (Pulling, from
	// kubelet's Normal Event, as aim-engine reports it), then ready; a ready InferenceService, an accepted route.
	predictorPod(t, ns, chat, "chat-predictor-0")
	// The service's status too: Pending while its pod waits, Starting while it pulls, as aim-engine's.
	podsReady := `jsonpath={.status.conditions[?(@.type=="InferenceServicePodsReady")].status} {.status.conditions[?(@.type=="InferenceServicePodsReady")].reason} {.status.status}`
	jsonpathEquals(t, 30*time.Second, "False PodsPending Pending", "aimsvc", "chat", "-n", ns, "-o", podsReady)
	pullingEvent(t, ns, "chat-predictor-0")
	jsonpathEquals(t, 30*time.Second, "False Pulling Starting", "aimsvc", "chat", "-n", ns, "-o", podsReady)
	patchStatus(t, "pod", "chat-predictor-0", ns, map[string]any{"phase": "Running",
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}})
	now := time.Now().UTC().Format(time.RFC3339)
	// KServe reports where the InferenceService answers: here a cluster whose domain is not cluster.local.
	address := fmt.Sprintf("http://%s-predictor.%s.svc.corp.example", chat, ns)
	patchStatus(t, "inferenceservice", chat, ns, map[string]any{"address": map[string]any{"url": address}, "conditions": []any{
		map[string]any{"type": "Ready", "status": "True", "lastTransitionTime": now}}})
	patchStatus(t, "httproute", route, ns, map[string]any{"parents": []any{map[string]any{
		"parentRef": map[string]any{"name": "inference-gateway", "namespace": "gateways"}, "controllerName": "example.com/gateway",
		"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": now}}}}})

	k.must("wait", "--for=condition=Ready", "aimsvc/chat", "-n", ns, "--timeout=60s")
	contains(t, "running service", k.must("get", "aimsvc", "chat", "-n", ns), "Running", "e2e-svc-model", "e2e-svc")
	// A fixed count shows as the ready replicas, as aim-engine's "N".
	jsonpathEquals(t, 30*time.Second, "1", "aimsvc", "chat", "-n", ns, "-o", "jsonpath={.status.runtime.replicas}")
	got := k.must("get", "aimsvc", "chat", "-n", ns, "-o", "jsonpath={.status.endpoint.internal} {.status.endpoint.path} {.status.routing.path}")
	if want := fmt.Sprintf("%[2]s /%[1]s/chat /%[1]s/chat", ns, address); got != want {
		t.Errorf("endpoint = %q, want %q", got, want)
	}
	if got := k.must("get", "aimsvc", "chat", "-n", ns, "-o", `jsonpath={.status.templateMatching.candidates[?(@.name=="e2e-svc")].status} {.status.templateMatching.candidates[?(@.name=="e2e-svc")].reason}`); got != "chosen BestMatch" {
		t.Errorf("templateMatching for e2e-svc = %q (F3)", got)
	}
	if c := condition(k, "aimsvc/chat", ns, "HTTPRouteReady", "reason"); c != "HTTPRouteAccepted" {
		t.Errorf("HTTPRouteReady reason = %q", c)
	}

	// Steady state: a resync (every 5 s in the harness) of a running service writes nothing.
	rv := func() string {
		return k.must("get", "aimsvc/chat", "inferenceservice/"+chat, "httproute/"+route, "-n", ns, "-o", "jsonpath={.items[*].metadata.resourceVersion}")
	}
	before := rv()
	consistently(t, 7*time.Second, "a running service and its children stay as they are through resyncs", func() error {
		if after := rv(); after != before {
			return fmt.Errorf("%s -> %s", before, after)
		}
		return nil
	})

	// A hand edit of a field the controller sets is reverted: the InferenceService's replicas, the route's path.
	isvcReplicas := k.must("get", "inferenceservice", chat, "-n", ns, "-o", "jsonpath={.spec.predictor.minReplicas} {.spec.predictor.maxReplicas}")
	k.must("patch", "inferenceservice", chat, "-n", ns, "--type=merge", "-p", `{"spec":{"predictor":{"minReplicas":5,"maxReplicas":5}}}`)
	jsonpathEquals(t, 30*time.Second, isvcReplicas, "inferenceservice", chat, "-n", ns, "-o", "jsonpath={.spec.predictor.minReplicas} {.spec.predictor.maxReplicas}")
	routePath := k.must("get", "httproute", route, "-n", ns, "-o", "jsonpath={.spec.rules[0].matches[0].path.value}")
	k.must("patch", "httproute", route, "-n", ns, "--type=json", "-p", `[{"op":"replace","path":"/spec/rules/0/matches/0/path/value","value":"/edited-by-hand"}]`)
	jsonpathEquals(t, 30*time.Second, routePath, "httproute", route, "-n", ns, "-o", "jsonpath={.spec.rules[0].matches[0].path.value}")

	// The controller's metrics show the reconciles, the queue and the applies that reverted the edits.
	metrics := aimMetrics(t)
	// The reconcile metrics by controller-runtime's names, which aim-engine's monitoring guide gives.
	contains(t, "controller metrics", metrics, `controller_runtime_reconcile_total{controller="service",result="success"}`,
		`controller_runtime_reconcile_time_seconds_count{controller="service"}`, `controller_runtime_max_concurrent_reconciles{controller="service-template"} 2`,
		`controller_runtime_reconcile_errors_total`, `workqueue_depth{name="service"}`,
		`aim_controller_write_requests_total{group="serving.kserve.io",resource="inferenceservices",verb="APPLY"}`,
		`aim_controller_write_requests_total{group="aim.eai.amd.com",resource="aimservices/status",verb="PUT"}`)

	// Mutable fields reach the live InferenceService.
	k.must("patch", "aimsvc", "chat", "-n", ns, "--type=merge", "-p", `{"spec":{"replicas":2}}`)
	jsonpathEquals(t, 30*time.Second, "2 2", "inferenceservice", chat, "-n", ns, "-o", "jsonpath={.spec.predictor.minReplicas} {.spec.predictor.maxReplicas}")

	// A pod that cannot pull its image shows in the service's conditions and Events.
	patchStatus(t, "pod", "chat-predictor-0", ns, map[string]any{"phase": "Pending",
		"conditions": []any{map[string]any{"type": "Ready", "status": "False"}},
		"containerStatuses": []any{map[string]any{"name": "kserve-container", "image": "registry.example/aim/x:1.0", "imageID": "",
			"ready": false, "restartCount": 0, "state": map[string]any{"waiting": map[string]any{
				"reason": "ImagePullBackOff", "message": `Back-off pulling image "registry.example/aim/x:1.0"`}}}}})
	jsonpathEquals(t, 30*time.Second, "ImagePullBackOff", "aimsvc", "chat", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="InferenceServicePodsReady")].reason}`)
	eventually(t, 30*time.Second, "an ImagePullBackOff Event on the service", func() error {
		out := k.must("get", "events", "-n", ns, "--field-selector", "involvedObject.kind=AIMService,involvedObject.name=chat", "-o",
			"jsonpath={range .items[*]}{.type} {.reason}{\"\\n\"}{end}")
		if !strings.Contains(out, "Warning ImagePullBackOff") {
			return fmt.Errorf("events: %q", out)
		}
		return nil
	})

	// Deleting the service removes its InferenceService and HTTPRoute (the garbage collector follows the owner
	// references across the aggregation layer).
	k.must("delete", "aimsvc", "chat", "-n", ns)
	noneLeft(t, 60*time.Second, "inferenceservice,httproute", ns)
}

func TestServiceBrokenRouteStillServes(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-route")
	ns := namespace(t, "route")
	applyService(t, ns, "broken", `
  model: {name: e2e-route-model}
  routing:
    enabled: true
    gatewayRef: {name: gw}
    pathTemplate: "/{.spec.doesNotExist}"
`)
	jsonpathEquals(t, 60*time.Second, "False PathTemplateInvalid", "aimsvc", "broken", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="HTTPRouteReady")].status} {.status.conditions[?(@.type=="HTTPRouteReady")].reason}`)
	msg := condition(k, "aimsvc/broken", ns, "HTTPRouteReady", "message")
	contains(t, "route condition message", msg, "doesNotExist")
	downloadCaches(t, ns, 1)
	objectJSON(t, 30*time.Second, "inferenceservice", inferenceServiceName(ns, "broken"), ns)
	if out, _ := k.run("", "get", "httproute", "-n", ns, "-o", "name"); strings.TrimSpace(out) != "" {
		t.Errorf("a route was made from a broken template: %q", out)
	}
}

func TestServiceOnUnavailableTemplateIsNotAvailable(t *testing.T) {
	k := admin(t)
	clusterTemplate(t, "e2e-mi355x", "MI355X") // no node has it
	ns := namespace(t, "notavail")
	applyService(t, ns, "later", `
  model: {name: e2e-mi355x-model}
  template: {name: e2e-mi355x}
`)
	jsonpathEquals(t, 60*time.Second, "NotAvailable", "aimsvc", "later", "-n", ns, "-o", "jsonpath={.status.status}")
	// The reference's reason for a template that is not Ready, whatever its state; the state is NotAvailable (F1).
	if r := condition(k, "aimsvc/later", ns, "TemplateReady", "reason"); r != "TemplateNotReady" {
		t.Errorf("TemplateReady reason = %q", r)
	}
	if out, _ := k.run("", "get", "inferenceservice", "-n", ns, "-o", "name"); strings.TrimSpace(out) != "" {
		t.Errorf("an InferenceService was made for a template that cannot run: %q", out)
	}
}

func TestServiceWithSharedCacheMountsTheVolume(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-svc-cache")
	ns := namespace(t, "svc-cache")
	// No caching field: Shared is the default.
	applyService(t, ns, "cached", "model: {name: e2e-svc-cache-model}")

	// The service makes a shared template cache, which makes an artifact for the template's discovered source.
	cache := onlyOne(t, 60*time.Second, "aimtc", ns)
	art := onlyOne(t, 60*time.Second, "aimart", ns)
	if got := k.must("get", "aimtc", cache, "-n", ns, "-o", "jsonpath={.spec.templateName} {.spec.templateScope} {.spec.mode} {.metadata.ownerReferences}"); got != "e2e-svc-cache Cluster Shared " {
		t.Errorf("template cache: %q", got)
	}
	if got := k.must("get", "aimart", art, "-n", ns, "-o", "jsonpath={.spec.sourceUri} {.spec.modelId} {.spec.size}"); got != "hf://Org/Model Org/Model 16Gi" {
		t.Errorf("artifact: %q", got)
	}
	pvc := jsonpathSet(t, 30*time.Second, "aimart", art, "-n", ns, "-o", "jsonpath={.status.persistentVolumeClaim}")
	jsonpathEquals(t, 30*time.Second, "18Gi", "pvc", pvc, "-n", ns, "-o", "jsonpath={.spec.resources.requests.storage}")

	// Until the download is done there is no InferenceService, and the service says why.
	job, pod := jobPodOf(t, ns, art, "download")
	if out, _ := k.run("", "get", "inferenceservice", "-n", ns, "-o", "name"); strings.TrimSpace(out) != "" {
		t.Errorf("InferenceService before the cache is ready: %q", out)
	}
	jsonpathEquals(t, 30*time.Second, "False CacheCreating Starting", "aimsvc", "cached", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="CacheReady")].status} {.status.conditions[?(@.type=="CacheReady")].reason} {.status.status}`)

	// Play the downloader (progress in the artifact's status) and kubelet (the download pod succeeds). The
	// service names its cache and the cache's status, not the progress, which would rewrite the status of every
	// service of the cache at each step the downloader reports.
	k.must("patch", "aimart", art, "-n", ns, "--subresource=status", "--type=merge", "-p",
		`{"status":{"progress":{"totalBytes":100,"downloadedBytes":50,"percentage":50,"displayPercentage":"50 %"}}}`)
	waiting := regexp.MustCompile(`^AIMTemplateCache \S+ is (Pending|Progressing)$`)
	eventually(t, 30*time.Second, "the cache's status on the service", func() error {
		if msg := condition(k, "aimsvc/cached", ns, "CacheReady", "message"); !waiting.MatchString(msg) {
			return fmt.Errorf("CacheReady message %q, want %s", msg, waiting)
		}
		return nil
	})
	k.must("patch", "aimart", art, "-n", ns, "--subresource=status", "--type=merge", "-p",
		`{"status":{"progress":{"totalBytes":100,"downloadedBytes":100,"percentage":100,"displayPercentage":"100 %"}}}`)
	conditionReads(t, "aimart/"+art, ns, "DownloadComplete", "True Verifying")
	bindVolume(t, ns, pvc)
	succeedPod(t, ns, pod, "model-download", "")
	jsonpathEquals(t, 60*time.Second, "True", "job", job, "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Complete")].status}`)

	// The service then mounts the volume at /workspace/cache/<modelId>.
	isvc := objectJSON(t, 60*time.Second, "inferenceservice", inferenceServiceName(ns, "cached"), ns)
	contains(t, "InferenceService volumes", isvc, fmt.Sprintf(`"claimName": %q`, pvc), `"mountPath": "/workspace/cache/Org/Model"`)
	jsonpathEquals(t, 30*time.Second, "True "+cache, "aimsvc", "cached", "-n", ns, "-o",
		`jsonpath={.status.conditions[?(@.type=="CacheReady")].status} {.status.cache.templateCacheRef.name}`)

	// A ready shared cache outlives the service, for the next one.
	k.must("delete", "aimsvc", "cached", "-n", ns, "--timeout=60s")
	k.must("get", "aimtc", cache, "-n", ns)
	k.must("get", "aimart", art, "-n", ns)
}

func TestDeletedServiceRemovesTheCacheNobodyNeeds(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-svc-clean")
	ns := namespace(t, "svc-clean")
	applyService(t, ns, "brief", "model: {name: e2e-svc-clean-model}")
	onlyOne(t, 60*time.Second, "aimart", ns)
	onlyOne(t, 60*time.Second, "jobs", ns)
	if got := k.must("get", "aimsvc", "brief", "-n", ns, "-o", "jsonpath={.metadata.finalizers}"); !strings.Contains(got, "aim.eai.amd.com/template-cache-cleanup") {
		t.Errorf("service finalizers = %s", got)
	}

	// Deleting the service while the download runs removes the cache, its artifact, and with it the volume
	// and the download Job.
	k.must("delete", "aimsvc", "brief", "-n", ns, "--timeout=60s")
	noneLeft(t, 60*time.Second, "aimtc,aimart,pvc,jobs", ns)
}

func TestServiceByImageCreatesItsModel(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "byimage")
	applyService(t, ns, "by-image", `
  model: {image: registry.example/aim/auto-model:2.1}
  imagePullSecrets: [{name: pull}]
`)
	model := onlyOne(t, 30*time.Second, "aimmdl", ns)
	if !strings.HasPrefix(model, "auto-model-2-1-") {
		t.Errorf("model name %q", model)
	}
	got := k.must("get", "aimmdl", model, "-n", ns, "-o", `jsonpath={.spec.image} {.spec.imagePullSecrets[0].name} {.metadata.labels.aim\.eai\.amd\.com/origin} {.metadata.ownerReferences}`)
	if got != "registry.example/aim/auto-model:2.1 pull auto-generated " {
		t.Errorf("auto-created model: %q (shared, so not owned)", got)
	}
	jsonpathEquals(t, 30*time.Second, model, "aimsvc", "by-image", "-n", ns, "-o", "jsonpath={.status.resolvedModel.name}")
}

func TestServiceOverridesRunOnADerivedTemplate(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-ovr")
	ns := namespace(t, "ovr")
	applyService(t, ns, "tuned", `
  model: {name: e2e-ovr-model}
  template: {name: e2e-ovr}
  overrides: {precision: fp16}
`)

	// F10: the service derives a namespaced template from the cluster template, with the override, and owns it.
	derived := onlyOne(t, 30*time.Second, "aimtpl", ns)
	got := k.must("get", "aimtpl", derived, "-n", ns, "-o", `jsonpath={.spec.modelName} {.spec.precision} {.spec.metric} {.metadata.labels.aim\.eai\.amd\.com/origin} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}`)
	if !strings.HasPrefix(derived, "e2e-ovr-ovr-fp16-") || got != "e2e-ovr-model fp16 latency derived AIMService/tuned" {
		t.Errorf("derived template %s: %q", derived, got)
	}

	// It runs its own discovery for fp16 in the service's namespace; the test plays that pod.
	job := onlyOne(t, 60*time.Second, "jobs", ns, "aim.eai.amd.com/template="+derived)
	contains(t, "derived discovery Job", k.must("get", "job", job, "-n", ns, "-o", "json"), `"AIM_PRECISION"`, `"fp16"`)
	pod := podOfJob(t, ns, job)
	succeedPod(t, ns, pod, "discovery", strings.ReplaceAll(discoveryOutput, `"precision":"fp8"`, `"precision":"fp16"`))
	k.must("wait", "-n", ns, "--for=condition=Ready", "aimtpl/"+derived, "--timeout=60s")
	downloadCaches(t, ns, 1)

	// The InferenceService runs the derived template.
	isvc := objectJSON(t, 60*time.Second, "inferenceservice", inferenceServiceName(ns, "tuned"), ns)
	contains(t, "InferenceService", isvc, fmt.Sprintf(`"aim.eai.amd.com/template": %q`, derived), `"name": "AIM_PRECISION"`, `"value": "fp16"`)
	jsonpathEquals(t, 30*time.Second, derived, "aimsvc", "tuned", "-n", ns, "-o", "jsonpath={.status.resolvedTemplate.name}")
}

func TestAutoscaledServiceFollowsKEDA(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-keda")
	ns := namespace(t, "keda")
	applyService(t, ns, "elastic", `
  model: {name: e2e-keda-model}
  minReplicas: 1
  maxReplicas: 4
  autoScaling:
    metrics:
    - type: PodMetric
      podmetric:
        metric: {backend: opentelemetry, metricNames: [vllm:num_requests_running], query: "vllm:num_requests_running"}
        target: {type: Value, value: "8"}
`)
	downloadCaches(t, ns, 1)
	elastic := inferenceServiceName(ns, "elastic")
	isvc := objectJSON(t, 60*time.Second, "inferenceservice", elastic, ns)
	contains(t, "autoscaled InferenceService", isvc, `"serving.kserve.io/autoscalerClass": "keda"`,
		fmt.Sprintf(`"sidecar.opentelemetry.io/inject": "%s-predictor"`, elastic), `"minReplicas": 1`, `"maxReplicas": 4`, `"vllm:num_requests_running"`)
	jsonpathEquals(t, 30*time.Second, "0/1 (1-4)", "aimsvc", "elastic", "-n", ns, "-o", "jsonpath={.status.runtime.replicas}")
	hpaReady := `jsonpath={.status.conditions[?(@.type=="HPAReady")].status} {.status.conditions[?(@.type=="HPAReady")].reason}`
	jsonpathEquals(t, 30*time.Second, "False HPANotFound", "aimsvc", "elastic", "-n", ns, "-o", hpaReady)

	// Play KEDA: its HPA wants 3 replicas. KEDA copies the ScaledObject's labels, which KServe copies from the
	// InferenceService: the controller informs only on HPAs labelled with an AIM service.
	k.mustApply(fmt.Sprintf(`apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: keda-hpa-%[2]s-predictor, namespace: %[1]s, labels: {aim.eai.amd.com/service: elastic, app.kubernetes.io/managed-by: keda-operator}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: %[2]s-predictor}
  minReplicas: 1
  maxReplicas: 4
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]
`, ns, elastic))
	patchStatus(t, "hpa", "keda-hpa-"+elastic+"-predictor", ns, map[string]any{"currentReplicas": 1, "desiredReplicas": 3})
	jsonpathEquals(t, 30*time.Second, "0/3 (1-4)", "aimsvc", "elastic", "-n", ns, "-o", "jsonpath={.status.runtime.replicas}")
	// Without metrics while the InferenceService is not Ready, as aim-engine says it.
	jsonpathEquals(t, 30*time.Second, "False WaitingForMetrics", "aimsvc", "elastic", "-n", ns, "-o", hpaReady)
}

// TestCachingModesAsAimEngineGivesThem: the legacy modes mean what aim-engine makes of them: Always and Auto are
// Shared (both services use the one shared cache of their template), Never is Dedicated (a cache of the
// service's own, owned by it). Each service waits for its cache before it gets an InferenceService.
func TestCachingModesAsAimEngineGivesThem(t *testing.T) {
	k := admin(t)
	readyClusterTemplate(t, "e2e-cache-modes")
	ns := namespace(t, "cache-modes")
	for name, mode := range map[string]string{"always": "Always", "auto": "Auto", "never": "Never"} {
		applyService(t, ns, name, fmt.Sprintf("model: {name: e2e-cache-modes-model}, caching: {mode: %s}", mode))
	}
	eventually(t, 60*time.Second, "one shared cache and never's dedicated one", func() error {
		caches := strings.Fields(k.must("get", "aimtc", "-n", ns, "-o",
			`jsonpath={range .items[*]}{.spec.mode}:{.metadata.ownerReferences[*].kind}/{.metadata.ownerReferences[*].name}{"\n"}{end}`))
		slices.Sort(caches)
		if want := []string{"Dedicated:AIMService/never", "Shared:/"}; !slices.Equal(caches, want) {
			return fmt.Errorf("caches (mode:owner) %v, want %v", caches, want)
		}
		return nil
	})
	// CacheReady's reason follows the cache's status, as aim-engine's does: CacheNotReady while the cache is
	// Progressing, CacheCreating while it is Pending (or NotAvailable, Degraded).
	cacheWait := regexp.MustCompile(`^False (CacheNotReady|CacheCreating) AIMTemplateCache \S+ is (Progressing|Pending|NotAvailable|Degraded)$`)
	reasonOf := map[string]string{"Progressing": "CacheNotReady", "Pending": "CacheCreating", "NotAvailable": "CacheCreating", "Degraded": "CacheCreating"}
	for _, name := range []string{"always", "auto", "never"} {
		eventually(t, 60*time.Second, name+" waits for its cache", func() error {
			out := k.must("get", "aimsvc", name, "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="CacheReady")].status} `+
				`{.status.conditions[?(@.type=="CacheReady")].reason} {.status.conditions[?(@.type=="CacheReady")].message}`)
			m := cacheWait.FindStringSubmatch(out)
			if m == nil || m[1] != reasonOf[m[2]] {
				return fmt.Errorf("CacheReady %q", out)
			}
			return nil
		})
		if out, err := k.run("", "get", "inferenceservice", inferenceServiceName(ns, name), "-n", ns, "-o", "name"); err == nil {
			t.Errorf("%s: InferenceService before its cache is ready: %q", name, out)
		}
	}
}

// TestKServeInstalledAfterTheServer: a cluster that serves InferenceServices only after aim-apiserver has started
// (a GitOps tool applies KServe beside it, or KServe comes later) needs no restart: a service says what is
// missing, and gets its InferenceService once the CRD is established. aim-engine's controller exits and its pod
// restarts until the CRD exists.
func TestKServeInstalledAfterTheServer(t *testing.T) {
	k := admin(t)
	const crd = "customresourcedefinition/inferenceservices.serving.kserve.io"
	var def map[string]any
	must(t, json.Unmarshal([]byte(k.must("get", crd, "-o", "json")), &def))
	delete(def, "status")
	meta := def["metadata"].(map[string]any)
	for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"} {
		delete(meta, f)
	}
	manifest, err := json.Marshal(def)
	must(t, err)
	install := func() {
		if _, err := k.run("", "get", crd); err == nil {
			return
		}
		if out, err := k.run(string(manifest), "create", "-f", "-"); err != nil {
			t.Fatalf("installing the InferenceService CRD again: %v\n%s", err, out)
		}
		// kubectl wait fails at once on a CRD without conditions yet.
		jsonpathEquals(t, 60*time.Second, "True", crd, "-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`)
	}
	t.Cleanup(install) // the other tests need it

	k.must("delete", crd, "--timeout=120s")
	// aim-apiserver starts on a cluster without KServe.
	h := harness(t)
	h.stop(t)
	h.restart(t)

	readyClusterTemplate(t, "e2e-late-kserve")
	ns := namespace(t, "late-kserve")
	applyService(t, ns, "chat", "model: {name: e2e-late-kserve-model}")
	isvcReady := `jsonpath={.status.conditions[?(@.type=="InferenceServiceReady")].status} {.status.conditions[?(@.type=="InferenceServiceReady")].reason}`
	jsonpathEquals(t, 60*time.Second, "False KServeNotInstalled", "aimsvc", "chat", "-n", ns, "-o", isvcReady)

	installed := time.Now()
	install()
	downloadCaches(t, ns, 1)
	objectJSON(t, 60*time.Second, "inferenceservice", inferenceServiceName(ns, "chat"), ns)
	t.Logf("InferenceService made %s after the CRD was created", time.Since(installed).Round(time.Second))
	eventually(t, 30*time.Second, "InferenceServiceReady past KServeNotInstalled", func() error {
		if got := k.must("get", "aimsvc", "chat", "-n", ns, "-o", isvcReady); strings.HasSuffix(got, " KServeNotInstalled") || got == " " {
			return fmt.Errorf("InferenceServiceReady %q", got)
		}
		return nil
	})
}
