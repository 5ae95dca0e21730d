package artifact

import (
	"encoding/json"
	"fmt"
	"math/big"
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

// AllocatedBytes is the volume size for a model: size x (1 + headroom/100), rounded up to whole GiB so that
// the PVC never ends up smaller than the model plus its headroom. A negative headroom counts as none; a result
// beyond what a Quantity holds is InvalidSpec (StorageSizeError), as the headroom must then be absurd.
func AllocatedBytes(sizeBytes int64, headroomPercent int32) (int64, error) {
	h := max(int64(headroomPercent), 0)
	// Big integers: size x (100 + headroom) leaves int64 for large headroom values.
	need := new(big.Int).Mul(big.NewInt(sizeBytes), big.NewInt(100+h))
	unit := big.NewInt(100 * gib)
	gibs := new(big.Int).Div(new(big.Int).Add(need, new(big.Int).Sub(unit, big.NewInt(1))), unit)
	gibs.Mul(gibs, big.NewInt(gib))
	if !gibs.IsInt64() || gibs.Int64() > maxAllocatedBytes {
		return 0, state.NewError(state.InvalidSpec, ReasonStorageSizeError,
			"%d bytes with %d%% headroom is too large a volume", sizeBytes, headroomPercent)
	}
	return max(gibs.Int64(), gib), nil
}

// DisplaySize renders a size for people, in binary units with one decimal: "15.2 GiB".
func DisplaySize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
