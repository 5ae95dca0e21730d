package migrate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// propagationTurnedOff are the namespaced runtime configs ("namespace/name") that will stop their namespace's
// label propagation once aim-apiserver serves them: labelPropagation.enabled false beside the cluster config of
// their name that turns it on. aim-engine's CRD writes that false into every labelPropagation block, and its
// merge takes a false as unset, so the cluster's true held there; aim-apiserver takes a field that is set as set
// (F13), and a faithful copy keeps the false.
func propagationTurnedOff(cluster, namespaced []unstructured.Unstructured) []string {
	on := map[string]bool{}
	for _, c := range cluster {
		if enabled, found, _ := unstructured.NestedBool(c.Object, "spec", "labelPropagation", "enabled"); found && enabled {
			on[c.GetName()] = true
		}
	}
	var out []string
	for _, n := range namespaced {
		if enabled, found, _ := unstructured.NestedBool(n.Object, "spec", "labelPropagation", "enabled"); found && !enabled && on[n.GetName()] {
			out = append(out, n.GetNamespace()+"/"+n.GetName())
		}
	}
	slices.Sort(out)
	return out
}

// propagationTurnedOffWarning says what to do about the runtime configs propagationTurnedOff names.
func propagationTurnedOffWarning(configs []string) string {
	return fmt.Sprintf("these AIMRuntimeConfigs hold labelPropagation.enabled: false beside an AIMClusterRuntimeConfig of their name "+
		"that turns propagation on: %s. aim-engine's schema writes that false into every labelPropagation block and its merge "+
		"ignores it, so their namespaces propagated labels; aim-apiserver takes a field that is set, so they will not. After "+
		"the switch, remove the field from each (kubectl patch aimruntimeconfig <name> -n <namespace> --type=json "+
		`-p '[{"op":"remove","path":"/spec/labelPropagation/enabled"}]') or set it to true (docs/migration.md)`, strings.Join(configs, ", "))
}

// runtimeConfigsTurningPropagationOff lists both runtime config kinds and returns propagationTurnedOff of them.
func (c *cluster) runtimeConfigsTurningPropagationOff(ctx context.Context) ([]string, error) {
	cluster, err := c.list(ctx, schemaGVR("aimclusterruntimeconfigs"))
	if err != nil {
		return nil, err
	}
	namespaced, err := c.list(ctx, schemaGVR("aimruntimeconfigs"))
	if err != nil {
		return nil, err
	}
	return propagationTurnedOff(cluster, namespaced), nil
}
