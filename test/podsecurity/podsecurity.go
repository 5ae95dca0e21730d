// Package podsecurity checks pods against the restricted Pod Security Standard with Pod Security admission's own
// evaluator, as a namespace that enforces it would: the pods aim-apiserver's installation runs and the pods its
// controller creates in users' namespaces must be admitted there.
package podsecurity

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// Restricted fails the test, naming what, for each rule of the restricted standard (its latest version) that the
// pod breaks.
func Restricted(tb testing.TB, what string, meta *metav1.ObjectMeta, spec *corev1.PodSpec) {
	tb.Helper()
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks())
	if err != nil {
		tb.Fatal(err)
	}
	lv := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	if r := policy.AggregateCheckResults(evaluator.EvaluatePod(lv, meta, spec)); !r.Allowed {
		tb.Errorf("%s violates the restricted Pod Security Standard: %s", what, r.ForbiddenDetail())
	}
}
