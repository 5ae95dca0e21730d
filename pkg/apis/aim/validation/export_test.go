package validation

import (
	"fmt"
	"sort"
)

// TableObjects are the objects of every rule table, for the schema test of the external test package.
func TableObjects() []TableObject {
	var out []TableObject
	tables := allTables()
	names := make([]string, 0, len(tables))
	for name := range tables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for i, tb := range tables[name] {
			out = append(out, tb.objects(fmt.Sprintf("%s/%d", name, i))...)
		}
	}
	return out
}
