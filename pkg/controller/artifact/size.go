package artifact

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

const (
	// MaxSizeBytes bounds a measured model size (1 PiB): anything larger is a broken measurement.
	MaxSizeBytes int64 = 1 << 50
	gib          int64 = 1 << 30

	// maxAllocatedBytes bounds a volume (1 EiB), far beyond any model with headroom.
	maxAllocatedBytes int64 = 1 << 60
)

// SizeOutput is the last line the check-size container prints.
type SizeOutput struct {
	URL string `json:"url"`
	// SizeBytes is kept raw so that only a plain JSON integer counts, not "12" or 1.2e10.
	SizeBytes json.RawMessage `json:"sizeBytes"`
}

// ParseSizeOutput reads the size from check-size output: the last non-empty line must be
// {"url": ..., "sizeBytes": N} with 0 < N <= 2^50. Earlier lines are log noise. Errors are InvalidSpec with
// reason InvalidSizeOutput and quote an excerpt, so that the artifact fails visibly.
func ParseSizeOutput(out string) (int64, error) {
	invalid := func(format string, args ...any) (int64, error) {
		return 0, state.NewError(state.InvalidSpec, ReasonInvalidSizeOutput, "check-size output %s: %s",
			fmt.Sprintf(format, args...), redact.Output([]byte(out)))
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return invalid("is empty")
	}
	var o SizeOutput
	if err := json.Unmarshal([]byte(last), &o); err != nil {
		return invalid("is not a JSON object (%v)", err)
	}
	if len(o.SizeBytes) == 0 || string(o.SizeBytes) == "null" {
		return invalid("lacks sizeBytes")
	}
	n, err := strconv.ParseInt(string(o.SizeBytes), 10, 64)
	switch {
	case err != nil:
		return invalid("has sizeBytes %s, which is not a whole number of bytes", o.SizeBytes)
	case n <= 0 || n > MaxSizeBytes:
		return invalid("has sizeBytes %d, outside 1..2^50", n)
	}
	return n, nil
}

// AllocatedBytes is the volume size for a model: size x (1 + headroom/100), rounded up to whole GiB, computed
// as aim-engine's ApplyHeadroomAndRound computes it (in float64, the fraction of a byte dropped before the
// rounding), so that the volume of an artifact adopted after a migration is the size aim-engine asked for. A
// negative headroom counts as none; a result beyond what a Quantity holds is InvalidSpec (StorageSizeError), as
// the headroom must then be absurd.
func AllocatedBytes(sizeBytes int64, headroomPercent int32) (int64, error) {
	h := max(headroomPercent, 0)
	withHeadroom := float64(sizeBytes) * (1.0 + float64(h)/100.0)
	if withHeadroom > float64(maxAllocatedBytes) {
		return 0, state.NewError(state.InvalidSpec, ReasonStorageSizeError,
			"%d bytes with %d%% headroom is too large a volume", sizeBytes, headroomPercent)
	}
	n := int64(withHeadroom)
	return max((n+gib-1)/gib*gib, gib), nil
}

// maxDisplayBytes is the largest size aim-engine formats (MaxSupportedBytes in its internal/utils/format.go).
const maxDisplayBytes int64 = 7 << 60

var binaryUnits = []struct {
	size   int64
	suffix string
}{{1 << 60, "EiB"}, {1 << 50, "PiB"}, {1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}, {1, "B"}}

// DisplaySize renders a size as aim-engine's FormatBytesHumanReadable does, so that status.displaySize reads
// the same: the largest binary unit the size reaches, one decimal below 100 units unless it rounds to a whole
// number, none from 100 ("1.5 TiB", "42 GiB", "150 GiB"). ok is false outside 0..7 EiB, which aim-engine
// refuses to format.
func DisplaySize(n int64) (s string, ok bool) {
	if n < 0 || n > maxDisplayBytes {
		return "", false
	}
	for _, u := range binaryUnits {
		if n >= u.size {
			return twoSignificantDigits(float64(n)/float64(u.size), u.suffix), true
		}
	}
	return "0 B", true
}

// twoSignificantDigits is aim-engine's formatWithTwoSigFigs: despite the name, 10 to 99.9 keep a decimal.
func twoSignificantDigits(v float64, suffix string) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f %s", math.Round(v), suffix)
	}
	rounded := math.Round(v*10) / 10
	if rounded == math.Floor(rounded) {
		return fmt.Sprintf("%.0f %s", rounded, suffix)
	}
	return fmt.Sprintf("%.1f %s", rounded, suffix)
}
