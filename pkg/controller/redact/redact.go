// Package redact makes text that the controller received from outside (a registry's error body, a
// container's termination message, a pod's waiting message, a Job's condition) safe to quote in status,
// Events and logs, which users with only the view role can read. Such text may echo credentials: a registry
// that repeats the Authorization header it got, a downloader that prints its S3 key. Excerpt removes what looks
// like a credential, every value the caller knows to be secret, control characters and excess length.
//
// Quoted text must also be the same when the same failure repeats: a status that changes on every attempt is
// written on every attempt, and the write's own event brings the object straight back, past the error backoff.
// So the local endpoint of a socket error, a new ephemeral port on each attempt, is dropped too, and so is the
// clock in a certificate validity error.
package redact

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mask replaces what was removed.
const Mask = "[redacted]"

// DefaultLimit is the length of an excerpt quoted in a condition message: enough to recognise an error,
// too little to carry a dump.
const DefaultLimit = 256

// PendingPodLimit is how much of the scheduler's or kubelet's account of a pending pod a condition message
// quotes: the scheduler lists every reason it passed nodes over ("0/9 nodes are available: 1 node(s) had
// untolerated taint ..., 6 Insufficient amd.com/gpu. preemption: ..."), over 256 bytes on a cluster of a few
// node pools, and the reason that matters may come last. aim-engine quotes it whole.
const PendingPodLimit = 1024

var (
	// An Authorization-like header and everything after it on the line.
	headerPattern = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|x-[a-z-]*(?:token|key|auth)[a-z-]*|cookie|set-cookie)\s*[:=]\s*[^\r\n]*`)
	// A credential after an HTTP authentication scheme. ("Digest" and "Token" are left to the header
	// pattern: as words they start too many harmless phrases, "digest sha256:...".)
	schemePattern = regexp.MustCompile(`(?i)\b(basic|bearer)\s+[A-Za-z0-9._~+/=-]{6,}`)
	// A JSON Web Token anywhere.
	jwtPattern = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?`)
	// key=value, key: value and "key":"value" pairs whose key names a secret.
	pairPattern = regexp.MustCompile(`(?i)("?)\b([a-z0-9_.-]*(?:password|passwd|pwd|secret|token|apikey|api_key|api-key|access_key|accesskey|private_key|credential|credentials|auth|signature)"?)(\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}\]]+)`)
	// user:password@ in a URL.
	userinfoPattern = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`)
	// Query parameters of presigned URLs (S3, GCS, Azure SAS).
	signedQueryPattern = regexp.MustCompile(`(?i)([?&](?:x-amz-[a-z-]+|x-goog-[a-z-]+|sig|se|sp|sv|token|access_token|signature)=)[^&\s"']+`)
	// Long runs of base64 or base64url: tokens, keys, JWTs (see looksRandom).
	blobPattern = regexp.MustCompile(`[A-Za-z0-9+/_-]{32,}={0,2}`)
	// alnumRun is an unbroken run of letters and digits.
	alnumRun = regexp.MustCompile(`[A-Za-z0-9]+`)
	// The local endpoint of a connected socket in a Go net.OpError ("read tcp 10.244.0.5:39874->203.0.113.5:443",
	// also inside a DNS error: "read udp 10.244.0.5:51234->10.96.0.10:53"): the remote endpoint stays, it says
	// what could not be reached. The host may be bracketed IPv6, with a zone.
	localEndpointPattern = regexp.MustCompile(`\b((?:tcp|udp)[46]?) (?:\[[^\]\s]*\]|[^\s\[\]>:]*):\d+->`)
	// The clock in crypto/x509's error of a certificate outside its validity ("x509: certificate has expired or is
	// not yet valid: current time 2026-11-29T10:00:03Z is after 2026-11-01T00:00:00Z"), new on every attempt.
	certificateTimePattern = regexp.MustCompile(`\bcurrent time \S+ is (before|after)\b`)
)

// OutputLimit is how much of a program's output a condition message quotes.
const OutputLimit = 300

// Excerpt returns text as Text leaves it, with control characters and runs of whitespace folded to single spaces,
// cut to at most limit bytes (DefaultLimit when limit <= 0) on a rune boundary, with "..." where it was cut.
func Excerpt(text string, limit int, secrets ...string) string {
	if limit <= 0 {
		limit = DefaultLimit
	}
	s := Text(text, secrets...)
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if len(s) <= limit {
		return s
	}
	cut := limit - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// Output quotes a program's output for a condition message, with what looks like a credential removed (a
// container may print its environment): whole when it is at most OutputLimit bytes, else its start and its end, where
// what ran and the error usually are.
func Output(out []byte) string {
	s := Text(string(out))
	if len(s) <= OutputLimit {
		return fmt.Sprintf("%q", s)
	}
	half := OutputLimit / 2
	return fmt.Sprintf("%q ... %q", s[:half], s[len(s)-half:])
}

// Text returns text with credentials, known secrets and the local endpoints of sockets removed, otherwise
// unchanged.
func Text(text string, secrets ...string) string {
	s := strings.ToValidUTF8(text, "?")
	for _, secret := range expand(secrets) {
		s = strings.ReplaceAll(s, secret, Mask)
	}
	s = headerPattern.ReplaceAllString(s, "${1}: "+Mask)
	s = schemePattern.ReplaceAllString(s, "${1} "+Mask)
	s = jwtPattern.ReplaceAllString(s, Mask)
	s = userinfoPattern.ReplaceAllString(s, "${1}"+Mask+"@")
	s = signedQueryPattern.ReplaceAllString(s, "${1}"+Mask)
	s = pairPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := pairPattern.FindStringSubmatch(m)
		// Already masked (the value pattern stops before "]", so a mask shows as "[redacted"): redacting
		// redacted text must change nothing.
		if v := strings.Trim(sub[4], `"'`); v == Mask || v == strings.TrimSuffix(Mask, "]") {
			return m
		}
		return sub[1] + sub[2] + sub[3] + Mask
	})
	s = blobPattern.ReplaceAllStringFunc(s, func(m string) string {
		if looksRandom(m) {
			return Mask
		}
		return m
	})
	// Last, on what the credential patterns left. The "->" stays: nothing before it is an endpoint any more, so
	// removing again changes nothing.
	s = localEndpointPattern.ReplaceAllString(s, "${1} ->")
	return certificateTimePattern.ReplaceAllString(s, "the current time is ${1}")
}

// looksRandom tells a token from the long names that messages are full of. Object names are lower case,
// model ids ("Qwen/Qwen2-VL-72B-Instruct-GPTQ-Int4") and paths break into short words, hex digests have no
// upper case; a random token mixes upper case, lower case and digits in a long unbroken run.
func looksRandom(s string) bool {
	var upper, lower, digit bool
	for _, r := range s {
		upper = upper || unicode.IsUpper(r)
		lower = lower || unicode.IsLower(r)
		digit = digit || unicode.IsDigit(r)
	}
	if !upper || !lower || !digit {
		return false
	}
	longest := 0
	for _, run := range alnumRun.FindAllString(s, -1) {
		longest = max(longest, len(run))
	}
	return longest >= 16
}

// expand adds the encodings a secret is commonly echoed in (base64, as in Basic credentials and
// dockerconfig "auth" fields), drops values too short to remove without destroying the text, and orders
// longer values first so that a secret containing another is removed whole.
func expand(secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if len(s) < 4 {
			continue
		}
		out = append(out, s, base64.StdEncoding.EncodeToString([]byte(s)), base64.RawStdEncoding.EncodeToString([]byte(s)))
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}
