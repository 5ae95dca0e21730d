package resource_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimartifact"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclustermodel"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclustermodelsource"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclusterruntimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimclusterservicetemplate"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimmodel"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimruntimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimservice"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimservicetemplate"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/aimtemplatecache"
	"github.com/aim-apiserver/aim-apiserver/pkg/registry/aim/resource"
)

// aimEngineCRDs are aim-engine's CRDs, which the apiserver package's schema test also reads.
var aimEngineCRDs = filepath.Join("..", "..", "..", "apiserver", "testdata", "aim-engine")

// additionalColumns are the columns aim-apiserver prints beyond aim-engine's, by kind.
var additionalColumns = map[string][]string{
	"AIMService":              {"Endpoint"},
	"AIMRuntimeConfig":        {"Status", "Consumers"},
	"AIMClusterRuntimeConfig": {"Status", "Consumers"},
}

// column is what kubectl makes of a column definition.
type column struct {
	Name, Type, Format string
	Priority           int32
}

// TestColumnsMatchAimEngine checks that every kind prints the columns of its aim-engine CRD, in its order, with
// its types and priorities, plus only additionalColumns. The CRD server prints NAME, then the declared
// columns, or AGE alone when a CRD declares none.
func TestColumnsMatchAimEngine(t *testing.T) {
	ours := map[string]kindTable{}
	for kind, c := range map[string]func() (kindTable, error){
		"AIMArtifact":               convertor(aimartifact.Definition()),
		"AIMClusterModel":           convertor(aimclustermodel.Definition()),
		"AIMClusterModelSource":     convertor(aimclustermodelsource.Definition()),
		"AIMClusterRuntimeConfig":   convertor(aimclusterruntimeconfig.Definition()),
		"AIMClusterServiceTemplate": convertor(aimclusterservicetemplate.Definition()),
		"AIMModel":                  convertor(aimmodel.Definition()),
		"AIMRuntimeConfig":          convertor(aimruntimeconfig.Definition()),
		"AIMService":                convertor(aimservice.Definition()),
		"AIMServiceTemplate":        convertor(aimservicetemplate.Definition()),
		"AIMTemplateCache":          convertor(aimtemplatecache.Definition()),
	} {
		kt, err := c()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		ours[kind] = kt
	}

	files, err := filepath.Glob(filepath.Join(aimEngineCRDs, "*.yaml"))
	if err != nil || len(files) != len(ours) {
		t.Fatalf("%d aim-engine CRDs (%v), want one per kind: %d", len(files), err, len(ours))
	}
	for _, f := range files {
		kind, want := crdColumns(t, f)
		kt, ok := ours[kind]
		if !ok {
			t.Errorf("no table convertor for aim-engine's kind %s", kind)
			continue
		}
		table, err := kt.convertor.ConvertToTable(context.Background(), kt.object, nil)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if len(table.Rows) != 1 || len(table.Rows[0].Cells) != len(table.ColumnDefinitions) {
			t.Errorf("%s: rows %+v for %d columns", kind, table.Rows, len(table.ColumnDefinitions))
		}
		// An object that has none of the fields prints null in every column, as the CRD server does for fields
		// that JSON leaves out (omitempty strings and integers among them); kubectl shows <none>.
		for i, d := range table.ColumnDefinitions {
			if d.Name != "Name" && d.Name != "Age" && len(table.Rows) == 1 && table.Rows[0].Cells[i] != nil {
				t.Errorf("%s: column %s of an empty object is %#v, want null", kind, d.Name, table.Rows[0].Cells[i])
			}
		}
		var got, added []column
		for _, d := range table.ColumnDefinitions {
			c := column{Name: d.Name, Type: d.Type, Format: d.Format, Priority: d.Priority}
			if slices.Contains(additionalColumns[kind], d.Name) {
				added = append(added, c)
				continue
			}
			got = append(got, c)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s columns beside additionalColumns (-aim-engine +aim-apiserver):\n%s", kind, diff)
		}
		if len(added) != len(additionalColumns[kind]) {
			t.Errorf("%s: additionalColumns %v, printed %+v", kind, additionalColumns[kind], added)
		}
	}
}

// kindTable is a kind's table convertor and an object of the kind to print.
type kindTable struct {
	convertor rest.TableConvertor
	object    runtime.Object
}

func convertor[T resource.Object](def resource.Definition[T]) func() (kindTable, error) {
	return func() (kindTable, error) {
		tc, err := resource.NewTableConvertorForTest(def)
		obj := def.New()
		obj.SetName("x")
		return kindTable{convertor: tc, object: obj}, err
	}
}

// crdColumns reads a CRD's kind and the columns the CRD server prints for it.
func crdColumns(t *testing.T, file string) (string, []column) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Names    struct{ Kind string }
			Versions []struct {
				AdditionalPrinterColumns []column
			}
		}
	}
	if err := yaml.Unmarshal(data, &crd); err != nil || len(crd.Spec.Versions) != 1 {
		t.Fatalf("%s: %v, %d versions", file, err, len(crd.Spec.Versions))
	}
	cols := []column{{Name: "Name", Type: "string", Format: "name"}}
	declared := crd.Spec.Versions[0].AdditionalPrinterColumns
	if len(declared) == 0 {
		declared = []column{{Name: "Age", Type: "date"}}
	}
	return crd.Spec.Names.Kind, append(cols, declared...)
}
