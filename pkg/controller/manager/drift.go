package manager

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Drifted reports whether live no longer holds what applied (the JSON of the last server-side apply) sets: a
// field changed or removed by hand. Fields others added (defaults, webhooks, other managers) are not drift.
func Drifted(live map[string]any, applied []byte) (bool, error) {
	var want map[string]any
	if err := json.Unmarshal(applied, &want); err != nil {
		return false, fmt.Errorf("reading an applied object: %w", err)
	}
	return !Holds(live, want), nil
}

// Holds reports whether live holds every field of want with its value. A null or an empty object in want
// claims nothing (a typed object marshals its zero values so); lists are compared element by element, and
// numbers by value whether they were decoded as integers or floats.
func Holds(live, want any) bool { return HoldsWith(live, want, sameValue) }

// HoldsWith is Holds with another comparison of values (the leaves of want).
func HoldsWith(live, want any, same func(live, want any) bool) bool {
	switch w := want.(type) {
	case nil:
		return true
	case map[string]any:
		l, _ := live.(map[string]any)
		for k, v := range w {
			if !HoldsWith(l[k], v, same) {
				return false
			}
		}
		return true
	case []any:
		l, ok := live.([]any)
		if !ok || len(l) != len(w) {
			return false
		}
		for i := range w {
			if !HoldsWith(l[i], w[i], same) {
				return false
			}
		}
		return true
	}
	return same(live, want)
}

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
