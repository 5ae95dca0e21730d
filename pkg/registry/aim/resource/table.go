package resource

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metatable "k8s.io/apimachinery/pkg/api/meta/table"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
)

// tableConvertor prints the kind's columns after NAME and, unless the kind drops it, before AGE, for `kubectl
// get` and `-o wide`.
type tableConvertor struct {
	columns     []Column
	age         bool
	definitions []metav1.TableColumnDefinition
}

var _ rest.TableConvertor = &tableConvertor{}

var swaggerMeta = metav1.ObjectMeta{}.SwaggerDoc()

func newTableConvertor(columns []Column, age bool) *tableConvertor {
	defs := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: swaggerMeta["name"]},
	}
	for _, c := range columns {
		defs = append(defs, c.Definition)
	}
	if age {
		defs = append(defs, metav1.TableColumnDefinition{Name: "Age", Type: "date", Description: swaggerMeta["creationTimestamp"]})
	}
	return &tableConvertor{columns: columns, age: age, definitions: defs}
}

func (c *tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || !opts.NoHeaders {
		table.ColumnDefinitions = c.definitions
	}
	var err error
	table.Rows, err = metatable.MetaToTableRow(obj, func(obj runtime.Object, _ metav1.Object, name, age string) ([]any, error) {
		cells := make([]any, 0, len(c.columns)+2)
		cells = append(cells, name)
		for _, col := range c.columns {
			cells = append(cells, cellValue(col.Cell(obj)))
		}
		if c.age {
			cells = append(cells, age)
		}
		return cells, nil
	})
	if err != nil {
		return nil, fmt.Errorf("building table rows: %w", err)
	}
	if m, err := meta.ListAccessor(obj); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
		table.Continue = m.GetContinue()
		table.RemainingItemCount = m.GetRemainingItemCount()
	} else if m, err := meta.CommonAccessor(obj); err == nil {
		table.ResourceVersion = m.GetResourceVersion()
	}
	return table, nil
}

// cellValue is an empty value as the CRD server's table has a missing one: null, which kubectl prints as
// <none>.
func cellValue(v any) any {
	if v == "" {
		return nil
	}
	return v
}
