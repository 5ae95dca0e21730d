package naming

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The expected values below are aim-engine's (computed with its algorithm and spot-checked with sha256sum).

func TestRFC1123Label(t *testing.T) {
	for in, want := range map[string]string{
		"hf://Qwen/Qwen3-32B":          "hf---qwen-qwen3-32b", // one dash per rune, runs kept
		"a__b..c":                      "a--b--c",
		"Meta-Llama/Llama-3.1-70B":     "meta-llama-llama-3-1-70b",
		"-Leading_and_trailing-":       "leading-and-trailing",
		"ÄÖ-ü":                         "", // non-ASCII letters are invalid runes too
		"":                             "",
		strings.Repeat("a", 62) + "_b": strings.Repeat("a", 62), // cut to 63, then the dash it ends in goes
		strings.Repeat("x", 70):        strings.Repeat("x", 63),
	} {
		if got := RFC1123Label(in); got != want {
			t.Errorf("RFC1123Label(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHash(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		inputs []any
		want   string
	}{
		// A string is hashed with its JSON quotes: sha256(`"team-a"`).
		{"string", 8, []any{"team-a"}, "e204f50a"},
		// A UID hashes like the string it is.
		{"uid", 8, []any{types.UID("0b3c9a4e-1f2d-4c5b-9a8e-7d6f5e4c3b2a")}, "a942824e"},
		// sha256(`"hf://Qwen/Qwen3-32B"|null|""`): a nil env list is null.
		{"nil slice", 10, []any{"hf://Qwen/Qwen3-32B", []corev1.EnvVar(nil), ""}, "c00b812b59"},
		{"env list", 10, []any{"hf://Qwen/Qwen3-32B", []corev1.EnvVar{{Name: "HF_HUB_ENABLE_HF_TRANSFER", Value: "1"}}, ""}, "068d9ca6cc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Hash(tc.n, tc.inputs...); got != tc.want {
				t.Fatalf("Hash = %q, want %q", got, tc.want)
			}
		})
	}
	// The separator keeps ("a","bc") and ("ab","c") apart.
	if Hash(8, "a", "bc") == Hash(8, "ab", "c") {
		t.Error("different inputs share a hash")
	}
	// Maps hash as sorted [key, value, ...] arrays, whatever their type and order.
	sorted := Hash(8, []any{"a", "1", "b", "2"})
	if Hash(8, map[string]string{"b": "2", "a": "1"}) != sorted || Hash(8, map[string]any{"a": "1", "b": "2"}) != sorted {
		t.Error("maps do not hash as their sorted key-value arrays")
	}
	if Hash(8, []any{map[string]string{"b": "2", "a": "1"}}) != Hash(8, []any{[]any{"a", "1", "b", "2"}}) {
		t.Error("maps inside []any are not sorted")
	}
	if Hash(8, nil) != Hash(8, []string(nil)) {
		t.Error("nil and a nil slice must both hash as null")
	}
}

func TestDerivedName(t *testing.T) {
	const ns = "team-a"
	for _, tc := range []struct {
		name       string
		parts      []string
		hashLength int
		maxLength  int
		inputs     []any
		want       string
	}{
		{"short", []string{"qwen-chat"}, 8, 46, []any{ns}, "qwen-chat-e204f50a"},
		{"longest part cut to fit", []string{"qwen3-32b-chat-assistant-for-the-research-and-development-team"}, 8, 46, []any{ns},
			"qwen3-32b-chat-assistant-for-the-rese-e204f50a"},
		{"full length", []string{"qwen3-32b-chat-assistant-for-the-research-and-development-team"}, 8, 63, []any{ns},
			"qwen3-32b-chat-assistant-for-the-research-and-developm-e204f50a"},
		// The other parts keep their length: only the longest one is shortened, and the dash it ends in goes.
		{"longest of several", []string{"aim-qwen-qwen3-32b-0-8-5-1x-mi300x-lat-fp8-ab12-with-a-long-suffix", "qwen-chat"}, 8, 63,
			[]any{types.UID("0b3c9a4e-1f2d-4c5b-9a8e-7d6f5e4c3b2a")}, "aim-qwen-qwen3-32b-0-8-5-1x-mi300x-lat-fp8-a-qwen-chat-a942824e"},
		{"several long parts", []string{"hf---meta-llama-llama-3-1-70b-instruct-fp8-kv-quantized-v2-0a1b", "check-size"}, 8, 63,
			[]any{types.UID("3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b")}, "hf---meta-llama-llama-3-1-70b-instruct-fp8-check-size-7858a5a4"},
		// Equally long parts: the first one is shortened first.
		{"ties", []string{"aaaa", "bbbb"}, 4, 13, []any{"x"}, "aaa-bbbb-" + Hash(4, "x")},
		{"max length exactly reached", []string{"abcd", "efgh"}, 6, 16, []any{"x"}, "abcd-efgh-" + Hash(6, "x")},
		{"one over", []string{"abcd", "efgh"}, 6, 15, []any{"x"}, "abc-efgh-" + Hash(6, "x")},
		{"empty parts stand in as part", []string{"", "///", "x"}, 4, 63, []any{"x"}, "part-part-x-" + Hash(4, "x")},
		{"hash length 10", []string{"hf://Qwen/Qwen3-32B"}, 10, 63, []any{"hf://Qwen/Qwen3-32B", []corev1.EnvVar(nil), ""}, "hf---qwen-qwen3-32b-c00b812b59"},
		{"hash length 6", []string{"amdenterpriseai/aim-qwen-qwen3-32b", "0.8.5"}, 6, 63,
			[]any{"docker.io", "amdenterpriseai/aim-qwen-qwen3-32b", "0.8.5"}, "amdenterpriseai-aim-qwen-qwen3-32b-0-8-5-72f726"},
		{"no hash inputs, no hash", []string{"My", "Name"}, 8, 63, nil, "my-name"},
		{"hash length 0, no hash", []string{"x"}, 0, 63, []any{"y"}, "x"},
		// Parts of one character are not cut further, even when the name stays too long.
		{"nothing left to cut", []string{"a", "b"}, 8, 5, []any{"x"}, "a-b-" + Hash(8, "x")},
		// A cut that ends in dashes drops them all.
		{"dashes at the cut", []string{"ab---cd"}, 4, 8, []any{"x"}, "ab-" + Hash(4, "x")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DerivedName(tc.parts, tc.hashLength, tc.maxLength, tc.inputs...)
			if got != tc.want {
				t.Fatalf("DerivedName = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLabelValue(t *testing.T) {
	if got := LabelValue("short"); got != "short" {
		t.Fatalf("LabelValue(short) = %q", got)
	}
	long := strings.Repeat("x", 80)
	got := LabelValue(long)
	if len(got) > MaxLength || got == LabelValue(strings.Repeat("x", 81)) {
		t.Fatalf("LabelValue of long names = %q: too long or not unique", got)
	}
}
