// Package naming derives the names and label values of the objects the controllers create. Child names are
// aim-engine's, character for character: a cluster that aim-engine ran (or that `aim-apiserver migrate`
// moved over) holds children under those names, and the controllers must find them instead of creating
// second ones. The primitives below are therefore aim-engine's algorithms (MakeRFC1123Compliant,
// GenerateDerivedName and its hash), re-implemented from their observable behaviour.
package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// MaxLength is the length of a DNS label, the limit for most object names and every label value.
const MaxLength = 63

// HashLength is the number of hex digits of a derived name's hash unless a name says otherwise.
const HashLength = 8

// emptyPart stands in for a name part that sanitizes to nothing, so that parts keep their positions.
const emptyPart = "part"

// RFC1123Label makes a DNS label of s the way aim-engine does: lower case, every rune outside [a-z0-9-]
// replaced by one dash (runs are not collapsed: "hf://Qwen" becomes "hf---qwen"), dashes trimmed from both
// ends, cut to 63 bytes and trailing dashes trimmed again. It may return "".
func RFC1123Label(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > MaxLength {
		out = strings.TrimRight(out[:MaxLength], "-")
	}
	return out
}

// Hash is the first n hex digits of the SHA-256 of the inputs' JSON joined by "|", as aim-engine hashes the
// inputs of derived names: a string keeps its quotes, a nil input or nil slice is null, and map[string]string
// and map[string]any values (also inside []any) become flat [key, value, ...] arrays sorted by key, so that
// map order never changes a name. Everything else is marshalled as it is.
func Hash(n int, inputs ...any) string {
	encoded := make([]string, len(inputs))
	for i, in := range inputs {
		data, err := json.Marshal(sortedMaps(in))
		if err != nil {
			encoded[i] = fmt.Sprint(in) // aim-engine's fallback for values JSON cannot encode
			continue
		}
		encoded[i] = string(data)
	}
	sum := sha256.Sum256([]byte(strings.Join(encoded, "|")))
	return hex.EncodeToString(sum[:])[:n]
}

// sortedMaps replaces the string-keyed maps in v by their sorted key-value arrays.
func sortedMaps(v any) any {
	var m map[string]any
	switch v := v.(type) {
	case map[string]string:
		m = make(map[string]any, len(v))
		for k, x := range v {
			m[k] = x
		}
	case map[string]any:
		m = v
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = sortedMaps(x)
		}
		return out
	default:
		return v
	}
	out := make([]any, 0, 2*len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k, sortedMaps(m[k]))
	}
	return out
}

// DerivedName is aim-engine's GenerateDerivedName: the parts as RFC1123Label makes them (one that comes out
// empty becomes "part"), joined by dashes, then "-" and the first hashLength hex digits of Hash(hashInputs);
// without hash inputs there is no hash. While the name is longer than maxLength, the longest part (the first
// of equally long ones) loses its last byte and any dashes that end it, so every part keeps what it can and
// the hash stays whole; a name whose parts are all one character long is left as it is. parts must not be
// empty.
func DerivedName(parts []string, hashLength, maxLength int, hashInputs ...any) string {
	labels := make([]string, len(parts))
	for i, p := range parts {
		if labels[i] = RFC1123Label(p); labels[i] == "" {
			labels[i] = emptyPart
		}
	}
	suffix := ""
	if hashLength > 0 && len(hashInputs) > 0 {
		suffix = "-" + Hash(hashLength, hashInputs...)
	}
	length := len(suffix) - 1
	for _, l := range labels {
		length += len(l) + 1
	}
	for length > maxLength {
		longest := 0
		for i, l := range labels {
			if len(l) > len(labels[longest]) {
				longest = i
			}
		}
		l := labels[longest]
		if len(l) <= 1 {
			break
		}
		labels[longest] = strings.TrimRight(l[:len(l)-1], "-")
		length -= len(l) - len(labels[longest])
	}
	return strings.Join(labels, "-") + suffix
}

// SanitizedLabelValue makes a label value of any text, as aim-engine does: lower case, every run of
// characters other than letters, digits, '.', '_' and '-' becomes '_', leading and trailing '_', '.' and '-'
// go, and at most 63 characters remain.
func SanitizedLabelValue(s string) string {
	var b strings.Builder
	replaced := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			replaced = false
		} else if !replaced {
			b.WriteByte('_')
			replaced = true
		}
	}
	out := strings.Trim(b.String(), "_.-")
	if len(out) > MaxLength {
		out = strings.TrimRight(out[:MaxLength], "_.-")
	}
	return out
}

// LabelValue makes a label value of a name: names longer than 63 characters keep a prefix and a hash.
func LabelValue(name string) string {
	if len(name) <= MaxLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return strings.TrimRight(name[:54], "-._") + "-" + hex.EncodeToString(sum[:])[:8]
}
