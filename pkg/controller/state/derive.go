package state

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
)

// InfrastructureGracePeriod is how long infrastructure errors may last before the object shows Degraded.
const InfrastructureGracePeriod = 10 * time.Second

// Dependency says whether the user references a component or the controller creates it.
type Dependency string

const (
	DependencyUpstream   Dependency = "Upstream"
	DependencyDownstream Dependency = "Downstream"
)

// Component is the health of one part of an object, as one reconcile observed it.
type Component struct {
	// Name of the component; its condition is <Name>Ready.
	Name       string
	Dependency Dependency
	// State, when set, is the component's state; otherwise it is derived from Errors.
	State aimv1.AIMStatus
	// Reason and Message of the condition; by default taken from the first error, or "Ready".
	Reason, Message string
	Errors          []error
}

// WriteFailed reports that writing the child of component name failed: whatever the plan said of it, the
// component is a downstream error now, in its place among cs (or last, when the plan had none).
func WriteFailed(cs []Component, name string, err error) []Component {
	failed := Component{Name: name, Dependency: DependencyDownstream, Errors: []error{err}}
	for i := range cs {
		if cs[i].Name == name {
			cs[i] = failed
			return cs
		}
	}
	return append(cs, failed)
}

// Input is one reconcile's observation of an object.
type Input struct {
	Components []Component
	// Previous are the object's current conditions.
	Previous []metav1.Condition
	// Generation is the spec generation observed (F4).
	Generation int64
	Now        time.Time
	// Informational conditions (for example Discovered) are set as given and never pruned.
	Informational []Informational
}

// Informational is a condition of the kind's own (DownloadComplete, Discovered, MaxModelsLimitReached), set as
// given. Its transitions are Events as every condition's are, as aim-engine's condition manager records them:
// Normal, or Warning where the reconcile says the news is bad (aim-engine's AsWarning).
type Informational struct {
	Condition metav1.Condition
	Warning   bool
}

// Normal are informational conditions whose transitions are Normal Events.
func Normal(conds ...metav1.Condition) []Informational {
	out := make([]Informational, len(conds))
	for i, c := range conds {
		out[i] = Informational{Condition: c}
	}
	return out
}

// Transition is a condition that changed status or reason, for an Event.
type Transition struct {
	Type, Reason, Message string
	Status                metav1.ConditionStatus
	// Warning is true when the change is bad news (the component is Failed, Degraded or NotAvailable, or the
	// informational condition says so).
	Warning bool
}

// Output is the derived status.
type Output struct {
	Conditions []metav1.Condition
	// Status is the summary status in the words of every kind but AIMService: its SetStatus words it its way.
	Status      aimv1.AIMStatus
	Transitions []Transition
	// Retry is true when infrastructure errors should be retried with backoff. Otherwise the user must fix
	// something first (credentials, the spec, a missing reference): retrying cannot help, a watch event brings
	// the object back.
	Retry bool
}

// priority orders states from worst to best; the overall status is the worst component state.
var priority = map[aimv1.AIMStatus]int{
	aimv1.AIMStatusFailed: 0, aimv1.AIMStatusNotAvailable: 1, aimv1.AIMStatusDegraded: 2, aimv1.AIMStatusPending: 3,
	aimv1.AIMStatusStarting: 4, aimv1.AIMStatusProgressing: 5, aimv1.AIMStatusReady: 6, aimv1.AIMStatusRunning: 7,
}

// Worse reports whether state a is further from Ready than b, in the order the overall status takes (an empty
// state, one not yet reported, counts as Pending).
func Worse(a, b aimv1.AIMStatus) bool {
	rank := func(s aimv1.AIMStatus) int {
		if s == "" {
			s = aimv1.AIMStatusPending
		}
		return priority[s]
	}
	return rank(a) < rank(b)
}

// Derive computes conditions and status. Conditions of components no longer reported are removed (F2);
// every condition carries the observed generation (F4); infrastructure errors younger than the grace period
// keep a component's previous condition so that a blip does not flap the status.
func Derive(in Input) Output {
	s := &conditionSet{conds: withoutUnreported(in.Previous, in.Components), generation: in.Generation, now: in.Now}
	cats := firstErrorOfCategory(in.Components)
	_, infra := cats[Infrastructure]
	inGrace := infra && withinGracePeriod(in)

	s.setParents(cats, inGrace)
	worst := s.setComponents(in, inGrace)
	s.setReady(worst, cats)
	s.setInformational(in.Informational)
	return Output{Conditions: s.conds, Status: worst.state, Transitions: s.transitions, Retry: infra}
}

// withoutUnreported copies the previous conditions without the component conditions that this reconcile does
// not report.
func withoutUnreported(previous []metav1.Condition, components []Component) []metav1.Condition {
	conds := slices.Clone(previous)
	reported := map[string]bool{}
	for _, c := range components {
		reported[c.Name+ComponentSuffix] = true
	}
	return slices.DeleteFunc(conds, func(c metav1.Condition) bool {
		return isComponentCondition(c.Type) && !reported[c.Type]
	})
}

// firstErrorOfCategory maps each category present among the components' errors to its first error.
func firstErrorOfCategory(components []Component) map[Category]error {
	var cats = map[Category]error{}
	for _, c := range components {
		for _, err := range c.Errors {
			if _, seen := cats[Categorize(err)]; !seen {
				cats[Categorize(err)] = err
			}
		}
	}
	return cats
}

// withinGracePeriod reports whether the infrastructure errors began less than the grace period ago: when
// DependenciesReachable turned False, or now if it has not yet.
func withinGracePeriod(in Input) bool {
	since := in.Now
	if prev := meta.FindStatusCondition(in.Previous, ConditionDependenciesReachable); prev != nil && prev.Status == metav1.ConditionFalse {
		since = prev.LastTransitionTime.Time
	}
	return in.Now.Sub(since) < InfrastructureGracePeriod
}

// conditionSet is the conditions one Derive builds, and the transitions among them.
type conditionSet struct {
	conds       []metav1.Condition
	transitions []Transition
	generation  int64
	now         time.Time
}

// set records a condition; a changed status is a transition (warning says whether it is bad news).
// Parent conditions that start out True are no news and make no transition.
func (s *conditionSet) set(c metav1.Condition, warning bool) {
	c.ObservedGeneration = s.generation
	c.LastTransitionTime = metav1.NewTime(s.now)
	c.Reason = sanitizeReason(c.Reason)
	prev := meta.FindStatusCondition(s.conds, c.Type)
	// A message the condition holds already was made safe when it was stored, and redaction changes nothing
	// it made (redact.FuzzTextIsIdempotent): the expressions run only on a new message, not on every
	// reconcile of every condition.
	if prev == nil || prev.Message != c.Message {
		c.Message = conditionMessage(c.Message)
	}
	quietStart := prev == nil && c.Status == metav1.ConditionTrue && isParentCondition(c.Type)
	// A new reason under the same status is a transition too: Progressing -> Failed keeps False.
	if (prev == nil || prev.Status != c.Status || prev.Reason != c.Reason) && !quietStart {
		s.transitions = append(s.transitions, Transition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message, Warning: warning})
	}
	meta.SetStatusCondition(&s.conds, c)
}

// setParents sets ConfigValid, AuthValid and DependenciesReachable from the categories of the errors.
func (s *conditionSet) setParents(cats map[Category]error, inGrace bool) {
	switch {
	case cats[InvalidSpec] != nil:
		s.set(Condition(ConditionConfigValid, false, ReasonInvalidSpec, cats[InvalidSpec].Error()), true)
	case cats[MissingUpstream] != nil:
		s.set(Condition(ConditionConfigValid, false, ReasonReferenceNotFound, cats[MissingUpstream].Error()), true)
	default:
		s.set(Condition(ConditionConfigValid, true, ReasonConfigurationValid, MessageConfigurationValid), false)
	}
	if err := cats[Auth]; err != nil {
		s.set(Condition(ConditionAuthValid, false, ReasonAuthError, err.Error()), true)
	} else {
		s.set(Condition(ConditionAuthValid, true, ReasonAuthenticationValid, MessageAuthenticationValid), false)
	}
	if infraErr, infra := cats[Infrastructure]; infra {
		s.set(Condition(ConditionDependenciesReachable, false, ReasonInfrastructureError, infraErr.Error()), !inGrace)
	} else {
		s.set(Condition(ConditionDependenciesReachable, true, ReasonReachable, MessageReachable), false)
	}
}

// worstComponent is the component that is furthest from Ready; name is empty when every component is Ready.
type worstComponent struct {
	state             aimv1.AIMStatus
	name, msg, reason string
}

// setComponents sets each component's condition and returns the worst of them.
func (s *conditionSet) setComponents(in Input, inGrace bool) worstComponent {
	worst := worstComponent{state: aimv1.AIMStatusReady}
	for _, c := range in.Components {
		st, reason, msg := Outcome(c)
		typ := c.Name + ComponentSuffix
		if inGrace && st == aimv1.AIMStatusDegraded && hasCategory(c.Errors, Infrastructure) {
			// A short outage is not news: keep the previous condition, or show the component as waiting.
			if prev := meta.FindStatusCondition(in.Previous, typ); prev != nil {
				st, reason, msg = stateOfCondition(*prev, c.Dependency), prev.Reason, prev.Message
			} else {
				st = stateOfCondition(metav1.Condition{}, c.Dependency)
			}
		}
		bad := st == aimv1.AIMStatusFailed || st == aimv1.AIMStatusDegraded || st == aimv1.AIMStatusNotAvailable
		s.set(Condition(typ, st == aimv1.AIMStatusReady, reason, msg), bad)
		if st != aimv1.AIMStatusReady {
			if st == aimv1.AIMStatusProgressing && c.Dependency == DependencyUpstream {
				st = aimv1.AIMStatusPending // an upstream being prepared is something to wait for
			}
			if st == aimv1.AIMStatusStarting {
				// Pods running but not ready: on its way, as aim-engine's deriveStatusFromDependencyType has it
				// (reconciler.go:673). Starting is a service's word only; other kinds' statuses do not have it.
				st = stateOfCondition(metav1.Condition{}, c.Dependency)
			}
			if priority[st] < priority[worst.state] || worst.name == "" {
				worst = worstComponent{state: st, name: c.Name, msg: msg, reason: reason}
			}
		}
	}
	return worst
}

// setReady sets the Ready condition, which names the worst component.
func (s *conditionSet) setReady(worst worstComponent, cats map[Category]error) {
	if worst.name == "" {
		s.set(Condition(ConditionReady, true, ReasonAllComponentsReady, MessageAllComponentsReady), false)
		return
	}
	msg := fmt.Sprintf("%s is not ready", worst.name)
	if worst.msg != "" {
		msg += ": " + worst.msg
	}
	bad := priority[worst.state] <= priority[aimv1.AIMStatusDegraded]
	waited := waitedForRetry(s.conds)
	// As the reference words Ready: a component that is Failed, Degraded or NotAvailable gives its reason;
	// otherwise infrastructure errors alone are InfrastructureError, and anything else is on its way
	// (Progressing). The message names the component either way.
	reason := worst.reason
	switch {
	case bad:
	case cats[Infrastructure] != nil:
		reason, msg = ReasonInfrastructureError, waitingForRetry+msg
	default:
		reason, msg = ReasonProgressing, "Waiting for components to become ready: "+msg
	}
	// What the user must fix names the Ready reason by its kind, as the reference does: AuthError,
	// InvalidSpec or ReferenceNotFound (the component conditions keep their own reasons).
	for _, c := range []struct {
		cat    Category
		reason string
	}{{Auth, ReasonAuthError}, {InvalidSpec, ReasonInvalidSpec}, {MissingUpstream, ReasonReferenceNotFound}} {
		if cats[c.cat] != nil {
			reason = c.reason
			break
		}
	}
	n := len(s.transitions)
	s.set(Condition(ConditionReady, false, reason, msg), bad)
	if bad && waited && len(s.transitions) == n {
		// The grace ended on an error that is still there: the object turns Degraded, which is news though
		// no condition changes its reason when the component had no condition before the outage (its
		// waiting condition already said InfrastructureError).
		c := meta.FindStatusCondition(s.conds, ConditionReady)
		s.transitions = append(s.transitions, Transition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message, Warning: true})
	}
}

// waitingForRetry begins Ready's message while infrastructure errors are younger than the grace period.
const waitingForRetry = "Infrastructure error - waiting for retry: "

// waitedForRetry reports whether Ready said, before this reconcile, that the object waits out the grace
// period of an infrastructure error.
func waitedForRetry(conds []metav1.Condition) bool {
	c := meta.FindStatusCondition(conds, ConditionReady)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == ReasonInfrastructureError && strings.HasPrefix(c.Message, waitingForRetry)
}

// setInformational sets the informational conditions as given, keeping a transition time they carry; a new
// status or reason is a transition.
func (s *conditionSet) setInformational(informational []Informational) {
	for _, in := range informational {
		c := in.Condition
		c.ObservedGeneration = s.generation
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = metav1.NewTime(s.now)
		}
		if prev := meta.FindStatusCondition(s.conds, c.Type); prev == nil || prev.Status != c.Status || prev.Reason != c.Reason {
			s.transitions = append(s.transitions, Transition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message, Warning: in.Warning})
		}
		meta.SetStatusCondition(&s.conds, c)
	}
}

// Outcome is a component's state, reason and message as Derive reads them: its own, or else those of its
// worst error.
func Outcome(c Component) (aimv1.AIMStatus, string, string) {
	reason, msg := c.Reason, c.Message
	if len(c.Errors) > 0 {
		if reason == "" {
			reason = reasonOf(c.Errors[0])
		}
		if msg == "" {
			msg = c.Errors[0].Error()
		}
	}
	st := c.State
	if st == "" {
		st = stateFromErrors(c.Errors)
	}
	if reason == "" {
		if st == aimv1.AIMStatusReady {
			reason = ReasonReady
		} else {
			reason = string(st)
		}
	}
	return st, reason, msg
}

// stateFromErrors takes the worst category present: what the user must fix first, then what is missing,
// then outages, then what is being created.
func stateFromErrors(errs []error) aimv1.AIMStatus {
	switch {
	case len(errs) == 0:
		return aimv1.AIMStatusReady
	case hasCategory(errs, Auth), hasCategory(errs, InvalidSpec), hasCategory(errs, ResourceExhaustion),
		hasCategory(errs, MissingUpstream):
		// A reference to something that does not exist is for the user to fix, like a bad spec; the object
		// recovers by itself when the thing appears (its controller watches it).
		return aimv1.AIMStatusFailed
	case hasCategory(errs, Infrastructure):
		return aimv1.AIMStatusDegraded
	default:
		return aimv1.AIMStatusProgressing
	}
}

// BlocksApply reports whether a component has an error that stops aim-engine's pipeline from applying
// anything (reconciler.go:794): credentials refused, a spec that cannot work, or a reference to something
// missing. The children then stay as they are until the user fixes it.
func BlocksApply(cs []Component) bool {
	for _, c := range cs {
		if hasCategory(c.Errors, Auth) || hasCategory(c.Errors, InvalidSpec) || hasCategory(c.Errors, MissingUpstream) {
			return true
		}
	}
	return false
}

func hasCategory(errs []error, c Category) bool {
	for _, err := range errs {
		if Categorize(err) == c {
			return true
		}
	}
	return false
}

func stateOfCondition(c metav1.Condition, d Dependency) aimv1.AIMStatus {
	if c.Status == metav1.ConditionTrue {
		return aimv1.AIMStatusReady
	}
	if d == DependencyUpstream {
		return aimv1.AIMStatusPending
	}
	return aimv1.AIMStatusProgressing
}

func isComponentCondition(t string) bool {
	return strings.HasSuffix(t, ComponentSuffix) && t != ConditionReady && len(t) > len(ComponentSuffix)
}

func isParentCondition(t string) bool {
	return t == ConditionConfigValid || t == ConditionAuthValid || t == ConditionDependenciesReachable
}

// maxReason is the API's limit on a condition's reason.
const maxReason = 1024

// sanitizeReason makes a reason match the API's pattern (a letter, then letters, digits, '_', ',' or ':').
func sanitizeReason(r string) string {
	// Nearly every reason is a constant that matches already, and each condition of each reconcile comes here:
	// those are not built again.
	if validReason(r) {
		return r
	}
	var b strings.Builder
	for _, c := range r {
		if reasonRune(c, b.Len() == 0) {
			b.WriteRune(c)
		}
	}
	out := strings.TrimRight(b.String(), ",:")
	if out == "" {
		return ReasonUnknown
	}
	if len(out) > maxReason {
		out = out[:maxReason]
	}
	return out
}

// validReason reports whether r matches the API's pattern and limit, as sanitizeReason leaves it.
func validReason(r string) bool {
	if r == "" || len(r) > maxReason || strings.HasSuffix(r, ",") || strings.HasSuffix(r, ":") {
		return false
	}
	for i, c := range r {
		if !reasonRune(c, i == 0) {
			return false
		}
	}
	return true
}

// reasonRune reports whether c may stand in a reason, first or after the first.
func reasonRune(c rune, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	case first:
		return false
	}
	return c >= '0' && c <= '9' || c == '_' || c == ',' || c == ':'
}

// Condition is a condition of typ, True when ok.
func Condition(typ string, ok bool, reason, msg string) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}

// conditionMessage keeps messages within the API's 32768-byte limit and readable in kubectl describe. It
// redacts again what looks like a credential: text from outside (registries, containers) is redacted where it
// is read, and this is the last place before status and Events where a missed path would show.
func conditionMessage(msg string) string {
	const limit = 4096
	msg = redact.Text(msg)
	if len(msg) <= limit {
		return msg
	}
	cut := limit - 3
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "..."
}
