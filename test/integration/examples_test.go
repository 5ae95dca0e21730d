package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// refusedExample is an example of aim-engine's documentation that aim-apiserver refuses: field is the path its
// 422 names, why says whether aim-engine refuses it too (and by which rule of its CRDs), or which row of
// docs/compatibility.md records the difference.
type refusedExample struct{ field, why string }

// refusedExamples are keyed by the example's source and line.
var refusedExamples = map[string]refusedExample{
	"docs/docs/concepts/models.md:324": {"metadata.name",
		"a placeholder name, auto-<hash-of-image>: every API server refuses it"},
	"docs/docs/concepts/models.md:580": {"spec.model.custom.baseImage",
		"aim-engine refuses it too: its CRD requires custom.baseImage"},
	"docs/docs/concepts/runtime-config.md:304": {"spec.model",
		"aim-engine refuses it too: spec.model.ref is no field, and its rule wants exactly one of name, image or custom"},
	"docs/docs/concepts/caching.md:114": {"spec.model",
		"aim-engine refuses it too: spec.model.ref is no field, and its rule wants exactly one of name, image or custom"},
	"docs/docs/concepts/caching.md:131": {"spec.templateScope",
		"aim-engine refuses it too: its CRD requires templateScope"},
	"docs/docs/concepts/templates.md:159": {"spec.modelSources[0].modelId",
		"aim-engine refuses it too: its CRD requires modelId and sourceUri (the example writes name and sourceURI)"},
	// kubebuilder's empty samples, `spec:` with only a comment: compatibility.md, row "An object with a null or
	// missing spec".
	"config/samples/aim_v1alpha1_aimartifact.yaml:1":               {"spec.sourceUri", emptySample},
	"config/samples/aim_v1alpha1_aimclustermodel.yaml:1":           {"spec.image", emptySample},
	"config/samples/aim_v1alpha1_aimmodel.yaml:1":                  {"spec.image", emptySample},
	"config/samples/aim_v1alpha1_aimclusterservicetemplate.yaml:1": {"spec.modelName", emptySample},
	"config/samples/aim_v1alpha1_aimservicetemplate.yaml:1":        {"spec.modelName", emptySample},
	"config/samples/aim_v1alpha1_aimservice.yaml:1":                {"spec.model", emptySample},
	"config/samples/aim_v1alpha1_aimtemplatecache.yaml:1":          {"spec.templateName", emptySample},
}

const emptySample = "aim-engine stores it without a spec (its CRD prunes the null): compatibility.md, row \"An object with a null or missing spec\""

// example is one object of aim-engine's docs or samples, named by its source and line.
type example struct {
	source string
	object map[string]any
}

// aimEngineExamples reads testdata/aim-engine-examples (hack/aim-engine-examples wrote it).
func aimEngineExamples(t *testing.T) []example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "aim-engine-examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in testdata/aim-engine-examples: %v", err)
	}
	var examples []example
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(data), -1) {
			m := regexp.MustCompile(`(?m)^# ((?:docs|config|README|tests)\S*:\d+)$`).FindStringSubmatch(doc)
			if m == nil {
				t.Fatalf("%s: a document without its source line:\n%s", f, doc)
			}
			e := example{source: m[1]}
			if err := yaml.Unmarshal([]byte(doc), &e.object); err != nil {
				t.Fatalf("%s: %v", e.source, err)
			}
			examples = append(examples, e)
		}
	}
	return examples
}

// TestAimEngineExamples writes every AIM object of aim-engine's documentation, samples and end-to-end tests, as a
// user copying them would, with a create and with a server-side apply: each is stored, or refused with the field
// path that refusedExamples names, and a stored object reads back with every field the manifest sets (readsBack).
func TestAimEngineExamples(t *testing.T) {
	c, ns := ctx(t), namespace(t)
	dyn, seen := warningDynamic(t)
	examples := aimEngineExamples(t)
	for source := range refusedExamples {
		if !slices.ContainsFunc(examples, func(e example) bool { return e.source == source }) {
			t.Errorf("refusedExamples names %s, which is no example", source)
		}
	}
	if compat, err := os.ReadFile(filepath.Join("..", "..", "docs", "compatibility.md")); err != nil ||
		!strings.Contains(string(compat), "| An object with a null or missing `spec`") {
		t.Errorf("docs/compatibility.md has no row \"An object with a null or missing spec\" (%v)", err)
	}
	// Each example is written twice: with a create (field validation left to the server's default, Warn), and as
	// GitOps tools do, with a server-side apply, which reads the object through the published schema. The create
	// drops a field the schema does not declare, with a warning, and so does a CRD; the apply refuses it with 400
	// naming the field, where kube-apiserver answers 500 (compatibility.md, row "Server-side apply of a field the
	// schema does not declare").
	create := func(r dynamic.ResourceInterface, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return r.Create(c, u, metav1.CreateOptions{})
	}
	apply := func(r dynamic.ResourceInterface, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return r.Apply(c, u.GetName(), u, metav1.ApplyOptions{FieldManager: "examples"})
	}
	for i, e := range examples {
		t.Run(e.source, func(t *testing.T) {
			u, got, warned, err := writeExample(t, e, fmt.Sprintf("%d", i), ns, dyn, seen, create)
			unknown := unknownFields(warned)
			storedOrRefused(t, e.source, "create", u, got, err, unknown)

			u, got, _, err = writeExample(t, e, fmt.Sprintf("%d-ssa", i), ns, dyn, seen, apply)
			if len(unknown) == 0 {
				storedOrRefused(t, e.source, "apply", u, got, err, nil)
				if err == nil {
					// GitOps tools apply the same manifest again and again: a second apply changes nothing.
					_, again, _, err := writeExample(t, e, fmt.Sprintf("%d-ssa", i), ns, dyn, seen, apply)
					if err != nil {
						t.Errorf("the same apply again: %v", err)
					} else if again.GetResourceVersion() != got.GetResourceVersion() {
						t.Errorf("the same apply again wrote the object: resourceVersion %s, was %s", again.GetResourceVersion(), got.GetResourceVersion())
					}
				}
				return
			}
			// structured-merge-diff names the first unknown field of each object.
			if !apierrors.IsBadRequest(err) || !slices.ContainsFunc(unknown, func(f string) bool {
				return strings.Contains(err.Error(), "."+f+": field not declared in schema")
			}) {
				t.Errorf("apply: want a 400 naming one of the unknown fields %q, got %v", unknown, err)
			}
		})
	}
}

// storedOrRefused checks a write of an example: refused with the field refusedExamples names, or stored with
// every field it sets but the unknown ones (readsBack).
func storedOrRefused(t *testing.T, source, write string, sent, stored *unstructured.Unstructured, err error, unknown []string) {
	t.Helper()
	want, refused := refusedExamples[source]
	switch {
	case refused:
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want.field) {
			t.Fatalf("%s: want a 422 naming %s (%s), got %v", write, want.field, want.why, err)
		}
	case err != nil:
		t.Fatalf("%s refused: %v", write, err)
	default:
		readsBack(t, sent.Object, stored.Object, unknown)
	}
}

// writeExample writes an example under its name with a suffix (examples share names: qwen-chat in ml-team), a
// namespaced one in ns, and returns what it sent, what the server stored, and the warnings of the response.
func writeExample(t *testing.T, e example, suffix, ns string, dyn dynamic.Interface, seen *warnings,
	write func(dynamic.ResourceInterface, *unstructured.Unstructured) (*unstructured.Unstructured, error),
) (sent, stored *unstructured.Unstructured, warned []string, err error) {
	sent = (&unstructured.Unstructured{Object: e.object}).DeepCopy()
	sent.SetName(sent.GetName() + "-" + suffix)
	gvr, namespaced := resourceFor(t, sent.GetKind())
	var client dynamic.ResourceInterface = dyn.Resource(gvr)
	if namespaced {
		sent.SetNamespace(ns)
		client = dyn.Resource(gvr).Namespace(ns)
	}
	seen.take()
	stored, err = write(client, sent.DeepCopy())
	return sent, stored, seen.take(), err
}

// unknownFields are the fields that warnings name as unknown to the schema.
func unknownFields(warnings []string) []string {
	var unknown []string
	for _, w := range warnings {
		if m := regexp.MustCompile(`^unknown field "(.*)"$`).FindStringSubmatch(w); m != nil {
			unknown = append(unknown, m[1])
		}
	}
	return unknown
}

// readsBack checks that every field a manifest sets reads back from the stored object, but the unknown fields
// (which a CRD prunes too) and nulls (which set nothing).
func readsBack(t *testing.T, manifest, stored map[string]any, unknown []string) {
	t.Helper()
	back := leaves(stored, "")
	for path, value := range leaves(manifest, "") {
		// A create sets no status (the status subresource does), as for a CRD.
		if value == nil || strings.HasPrefix(path, "status.") || slices.ContainsFunc(unknown, func(u string) bool {
			return path == u || strings.HasPrefix(path, u+".") || strings.HasPrefix(path, u+"[")
		}) {
			continue
		}
		if got, ok := back[path]; !ok || fmt.Sprint(got) != fmt.Sprint(value) {
			t.Errorf("%s: set to %v, reads back %v (present: %t)", path, value, got, ok)
		}
	}
}

// leaves flattens an object into its leaf values by field path (spec.env[0].name).
func leaves(v any, path string) map[string]any {
	out := map[string]any{}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			for lp, lv := range leaves(x, p) {
				out[lp] = lv
			}
		}
	case []any:
		for i, x := range v {
			for lp, lv := range leaves(x, fmt.Sprintf("%s[%d]", path, i)) {
				out[lp] = lv
			}
		}
	default:
		out[path] = v
	}
	return out
}
