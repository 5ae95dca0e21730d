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

// tableConvertor prints the kind's columns between NAME and AGE, for `kubectl get` and `-o wide`.
type tableConvertor struct {
	columns     []Column
	definitions []metav1.TableColumnDefinition
}

var _ rest.TableConvertor = &tableConvertor{}

var swaggerMeta = metav1.ObjectMeta{}.SwaggerDoc()

func newTableConvertor(columns []Column) *tableConvertor {
	defs := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: swaggerMeta["name"]},
	}
	for _, c := range columns {
		defs = append(defs, c.Definition)
	}
	defs = append(defs, metav1.TableColumnDefinition{Name: "Age", Type: "date", Description: swaggerMeta["creationTimestamp"]})
	return &tableConvertor{columns: columns, definitions: defs}
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
		return append(cells, age), nil
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

// cellValue prints empty values the way kubectl prints missing ones.
func cellValue(v any) any {
	switch x := v.(type) {
	case nil:
		return "<none>"
	case string:
		if x == "" {
			return "<none>"
		}
	}
	return v
}
