package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// warnings collects the warnings of the responses a client receives.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

// warningConfig is the shared server's client config with a handler that keeps the warnings of the responses.
func warningConfig() (*rest.Config, *warnings) {
	seen := &warnings{}
	cfg := rest.CopyConfig(shared.Config)
	cfg.WarningHandler = seen
	return cfg, seen
}

// warningDynamic is a dynamic client of the shared server that keeps the warnings of its responses.
func warningDynamic(t *testing.T) (dynamic.Interface, *warnings) {
	t.Helper()
	cfg, seen := warningConfig()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn, seen
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// acceptedCase is an object (or a change) aim-engine's CRD schemas accept, what aim-apiserver decided for it and
// why. Every case is accepted here; warning is the field the response's warning must name (what cannot work as
// written, or what changes what runs).
type acceptedCase struct {
	name     string
	resource string
	// object is created; update, when set, is then applied to it as a second write.
	object, update string
	decision       string
	warning        string
}

// The categories aim-engine accepts and aim-apiserver refused (issue: 79 of 648 valid edge-case objects). Each is
// accepted now, as aim-engine accepts it, with a warning where the object cannot work as written or a change alters
// what runs; docs/compatibility.md ("Accepted as aim-engine accepts it") has the same rows.
var acceptedCases = []acceptedCase{
	{name: "CPU requests above limits in resources", resource: "aimservices",
		object:   `{"metadata":{"name":"res"},"spec":{"model":{"name":"m"},"resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"1"}}}}`,
		decision: "accept with a warning: kube-apiserver refuses the pod, not the object; aim-engine's schema has no such rule",
		warning:  "spec.resources.requests[cpu]: 1500m is more than limits[cpu] 1"},
	{name: "CPU in overrides.hardware", resource: "aimservices",
		object:   `{"metadata":{"name":"ovr"},"spec":{"model":{"name":"m"},"overrides":{"hardware":{"cpu":{"requests":"1.5","limits":"1"}}}}}`,
		decision: "accept with a warning: the derived template keeps the base template's resources, so the pods never get this CPU",
		warning:  "spec.overrides.hardware.cpu: not applied to the predictor's pods"},
	{name: "CPU limit below requests in a service's custom model", resource: "aimservices",
		object: `{"metadata":{"name":"cust"},"spec":{"model":{"custom":{"baseImage":"ghcr.io/silogen/aim-base:0.7.0",
			"modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m"}],"hardware":{"cpu":{"requests":"2","limits":"1"}}}}}}`,
		decision: "accept with a warning, as for resources", warning: "spec.model.custom.hardware.cpu.requests: 2 is more than limits 1"},
	{name: "CPU in hardware of a template", resource: "aimservicetemplates",
		object:   `{"metadata":{"name":"tpl"},"spec":{"modelName":"m","hardware":{"cpu":{"requests":"4","limits":"2"}}}}`,
		decision: "accept with a warning: the InferenceService takes the template's resources, as aim-engine's, not its hardware.cpu",
		warning:  "spec.hardware.cpu: not applied to pods"},
	{name: "CPU limit below requests in a model's custom.hardware and customTemplates", resource: "aimmodels",
		object: `{"metadata":{"name":"mdl"},"spec":{"image":"registry.example/aim/m:1","imageMetadata":{"model":{"canonicalName":"Org/M"}},
			"modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m"}],"custom":{"hardware":{"cpu":{"requests":"2","limits":"1"}}},
			"customTemplates":[{"hardware":{"cpu":{"requests":"3","limits":"1"}}}]}}`,
		decision: "accept with a warning, as for resources", warning: "spec.customTemplates[0].hardware.cpu.requests: 3 is more than limits 1"},
	{name: "spec.template added after creation", resource: "aimservices",
		object:   `{"metadata":{"name":"add-tpl"},"spec":{"model":{"name":"m"}}}`,
		update:   `{"spec":{"template":{"name":"t"}}}`,
		decision: "accept: aim-engine's self == oldSelf rule skips a field the old object lacks; the user named the template, the warning says the service moves to it",
		warning:  "spec.template.name: added after creation"},
	{name: "spec.template removed after creation", resource: "aimservices",
		object:   `{"metadata":{"name":"rm-tpl"},"spec":{"model":{"name":"m"},"template":{"name":"t"}}}`,
		update:   `{"spec":{"template":null}}`,
		decision: "accept: as aim-engine; the service selects a template automatically, which the warning says",
		warning:  "spec.template.name: removed after creation"},
	{name: "spec.caching added after creation", resource: "aimservices",
		object:   `{"metadata":{"name":"add-caching"},"spec":{"model":{"name":"m"}}}`,
		update:   `{"spec":{"caching":{"mode":"Dedicated"}}}`,
		decision: "accept: as for the template; an absent caching is no longer defaulted (aim-engine does not default it), so adding one is not a change",
		warning:  "spec.caching: the caching mode changes from Shared to Dedicated after creation"},
	{name: "minReplicas above maxReplicas", resource: "aimservices",
		object:   `{"metadata":{"name":"minmax"},"spec":{"model":{"name":"m"},"minReplicas":3,"maxReplicas":2}}`,
		decision: "accept with a warning: aim-engine has no rule; KServe refuses the InferenceService and the service reports it",
		warning:  "spec.maxReplicas: 2 is less than minReplicas 3"},
	{name: "Resources beside the per-GPU defaults", resource: "aimservicetemplates",
		object:   `{"metadata":{"name":"gpu-mem"},"spec":{"modelName":"m","hardware":{"gpu":{"requests":1}},"resources":{"limits":{"memory":"16Gi"}}}}`,
		decision: "accept with a warning: aim-engine lays the same per-GPU defaults under the template's resources, so the pod requests 32Gi against a 16Gi limit and is refused",
		warning:  "spec.resources.limits[memory]: 16Gi is less than 32Gi, the predictor's default requests[memory] for 1 GPU"},
	{name: "modelSources without hardware or custom templates", resource: "aimmodels",
		object: `{"metadata":{"name":"nohw"},"spec":{"image":"registry.example/aim/m:1","imageMetadata":{"model":{"canonicalName":"Org/M"}},
			"modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m"}]}}`,
		decision: "accept with a warning: aim-engine's rule requires hardware only for custom templates without it; the template made for the sources requests no GPU",
		warning:  "spec.custom.hardware: not set"},
}

// TestAcceptsWhatAimEngineAccepts: every category is stored (201, then 200 for a change) and its warning names the
// field, and docs/compatibility.md names the decision.
func TestAcceptsWhatAimEngineAccepts(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	dyn, seen := warningDynamic(t)
	compat, err := os.ReadFile(filepath.Join("..", "..", "docs", "compatibility.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range acceptedCases {
		t.Run(tc.name, func(t *testing.T) {
			u := aimObject(t, tc.resource, tc.object)
			client := dyn.Resource(aimv1.SchemeGroupVersion.WithResource(tc.resource)).Namespace(ns)
			seen.take()
			if _, err := client.Create(c, u, metav1.CreateOptions{}); err != nil {
				t.Fatalf("refused (%s): %v", tc.decision, err)
			}
			if tc.update != "" {
				seen.take()
				if _, err := client.Patch(c, u.GetName(), "application/merge-patch+json", []byte(tc.update), metav1.PatchOptions{}); err != nil {
					t.Fatalf("the change is refused (%s): %v", tc.decision, err)
				}
			}
			got := seen.take()
			if !strings.Contains(strings.Join(got, "\n"), tc.warning) {
				t.Errorf("warnings %q lack %q", got, tc.warning)
			}
			if !strings.Contains(string(compat), tc.name) {
				t.Errorf("docs/compatibility.md has no row naming %q", tc.name)
			}
		})
	}
	// A change of a field both objects have stays refused, as in aim-engine.
	client := dyn.Resource(schema.GroupVersionResource{Group: "aim.eai.amd.com", Version: "v1alpha1", Resource: "aimservices"}).Namespace(ns)
	_, err = client.Patch(c, "rm-tpl", "application/merge-patch+json", []byte(`{"spec":{"template":{"name":"a"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Patch(c, "rm-tpl", "application/merge-patch+json", []byte(`{"spec":{"template":{"name":"b"}}}`), metav1.PatchOptions{})
	if code := statusCode(t, err); code != 422 || !strings.Contains(err.Error(), "spec.template") {
		t.Errorf("changing the template: %d %v", code, err)
	}
}

// TestDefaultsDrawNoWarning: advice is given on the object as defaulted, so a value the defaults put there must
// not be warned of as if the user had written it. Each manifest is one aim-engine's docs or a user write (the
// first is aim-engine's "Basic Autoscaling" example); the runtime config and model it names exist, so that the
// response carries only advice.
func TestDefaultsDrawNoWarning(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	dyn, seen := warningDynamic(t)
	for _, tc := range []struct{ name, resource, object string }{
		{"the model", "aimmodels", `{"metadata":{"name":"m"},"spec":{"image":"registry.example/aim/m:1",
			"discovery":{"createServiceTemplates":false},"imageMetadata":{"model":{"canonicalName":"Org/M"}}}}`},
		{"autoscaling by minReplicas and maxReplicas", "aimservices", `{"metadata":{"name":"auto"},"spec":{"model":{"name":"m"},"minReplicas":1,"maxReplicas":4}}`},
		{"a storage class for the service's caches", "aimservices", `{"metadata":{"name":"class"},"spec":{"model":{"name":"m"},"storage":{"defaultStorageClassName":"fast"}}}`},
	} {
		seen.take()
		if _, err := dyn.Resource(aimv1.SchemeGroupVersion.WithResource(tc.resource)).Namespace(ns).
			Create(c, aimObject(t, tc.resource, tc.object), metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := seen.take(); len(got) != 0 {
			t.Errorf("%s: warnings %q, want none", tc.name, got)
		}
	}
}

// aimObject is the AIM object of resource written as JSON without apiVersion and kind.
func aimObject(t *testing.T, resource, object string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(object), &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetAPIVersion(aimv1.SchemeGroupVersion.String())
	u.SetKind(wantResources[resource].kind)
	return u
}
