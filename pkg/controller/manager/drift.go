package manager

import (
	"reflect"
	"strconv"
)

// Drift names the first field that live no longer holds as applied (the body of the last server-side apply,
// as a map) sets it: a field changed or removed by hand. It is "" when live holds everything. Fields others
// added (defaults, webhooks, other managers) are not drift.
func Drift(live, applied map[string]any) string {
	return missing(live, applied, "", sameValue)
}

// HoldsWith reports whether live holds every field of want, comparing the leaves of want with same.
func HoldsWith(live, want any, same func(live, want any) bool) bool {
	return missing(live, want, "", same) == ""
}

// missing is the path of the first field of want that live does not hold with its value (by same), or "".
// A null or an empty object in want claims nothing (a typed object marshals its zero values so); lists are
// compared element by element.
func missing(live, want any, path string, same func(live, want any) bool) string {
	switch w := want.(type) {
	case nil:
		return ""
	case map[string]any:
		l, _ := live.(map[string]any)
		for k, v := range w {
			if p := missing(l[k], v, join(path, k), same); p != "" {
				return p
			}
		}
		return ""
	case []any:
		l, ok := live.([]any)
		if !ok || len(l) != len(w) {
			return path
		}
		for i := range w {
			if p := missing(l[i], w[i], path+"["+strconv.Itoa(i)+"]", same); p != "" {
				return p
			}
		}
		return ""
	}
	if !same(live, want) {
		return path
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
