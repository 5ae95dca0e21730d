package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
)

// TestMemoryLimitLibraryLogsOnlyRefreshes: the library's lines are dropped while the limit is first set (the
// server logs that itself) and passed on afterwards, also through handlers derived with attributes.
func TestMemoryLimitLibraryLogsOnlyRefreshes(t *testing.T) {
	var out bytes.Buffer
	started := &atomic.Bool{}
	logger := slog.New(afterStart{Handler: slog.NewTextHandler(&out, nil), started: started})
	logger.Info("GOMEMLIMIT is updated", "GOMEMLIMIT", 1)
	logger.With("k", "v").Info("derived, at start")
	if out.Len() != 0 {
		t.Fatalf("logged while the limit was first set: %s", out.String())
	}
	started.Store(true)
	logger.Info("GOMEMLIMIT is updated", "GOMEMLIMIT", 2)
	logger.With("k", "v").Info("derived, on refresh")
	if got := out.String(); !strings.Contains(got, "GOMEMLIMIT=2") || !strings.Contains(got, "derived, on refresh") || strings.Contains(got, "at start") {
		t.Errorf("after the start: %s", got)
	}
	if logger.Handler().Enabled(context.Background(), slog.LevelDebug) {
		t.Error("the level of the handler underneath is not kept")
	}
}
