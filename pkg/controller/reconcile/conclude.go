package reconcile

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Object is an AIM object as Conclude reads it (its generation) and records Events on it.
type Object interface {
	metav1.Object
	runtime.Object
}

// Summary is what Conclude derives into a status, through the accessors aim-engine's API types have: the
// conditions, and the summary status in the kind's words (AIMService says Starting and Running).
type Summary interface {
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
	SetStatus(string)
}

// Outcome is what one reconcile of an object found and did, for Conclude.
type Outcome struct {
	// Components are the states the conditions are derived from; Informational conditions are set as given.
	Components    []state.Component
	Informational []state.Informational
	// Now is when the observation was made; zero means now.
	Now time.Time
	// ApplyErr and RequeueAfter are Finish's (End).
	ApplyErr     error
	RequeueAfter time.Duration
}

// Conclude ends a reconcile of obj, whose stored status is stored, the way every kind whose status is derived
// from components ends one: the conditions and the summary status the outcome gives (state.Derive, against the
// stored conditions) go into status, which the plan filled in, and Finish writes it with write when it changed.
// what names the object in errors.
func Conclude[S any, P interface {
	*S
	Summary
}](rec record.EventRecorder, obj Object, what string, stored, status S, o Outcome, write func(S) error) (time.Duration, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	out := state.Derive(state.Input{Components: o.Components, Previous: P(&stored).GetConditions(),
		Generation: obj.GetGeneration(), Now: o.Now, Informational: o.Informational})
	P(&status).SetConditions(out.Conditions)
	P(&status).SetStatus(string(out.Status))
	return Finish(rec, End{Object: obj, What: what, Status: status, Stored: stored, Write: func() error { return write(status) },
		Out: out, ApplyErr: o.ApplyErr, RequeueAfter: o.RequeueAfter})
}
