package discovery

import (
	"time"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// Backoff spaces discovery attempts after failures: Base x 2^(attempts-1), at most Max.
type Backoff struct {
	Base time.Duration
	Max  time.Duration
}

// DefaultBackoff is the contract's schedule: 60 s, 120 s, 240 s ... capped at one hour.
var DefaultBackoff = Backoff{Base: time.Minute, Max: time.Hour}

// Delay is the wait after the given number of failed attempts.
func (b Backoff) Delay(attempts int32) time.Duration {
	if attempts <= 0 || b.Base <= 0 {
		return 0
	}
	d := b.Base
	for i := int32(1); i < attempts; i++ {
		if d >= b.Max/2 {
			return b.Max
		}
		d *= 2
	}
	return min(d, b.Max)
}

// Wait is how long until the next attempt may start; 0 when it may start now. A state recorded for other
// inputs (specHash differs) does not count: changing the template resets the circuit breaker.
func (b Backoff) Wait(state *aimv1.AIMDiscoveryState, specHash string, now time.Time) time.Duration {
	if state == nil || state.SpecHash != specHash || state.Attempts <= 0 || state.LastAttemptTime == nil {
		return 0
	}
	next := b.Next(state, now)
	if !now.Before(next) {
		return 0
	}
	return next.Sub(now)
}

// Next is when the attempt after state's last failed one may start: its lastAttemptTime to the second, as the
// API server keeps it (so the reconcile that records a failure and every later one agree), plus Delay. A state
// without the time (written by hand, or by another operator) waits from now.
func (b Backoff) Next(state *aimv1.AIMDiscoveryState, now time.Time) time.Time {
	last := now
	if state.LastAttemptTime != nil {
		last = state.LastAttemptTime.Time
	}
	return last.Truncate(time.Second).Add(b.Delay(state.Attempts))
}
