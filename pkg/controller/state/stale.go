package state

import "fmt"

// StaleStatus reports whether a status describes an earlier generation than the object's spec: its controller
// has not caught up, and what it says (Ready, the resolved hardware, the profile, the model sources) may no
// longer hold. A status without observedGeneration (written by aim-engine, or by hand on a paused object) is taken
// as it is.
func StaleStatus(generation, observed int64) bool {
	return observed > 0 && observed < generation
}

// StaleMessage says why a dependency whose status is stale is waited for.
func StaleMessage(what string, generation, observed int64) string {
	return fmt.Sprintf("%s: its status is of generation %d, its spec of generation %d; waiting for it to catch up", what, observed, generation)
}
