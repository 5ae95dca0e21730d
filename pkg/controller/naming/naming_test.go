package naming

import (
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		max   int
		parts []string
		want  string
	}{
		{"joins sanitized parts", 63, []string{"Qwen/Qwen3-32B", "", "v0.8.5"}, "qwen-qwen3-32b-v0-8-5-abcd1234"},
		{"cuts to the limit", 20, []string{"a-very-long-service-name"}, "a-very-long-abcd1234"},
		{"never ends the cut in a dash", 21, []string{"a-very-long-service-name"}, "a-very-long-abcd1234"},
		{"only the hash when nothing is left", 63, []string{"///"}, "abcd1234"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Name(tc.max, "abcd1234", tc.parts...)
			if got != tc.want {
				t.Fatalf("Name = %q, want %q", got, tc.want)
			}
			if len(got) > tc.max {
				t.Fatalf("%q is longer than %d", got, tc.max)
			}
		})
	}
}

func TestHash(t *testing.T) {
	a, b := Hash(8, "ns", "svc"), Hash(8, "ns", "svc")
	if a != b || len(a) != 8 {
		t.Fatalf("Hash is not deterministic or not 8 long: %q %q", a, b)
	}
	// The separator keeps ("a","bc") and ("ab","c") apart.
	if Hash(8, "a", "bc") == Hash(8, "ab", "c") {
		t.Fatal("different inputs share a hash")
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
