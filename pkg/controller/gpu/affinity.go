package gpu

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Affinity returns a required node affinity that selects nodes of the given models by every label form
// that can name them: the device-id label and its beta twin with all device ids of each model, the
// count-encoded device-id labels, and the family labels the inventory saw on nodes of those models. Terms are
// ORed, so a node matches through whichever form its labeller wrote. Nil when models is empty.
func (inv Inventory) Affinity(models []string) *corev1.NodeAffinity {
	if len(models) == 0 {
		return nil
	}
	var ids []string
	for _, m := range models {
		ids = append(ids, DeviceIDsForModel(m)...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)

	var terms []corev1.NodeSelectorTerm
	for _, key := range deviceIDKeys {
		if len(ids) > 0 {
			terms = append(terms, term(corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: ids}))
		}
	}
	for _, key := range deviceIDKeys {
		for _, id := range ids {
			terms = append(terms, countEncodedTerm(key+"."+id))
		}
	}
	// Family labels carry free-form values; select exactly those seen on nodes of these models.
	seen := map[string]bool{}
	for _, n := range inv.nodes {
		by := n.IdentifiedBy
		if !slices.Contains(normalized(models), n.Model) || seen[by.Key+"="+by.Value] || !isFamilyLabel(by.Key) {
			continue
		}
		seen[by.Key+"="+by.Value] = true
		if slices.Contains(familyKeys, by.Key) {
			terms = append(terms, term(corev1.NodeSelectorRequirement{Key: by.Key, Operator: corev1.NodeSelectorOpIn, Values: []string{by.Value}}))
		} else {
			terms = append(terms, countEncodedTerm(by.Key))
		}
	}
	return &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
	}
}

func isFamilyLabel(key string) bool {
	for _, k := range familyKeys {
		if key == k || strings.HasPrefix(key, k+".") {
			return true
		}
	}
	return false
}

func normalized(models []string) []string {
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = NormalizeModel(m)
	}
	return out
}

func term(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: reqs}
}

// countEncodedTerm selects nodes whose count label exists with a count other than 0.
func countEncodedTerm(key string) corev1.NodeSelectorTerm {
	return term(
		corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpExists},
		corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"0"}},
	)
}

// Summary is the hardware column of templates, as aim-engine's formatHardwareSummary writes it: "2 x MI300X",
// the model alone when no GPU is requested, "2 x GPU" for a count without a model, and "CPU" without a GPU
// (or with a GPU block that neither requests one nor names a model). The model is printed as written.
func Summary(hasGPU bool, count int32, model string) string {
	switch {
	case !hasGPU || count <= 0 && model == "":
		return "CPU"
	case model == "":
		model = "GPU"
	}
	if count > 0 {
		return fmt.Sprintf("%d x %s", count, model)
	}
	return model
}
