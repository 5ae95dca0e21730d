package reconcile

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
)

// Drift names the first field that live no longer holds as applied (the body of the last server-side apply,
// as a map) sets it: a field changed or removed by hand. It is "" when live holds everything. Fields and list
// elements others added (defaults, webhooks, other managers) are not drift.
func Drift(live, applied map[string]any) string {
	// apiVersion and kind say what the object is, not a field it holds; a typed informer's cached objects lack
	// them (its decoder drops them), so comparing them would see drift at every reconcile.
	fields := make(map[string]any, len(applied))
	for k, v := range applied {
		if k != "apiVersion" && k != "kind" {
			fields[k] = v
		}
	}
	c := comparison{same: sameValue}
	if c.missing(live, fields, "") == "" {
		return ""
	}
	// Name the first field in key order, so that the same drift is always reported the same way; only a
	// drifted object pays for sorting.
	c.sorted = true
	return c.missing(live, fields, "")
}

// HoldsWith reports whether live holds every field of want, comparing the leaves of want with same and lists
// element by element (as a copy holds its original: no element more or less).
func HoldsWith(live, want any, same func(live, want any) bool) bool {
	return comparison{same: same, exactLists: true}.missing(live, want, ".") == ""
}

type comparison struct {
	same func(live, want any) bool
	// exactLists compares lists position by position; else live may hold other writers' elements besides.
	exactLists bool
	// sorted walks objects' fields in key order.
	sorted bool
}

// missing is the path of the first field of want that live does not hold with its value (by same), or "".
// A null or an empty object in want claims nothing (a typed object marshals its zero values so). A list holds
// want's elements when each is held by an element of its own: matched by name where every element of want has
// one (containers, env, volumes, ports: lists keyed by name), else in order. Elements live has besides are
// another writer's (a sidecar a webhook added, a toleration of another controller) and left alone: an apply
// would not remove them from a keyed list, and counting them as drift would re-apply at every reconcile.
func (c comparison) missing(live, want any, path string) string {
	switch w := want.(type) {
	case nil:
		return ""
	case map[string]any:
		l, _ := live.(map[string]any)
		keys := maps.Keys(w)
		if c.sorted {
			keys = slices.Values(slices.Sorted(keys))
		}
		for k := range keys {
			if p := c.missing(l[k], w[k], join(path, k)); p != "" {
				return p
			}
		}
		return ""
	case []any:
		l, ok := live.([]any)
		switch {
		case !ok || c.exactLists && len(l) != len(w):
			return path
		case c.exactLists:
			for i := range w {
				if p := c.missing(l[i], w[i], path+"["+strconv.Itoa(i)+"]"); p != "" {
					return p
				}
			}
			return ""
		}
		if names, ok := elementNames(w); ok {
			return c.missingByName(l, w, names, path)
		}
		return c.missingInOrder(l, w, path)
	}
	if !c.same(live, want) {
		return path
	}
	return ""
}

// elementNames are the names of a list's elements when every element is an object with a distinct string name.
func elementNames(list []any) ([]string, bool) {
	names := make([]string, len(list))
	seen := make(map[string]bool, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		name, ok := m["name"].(string)
		if !ok || seen[name] {
			return nil, false
		}
		names[i], seen[name] = name, true
	}
	return names, len(list) > 0
}

func (c comparison) missingByName(live, want []any, names []string, path string) string {
	for i, w := range want {
		var match any
		for _, e := range live {
			if m, ok := e.(map[string]any); ok && m["name"] == names[i] {
				match = e
				break
			}
		}
		elem := path + "[name=" + names[i] + "]"
		if match == nil {
			return elem
		}
		if p := c.missing(match, w, elem); p != "" {
			return p
		}
	}
	return ""
}

// missingInOrder: want's elements are held by elements of live in the same order, others' elements between
// them or after. The earliest match is taken for each, which finds such an order whenever one exists.
func (c comparison) missingInOrder(live, want []any, path string) string {
	next := 0
	for i, w := range want {
		found := false
		for ; next < len(live) && !found; next++ {
			found = c.missing(live[next], w, path+"[*]") == ""
		}
		if !found {
			// Name the field of want's element at its own position, when live has one there.
			elem := path + "[" + strconv.Itoa(i) + "]"
			if i < len(live) {
				if p := c.missing(live[i], w, elem); p != "" {
					return p
				}
			}
			return elem
		}
	}
	return ""
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// sameValue compares numbers by value whether they were decoded as integers or floats, and anything else as
// it is.
func sameValue(live, want any) bool {
	if a, ok := number(live); ok {
		b, ok := number(want)
		return ok && a == b
	}
	return reflect.DeepEqual(live, want)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
