package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
			m := regexp.MustCompile(`(?m)^# ((?:docs|config|README)\S*:\d+)$`).FindStringSubmatch(doc)
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

// TestAimEngineExamples creates every AIM object of aim-engine's documentation and samples, as a user copying
// them would: each is stored, or refused with the field path that refusedExamples names, and a stored object
// reads back with every field the manifest sets, but those the response warned about as unknown (which a CRD
// prunes too).
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
	stored := 0
	for i, e := range examples {
		t.Run(e.source, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: e.object}
			gvr := schema.GroupVersionResource{Group: "aim.eai.amd.com", Version: "v1alpha1", Resource: strings.ToLower(u.GetKind()) + "s"}
			// Examples share names (qwen-chat in ml-team): each gets its own.
			u.SetName(fmt.Sprintf("%s-%d", u.GetName(), i))
			var client dynamic.ResourceInterface = dyn.Resource(gvr)
			if !strings.HasPrefix(u.GetKind(), "AIMCluster") {
				u.SetNamespace(ns)
				client = dyn.Resource(gvr).Namespace(ns)
			}
			seen.take()
			got, err := client.Create(c, u.DeepCopy(), metav1.CreateOptions{})
			want, refused := refusedExamples[e.source]
			if refused {
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want.field) {
					t.Fatalf("want a 422 naming %s (%s), got %v", want.field, want.why, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			stored++
			var unknown []string
			for _, w := range seen.take() {
				if m := regexp.MustCompile(`^unknown field "(.*)"$`).FindStringSubmatch(w); m != nil {
					unknown = append(unknown, m[1])
				}
			}
			for path, value := range leaves(e.object, "") {
				if value == nil { // a null sets nothing: a CRD prunes it too
					continue
				}
				if slices.ContainsFunc(unknown, func(u string) bool {
					return path == u || strings.HasPrefix(path, u+".") || strings.HasPrefix(path, u+"[")
				}) {
					continue
				}
				if back, ok := leaves(got.Object, "")[path]; !ok || !reflect.DeepEqual(fmt.Sprint(back), fmt.Sprint(value)) {
					t.Errorf("%s: set to %v, reads back %v (present: %t)", path, value, back, ok)
				}
			}
		})
	}
	if stored < len(examples)/2 {
		t.Errorf("only %d of %d examples were stored", stored, len(examples))
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
