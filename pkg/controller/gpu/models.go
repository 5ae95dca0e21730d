// Package gpu knows AMD GPUs: which model a Node carries (from every label form AMD's node labeller writes),
// how many it can still allocate, which node affinity selects them, and how models rank. The inventory, the
// affinity and the ranking come from the same tables, so that a template found available is also schedulable
// (F11).
package gpu

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// deviceModels maps PCI device ids (lower case, no 0x) to GPU models: aim-engine's KnownAmdDevices
// (internal/utils/resources.go), id for id.
var deviceModels = map[string]string{
	"738c": "MI100", "738e": "MI100",
	"7408": "MI250X", "740c": "MI250X",
	"740f": "MI210", "7410": "MI210",
	"74a0": "MI300A",
	"74a1": "MI300X", "74a9": "MI300X", "74b5": "MI300X", "74bd": "MI300X",
	"74a2": "MI308X", "74a8": "MI308X", "74b6": "MI308X",
	"74a5": "MI325X", "74b9": "MI325X",
	"75a0": "MI350X", "75b0": "MI350X",
	"75a3": "MI355X", "75b3": "MI355X",
	"7460": "V710", "7461": "V710",
	"7448": "W7900", "744a": "W7900",
	"7449": "W7800", "745e": "W7800",
	"73a1": "V620", "73ae": "V620",
	"73a2": "W6900X", "73a3": "W6800", "73ab": "W6800X",
	"7550": "RX9070", "744c": "RX7900", "73af": "RX6900", "73bf": "RX6800",
}

// memoryByModel is the memory per GPU when a node does not label it: aim-engine's KnownGPUVRAM, read as the
// vram label is ("192G" is 192Gi), except the V710's, which has 28 GiB where aim-engine says 32
// (docs/compatibility.md).
var memoryByModel = map[string]string{
	"MI355X": "288Gi", "MI350X": "288Gi", "MI325X": "256Gi", "MI300X": "192Gi", "MI308X": "128Gi",
	"MI300A": "128Gi", "MI250X": "128Gi", "MI210": "64Gi", "MI100": "32Gi", "V710": "28Gi", "W7900": "48Gi",
	"W7800": "32Gi", "W6900X": "32Gi", "W6800": "32Gi", "W6800X": "32Gi", "V620": "32Gi",
	"RX9070": "16Gi", "RX7900": "24Gi", "RX6900": "16Gi", "RX6800": "16Gi",
}

// rankOrder is automatic selection's preference, newest Instinct generation first (F11).
var rankOrder = []string{"MI355X", "MI350X", "MI325X", "MI300X", "MI250X", "MI210"}

// unknownPrefix names models of device ids not in the table, so that they still count and select exactly.
const unknownPrefix = "AMD-"

// ModelForDeviceID returns the model of a PCI device id such as 74a1 or 0x74A1.
func ModelForDeviceID(id string) string {
	id = normalizeDeviceID(id)
	if m, ok := deviceModels[id]; ok {
		return m
	}
	return unknownPrefix + strings.ToUpper(id)
}

// DeviceIDsForModel returns the device ids of a model, sorted; an unknown model "AMD-<ID>" yields its id.
func DeviceIDsForModel(model string) []string {
	model = NormalizeModel(model)
	if strings.HasPrefix(model, unknownPrefix) {
		return []string{strings.ToLower(strings.TrimPrefix(model, unknownPrefix))}
	}
	var ids []string
	for id, m := range deviceModels {
		if m == model {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Rank orders models for automatic selection: lower is preferred; unranked models come last.
func Rank(model string) int {
	model = NormalizeModel(model)
	for i, m := range rankOrder {
		if m == model {
			return i
		}
	}
	return len(rankOrder)
}

// CompareModels orders models best ranked first, and models of one rank (every model rankOrder does not
// list) by name: lists of models end up in messages, which must not change with the order nodes are seen in.
func CompareModels(a, b string) int {
	return cmp.Or(Rank(a)-Rank(b), strings.Compare(a, b))
}

// MemoryPerGPU returns the memory of one GPU of a model, if known.
func MemoryPerGPU(model string) (resource.Quantity, bool) {
	q, ok := memoryByModel[NormalizeModel(model)]
	if !ok {
		return resource.Quantity{}, false
	}
	return resource.MustParse(q), true
}

var modelToken = regexp.MustCompile(`^(MI[0-9]+[A-Z]*|W[0-9]+[A-Z]*|V[0-9]+|RX[0-9]+[A-Z]*)$`)

// NormalizeModel turns the ways people and labels write a model ("Instinct MI300X", "amd_mi325x", "AMD-MI300X",
// "InstinctMI300X", "MI300X (rev 2)") into its canonical name, as aim-engine's NormalizeGPUModel reads them;
// names it cannot parse are returned upper-cased. A model of an unknown device id ("AMD-7FFF") stays as it is:
// hex digits never make a model's token.
func NormalizeModel(s string) string {
	up := strings.ToUpper(strings.TrimSpace(s))
	fields := strings.FieldsFunc(strings.ReplaceAll(up, "_", "-"), func(r rune) bool {
		return r == '-' || r == ' ' || r == '/' || r == ':' || r == '(' || r == ')'
	})
	for _, f := range fields {
		if f == "AMD" || f == "INSTINCT" {
			continue
		}
		if f = strings.TrimPrefix(f, "INSTINCT"); modelToken.MatchString(f) {
			return f
		}
	}
	return up
}

func normalizeDeviceID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	return strings.TrimPrefix(id, "0x")
}
