// Package naming derives the names and label values of the objects the controllers create: deterministic,
// DNS-label shaped, and unique through a hash of what identifies them even when the readable part is cut.
package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
)

// MaxLength is the length of a DNS label, the limit for most object names and every label value.
const MaxLength = 63

var nonName = regexp.MustCompile(`[^a-z0-9-]+`)

// Sanitize lowercases s and replaces every run of characters outside [a-z0-9-] with a dash.
func Sanitize(s string) string {
	return strings.Trim(nonName.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// Hash is the first n hex digits of the SHA-256 of the inputs' JSON, joined by "|".
func Hash(n int, inputs ...any) string {
	h := sha256.New()
	for i, in := range inputs {
		if i > 0 {
			h.Write([]byte("|"))
		}
		data, _ := json.Marshal(in) // inputs are plain data; marshalling cannot fail
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:n]
}

// Name is "<parts>-<hash>": the sanitized non-empty parts joined by dashes, cut so that the whole is at most
// maxLen characters. The hash keeps names apart when the cut makes their readable parts equal.
func Name(maxLen int, hash string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = Sanitize(p); p != "" {
			kept = append(kept, p)
		}
	}
	name := strings.Join(kept, "-")
	if limit := maxLen - len(hash) - 1; len(name) > limit {
		name = strings.TrimRight(name[:max(limit, 0)], "-")
	}
	if name == "" {
		return hash
	}
	return name + "-" + hash
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
