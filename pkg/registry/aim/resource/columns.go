package resource

import (
	metatable "k8s.io/apimachinery/pkg/api/meta/table"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// StringColumn is a string column; wide columns (priority 1) show only with -o wide.
func StringColumn(name, description string, wide bool, cell func(runtime.Object) string) Column {
	return Column{
		Definition: metav1.TableColumnDefinition{Name: name, Type: "string", Description: description, Priority: priority(wide)},
		Cell:       func(obj runtime.Object) any { return cell(obj) },
	}
}

// IntegerColumn is an integer column of an omitempty field: zero prints as <none>, as the CRD server prints
// the field that JSON leaves out.
func IntegerColumn(name, description string, cell func(runtime.Object) int64) Column {
	return Column{
		Definition: metav1.TableColumnDefinition{Name: name, Type: "integer", Description: description},
		Cell: func(obj runtime.Object) any {
			if v := cell(obj); v != 0 {
				return v
			}
			return nil
		},
	}
}

// TimeColumn prints a timestamp as an age, like AGE.
func TimeColumn(name, description string, cell func(runtime.Object) *metav1.Time) Column {
	return Column{
		Definition: metav1.TableColumnDefinition{Name: name, Type: "date", Description: description},
		Cell: func(obj runtime.Object) any {
			t := cell(obj)
			if t == nil || t.IsZero() {
				return nil
			}
			return metatable.ConvertToHumanReadableDateType(*t)
		},
	}
}

func priority(wide bool) int32 {
	if wide {
		return 1
	}
	return 0
}
