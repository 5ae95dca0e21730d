package artifact

import (
	"errors"
	"strings"
	"testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

func TestParseSizeOutput(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      int64
		wantErr   string
	}{
		{"valid", `{"url":"hf://org/m","sizeBytes":123456789}`, 123456789, ""},
		{"log lines before the result", "checking hf://org/m\n{\"url\":\"hf://org/m\",\"sizeBytes\":42}\n\n", 42, ""},
		{"maximum", `{"url":"s3://b/m","sizeBytes":1125899906842624}`, 1 << 50, ""},
		{"last line wins over an earlier result", "{\"url\":\"x\",\"sizeBytes\":42}\nTraceback: boom", 0, "not a JSON object"},
		{"garbage", "Traceback (most recent call last):", 0, "not a JSON object"},
		{"empty", "  \n", 0, "is empty"},
		{"zero", `{"url":"x","sizeBytes":0}`, 0, "outside 1..2^50"},
		{"negative", `{"url":"x","sizeBytes":-5}`, 0, "outside 1..2^50"},
		{"above 2^50", `{"url":"x","sizeBytes":1125899906842625}`, 0, "outside 1..2^50"},
		{"fraction", `{"url":"x","sizeBytes":1.5}`, 0, "not a whole number"},
		{"missing size", `{"url":"x"}`, 0, "lacks sizeBytes"},
		{"string size", `{"url":"x","sizeBytes":"12"}`, 0, "not a whole number"},
		{"exponent", `{"url":"x","sizeBytes":1e9}`, 0, "not a whole number"},
		{"null size", `{"url":"x","sizeBytes":null}`, 0, "lacks sizeBytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSizeOutput(tc.out)
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Fatalf("got %d, %v; want %d", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			var se *state.Error
			if !errors.As(err, &se) || se.Reason != ReasonInvalidSizeOutput || se.Category != state.InvalidSpec {
				t.Errorf("error %#v is not InvalidSpec/%s", err, ReasonInvalidSizeOutput)
			}
			if !strings.Contains(err.Error(), `"`) {
				t.Errorf("error %q quotes no excerpt of the output", err)
			}
		})
	}
}

func TestAllocatedBytes(t *testing.T) {
	const gib = int64(1) << 30
	for _, tc := range []struct {
		name     string
		size     int64
		headroom int32
		want     int64
		wantErr  bool
	}{
		{"10 GiB + 10 % rounds 11 GiB exactly", 10 * gib, 10, 11 * gib, false},
		{"rounds up to the next GiB", 15*gib + 1, 10, 17 * gib, false},
		{"zero headroom keeps whole GiB", 10 * gib, 0, 10 * gib, false},
		{"zero headroom rounds a partial GiB up", 123456789, 0, gib, false},
		{"tiny model gets at least 1 GiB", 1, 10, gib, false},
		{"negative headroom counts as none", 2 * gib, -50, 2 * gib, false},
		{"large headroom", gib, 250, 4 * gib, false},
		{"absurd headroom fails", 1 << 50, 1 << 30, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AllocatedBytes(tc.size, tc.headroom)
			if tc.wantErr {
				var se *state.Error
				if !errors.As(err, &se) || se.Reason != ReasonStorageSizeError {
					t.Fatalf("got %d, %v; want a StorageSizeError", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestDisplaySize(t *testing.T) {
	for n, want := range map[int64]string{
		512: "512 B", 1536: "1.5 KiB", 123456789: "117.7 MiB", 16320875724: "15.2 GiB", 1 << 50: "1.0 PiB",
	} {
		if got := DisplaySize(n); got != want {
			t.Errorf("DisplaySize(%d) = %q, want %q", n, got, want)
		}
	}
}
