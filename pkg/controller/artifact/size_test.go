package artifact

import (
	"errors"
	"math"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
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
		// aim-engine's float arithmetic drops the fraction of a byte before rounding: 976128931 x 1.1 is
		// 1073741824.1 bytes, which is 1 GiB there (exactly, 2 GiB).
		{"a fraction of a byte over a GiB is aim-engine's 1 GiB", 976128931, 10, gib, false},
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

// The cases are aim-engine's internal/utils/format_test.go, plus sizes this project's tests use.
func TestDisplaySize(t *testing.T) {
	const (
		ki = int64(1) << 10
		mi = int64(1) << 20
		ti = int64(1) << 40
		pi = int64(1) << 50
		ei = int64(1) << 60
	)
	for _, tc := range []struct {
		n    int64
		want string // "" when aim-engine refuses to format n
	}{
		{0, "0 B"},
		{-1, ""},
		{-gi, ""},
		{math.MinInt64, ""},
		{math.MaxInt64, ""},
		{7*ei + 1, ""},
		{7 * ei, "7 EiB"},
		{1, "1 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{ki, "1 KiB"},
		{1536, "1.5 KiB"},
		{10 * ki, "10 KiB"},
		{mi - 1, "1024 KiB"},
		{mi, "1 MiB"},
		{1536 * ki, "1.5 MiB"},
		{100 * mi, "100 MiB"},
		{500 * mi, "500 MiB"},
		{999 * mi, "999 MiB"},
		{gi, "1 GiB"},
		{1536 * mi, "1.5 GiB"},
		{8 * gi, "8 GiB"},
		{8704 * mi, "8.5 GiB"},
		{40 * gi, "40 GiB"},
		{70 * gi, "70 GiB"},
		{140 * gi, "140 GiB"},
		{ti, "1 TiB"},
		{1536 * gi, "1.5 TiB"},
		{10 * ti, "10 TiB"},
		{pi, "1 PiB"},
		{1536 * ti, "1.5 PiB"},
		{ei, "1 EiB"},
		{2 * ei, "2 EiB"},
		{1280 * mi, "1.3 GiB"},
		{1792 * mi, "1.8 GiB"},
		{9728 * mi, "9.5 GiB"},
		{101888 * mi, "99.5 GiB"},
		{102349 * mi, "100 GiB"},
		{10 * gi, "10 GiB"},
		{100 * gi, "100 GiB"},
		{10752 * mi, "10.5 GiB"},
		{gi + 1, "1 GiB"},
		{ti - 1, "1024 GiB"},
		{123456789, "118 MiB"},
		{16320875724, "15.2 GiB"},
		{16 * gi, "16 GiB"},
		{150*gi + 300*mi, "150 GiB"},
	} {
		got, ok := DisplaySize(tc.n)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("DisplaySize(%d) = %q, %v; want %q", tc.n, got, ok, tc.want)
		}
	}
}

// The cases are aim-engine's TestFormatWithTwoSigFigs.
func TestTwoSignificantDigits(t *testing.T) {
	for _, tc := range []struct {
		v      float64
		suffix string
		want   string
	}{
		{1.0, "GiB", "1 GiB"}, {1.5, "GiB", "1.5 GiB"}, {9.9, "GiB", "9.9 GiB"}, {9.95, "GiB", "10 GiB"},
		{5.05, "GiB", "5.1 GiB"}, {5.04, "GiB", "5 GiB"},
		{10.0, "GiB", "10 GiB"}, {10.5, "GiB", "10.5 GiB"}, {42.0, "GiB", "42 GiB"}, {42.7, "GiB", "42.7 GiB"},
		{99.0, "GiB", "99 GiB"}, {99.9, "GiB", "99.9 GiB"}, {99.95, "GiB", "100 GiB"},
		{100.0, "GiB", "100 GiB"}, {100.4, "GiB", "100 GiB"}, {100.5, "GiB", "101 GiB"}, {150.0, "GiB", "150 GiB"},
		{999.0, "GiB", "999 GiB"}, {1000.0, "GiB", "1000 GiB"}, {1024.0, "GiB", "1024 GiB"},
		{512.0, "B", "512 B"}, {1.5, "KiB", "1.5 KiB"}, {256.0, "MiB", "256 MiB"}, {2.5, "TiB", "2.5 TiB"},
		{1.0, "PiB", "1 PiB"}, {8.0, "EiB", "8 EiB"},
	} {
		if got := twoSignificantDigits(tc.v, tc.suffix); got != tc.want {
			t.Errorf("twoSignificantDigits(%v, %q) = %q, want %q", tc.v, tc.suffix, got, tc.want)
		}
	}
}

func TestDisplaySizeOfSpecAndMeasuredSizes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     string // "" for no spec size
		measured int64
		want     string
		wantOK   bool
	}{
		{name: "spec size", spec: "16Gi", measured: 16 << 30, want: "16 GiB", wantOK: true},
		{name: "zero spec size falls back to the measured size", spec: "0", measured: 1536 << 20, want: "1.5 GiB", wantOK: true},
		{name: "measured size", measured: 150 << 30, want: "150 GiB", wantOK: true},
		{name: "a fraction of a byte shows as written", spec: "1500m", measured: 2, want: "1500m", wantOK: true},
		{name: "beyond 7 EiB shows as written", spec: "7.5Ei", measured: 1 << 62, want: "7680Pi", wantOK: true},
		{name: "an unformattable measured size leaves the field", measured: 7<<60 + 1, wantOK: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spec *aimv1.Quantity
			if tc.spec != "" {
				spec = ptr.To(aimv1.MustParseQuantity(tc.spec))
			}
			got, ok := displaySize(spec, tc.measured)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("displaySize = %q, %v; want %q, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
