package server

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"os"
	"sync/atomic"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// DefaultMemoryLimitRatio is the share of the container's memory limit the Go runtime keeps its memory under, as
// Prometheus's --auto-gomemlimit.ratio: the rest is for what the runtime does not count (the binary's pages,
// the kernel's buffers of its connections).
const DefaultMemoryLimitRatio = 0.9

// memoryLimitRefresh is how often the container's limit is read again: an in-place resize of the pod changes it
// without a restart.
const memoryLimitRefresh = time.Minute

// setMemoryLimit sets the Go runtime's soft memory limit to ratio of the cgroup's memory limit, and follows that
// limit until ctx ends. Without it the collector lets the heap grow to twice what is live before it runs: a
// fleet whose live objects fit the pod's limit still gets the pod OOM-killed, and restarted into the same
// fleet. With it the collector works harder as the limit nears instead. $GOMEMLIMIT, set by the user, wins;
// ratio 0 leaves the runtime alone. A limit that cannot be read is logged, not fatal: the server runs as it
// would without.
func setMemoryLimit(ctx context.Context, ratio float64) {
	if v, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		klog.InfoS("Go memory limit from the environment", "GOMEMLIMIT", v)
		return
	}
	if ratio == 0 {
		return
	}
	switch _, err := memlimit.FromCgroup(); {
	case errors.Is(err, memlimit.ErrCgroupsNotSupported), errors.Is(err, memlimit.ErrNoCgroup):
		return // not in a container (a developer's machine): nothing to follow
	case err != nil && !errors.Is(err, memlimit.ErrNoLimit):
		// Not an error of the server's: it runs as it would without the limit (a runtime that mounts no
		// /sys/fs/cgroup, a chroot).
		klog.InfoS("The container's memory limit cannot be read; the Go runtime runs without a memory limit", "reason", err.Error())
		return
	}
	// The library logs the first setting as this function does: its lines are passed on from the refreshes only
	// (a resized pod).
	started := &atomic.Bool{}
	refreshes := afterStart{Handler: logr.ToSlogHandler(klog.Background().WithName("memlimit")), started: started}
	limit, err := memlimit.Set(
		memlimit.WithRatio(ratio),
		memlimit.WithProvider(memlimit.FromCgroup),
		memlimit.WithRefreshInterval(ctx, memoryLimitRefresh),
		memlimit.WithLogger(slog.New(refreshes)),
	)
	started.Store(true)
	switch {
	case err != nil:
		klog.ErrorS(err, "The container's memory limit could not be set; the Go runtime runs without a memory limit")
	case limit == math.MaxInt64:
		klog.InfoS("The container has no memory limit; the Go runtime has none either")
	default:
		klog.InfoS("Go memory limit set from the container's", "bytes", limit, "MiB", limit>>20, "ratio", ratio)
	}
}

// afterStart is a log handler that drops what is logged before started is set (and so do the handlers made
// from it).
type afterStart struct {
	slog.Handler
	started *atomic.Bool
}

func (h afterStart) Enabled(ctx context.Context, level slog.Level) bool {
	return h.started.Load() && h.Handler.Enabled(ctx, level)
}

func (h afterStart) WithAttrs(attrs []slog.Attr) slog.Handler {
	return afterStart{Handler: h.Handler.WithAttrs(attrs), started: h.started}
}

func (h afterStart) WithGroup(name string) slog.Handler {
	return afterStart{Handler: h.Handler.WithGroup(name), started: h.started}
}
