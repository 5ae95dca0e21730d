package gpu

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Node label keys written by AMD's node labeller, current and beta prefixes.
const (
	LabelDeviceID     = "amd.com/gpu.device-id"
	LabelBetaDeviceID = "beta.amd.com/gpu.device-id"
	LabelFamily       = "amd.com/gpu.family"
	LabelBetaFamily   = "beta.amd.com/gpu.family"
	LabelVRAM         = "amd.com/gpu.vram"
	LabelBetaVRAM     = "beta.amd.com/gpu.vram"

	// DefaultResourceName is the extended resource AMD's device plugin advertises.
	DefaultResourceName corev1.ResourceName = "amd.com/gpu"
)

var (
	deviceIDKeys = []string{LabelDeviceID, LabelBetaDeviceID}
	familyKeys   = []string{LabelFamily, LabelBetaFamily}
)

// Node is what one node contributes to the inventory.
type Node struct {
	Name string
	// Model is the GPU model the node's labels identify; empty when the node has no AMD GPU labels.
	Model string
	// Allocatable is the node's allocatable count of each GPU resource name.
	Allocatable map[corev1.ResourceName]int64
	// Memory per GPU, from the vram label or the model table.
	Memory *resource.Quantity
	// IdentifiedBy is the label that named the model, so that node affinity can select the same nodes.
	IdentifiedBy Label
}

// Label is a node label key and value.
type Label struct{ Key, Value string }

// Inventory is the AMD GPUs of a cluster, from Node objects.
type Inventory struct {
	nodes []Node
}

// NewInventory reads the GPU model of every node from its labels, in order of precedence: the device-id
// label, count-encoded device-id labels (amd.com/gpu.device-id.<id>), then the family label; each with the
// amd.com/ and beta.amd.com/ prefixes.
func NewInventory(nodes []corev1.Node) Inventory {
	var entries []Node
	for i := range nodes {
		if entry, ok := nodeEntry(&nodes[i]); ok {
			entries = append(entries, entry)
		}
	}
	return inventoryOf(entries)
}

// inventoryOf is the inventory of node entries, in name order.
func inventoryOf(entries []Node) Inventory {
	slices.SortFunc(entries, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	return Inventory{nodes: entries}
}

// nodeEntry is what a node contributes to the inventory; false when its labels show no AMD GPU.
func nodeEntry(n *corev1.Node) (Node, bool) {
	model, by := modelFromLabels(n.Labels)
	if model == "" {
		return Node{}, false
	}
	entry := Node{Name: n.Name, Model: model, IdentifiedBy: by, Allocatable: map[corev1.ResourceName]int64{}}
	for name, q := range n.Status.Allocatable {
		entry.Allocatable[name] = q.Value()
	}
	if q, ok := memoryFromLabels(n.Labels); ok {
		entry.Memory = &q
	} else if q, ok := MemoryPerGPU(model); ok {
		entry.Memory = &q
	}
	return entry, true
}

// Nodes returns the nodes with AMD GPUs.
func (inv Inventory) Nodes() []Node { return inv.nodes }

// Models returns the GPU models present, best ranked first.
func (inv Inventory) Models() []string {
	var models []string
	for _, n := range inv.nodes {
		if !slices.Contains(models, n.Model) {
			models = append(models, n.Model)
		}
	}
	slices.SortFunc(models, CompareModels)
	return models
}

// Requirement is what a workload asks for.
type Requirement struct {
	// Model is the GPU model; empty accepts any AMD GPU (or any with MinMemory).
	Model string
	// MinMemory is the minimum memory per GPU, instead of a model.
	MinMemory *resource.Quantity
	// Count is the number of GPUs per replica; 0 places the workload on GPU nodes without consuming GPUs.
	Count int64
	// ResourceName counts GPUs on nodes; empty means amd.com/gpu.
	ResourceName corev1.ResourceName
}

// Match is the outcome of looking a requirement up in the inventory.
type Match struct {
	// Available is true when at least one node has the GPU and can allocate Count of it.
	Available bool
	// Models are the models that satisfy the requirement on some candidate node, best ranked first.
	Models []string
	// Nodes are the candidate nodes.
	Nodes []string
	// Reason and Message explain an unavailable match, for conditions.
	Reason, Message string
}

// Reasons of a template's GPU component: available, or why a match is not.
const (
	ReasonGPUAvailable         = "GPUAvailable"
	ReasonGPUNotAvailable      = "GPUNotAvailable"
	ReasonVRAMNotAvailable     = "VRAMNotAvailable"
	ReasonInsufficientCapacity = "InsufficientGPUCapacity"
)

// Find reports whether and where the requirement can run. A node is a candidate when its model satisfies the
// requirement and its allocatable count of the GPU resource can hold Count.
func (inv Inventory) Find(req Requirement) Match {
	resourceName := req.ResourceName
	if resourceName == "" {
		resourceName = DefaultResourceName
	}
	want := ""
	if req.Model != "" {
		want = NormalizeModel(req.Model)
	}
	var m Match
	modelPresent := false
	for _, n := range inv.nodes {
		if want != "" && n.Model != want {
			continue
		}
		if req.MinMemory != nil && (n.Memory == nil || n.Memory.Cmp(*req.MinMemory) < 0) {
			continue
		}
		modelPresent = true
		if req.Count > 0 && n.Allocatable[resourceName] < req.Count {
			continue
		}
		m.Nodes = append(m.Nodes, n.Name)
		if !slices.Contains(m.Models, n.Model) {
			m.Models = append(m.Models, n.Model)
		}
	}
	slices.SortFunc(m.Models, CompareModels)
	m.Available = len(m.Nodes) > 0
	switch {
	case m.Available:
	case !modelPresent && req.MinMemory != nil:
		m.Reason = ReasonVRAMNotAvailable
		m.Message = fmt.Sprintf("no node has an AMD GPU with at least %s of memory%s", req.MinMemory.String(), inv.present())
	case !modelPresent:
		m.Reason = ReasonGPUNotAvailable
		what := "an AMD GPU"
		if want != "" {
			what = want
		}
		m.Message = fmt.Sprintf("no node has %s%s", what, inv.present())
	default:
		m.Reason = ReasonInsufficientCapacity
		m.Message = fmt.Sprintf("no node with the required GPU can allocate %d x %s", req.Count, resourceName)
	}
	return m
}

func (inv Inventory) present() string {
	models := inv.Models()
	if len(models) == 0 {
		return " (the cluster has no nodes with AMD GPU labels)"
	}
	return " (present: " + strings.Join(models, ", ") + ")"
}

// modelFromLabels identifies the GPU model of a node and the label that named it; "" when it has no AMD GPU
// labels.
func modelFromLabels(labels map[string]string) (string, Label) {
	for _, k := range deviceIDKeys {
		if v := labels[k]; v != "" {
			return ModelForDeviceID(v), Label{k, v}
		}
	}
	for _, k := range deviceIDKeys {
		if id := countEncoded(labels, k); id != "" {
			return ModelForDeviceID(id), Label{k + "." + id, labels[k+"."+id]}
		}
	}
	for _, k := range familyKeys {
		if v := labels[k]; v != "" {
			if m := NormalizeModel(v); modelToken.MatchString(m) {
				return m, Label{k, v}
			}
		}
	}
	for _, k := range familyKeys {
		if f := countEncoded(labels, k); f != "" {
			if m := NormalizeModel(f); modelToken.MatchString(m) {
				return m, Label{k + "." + f, labels[k+"."+f]}
			}
		}
	}
	return "", Label{}
}

// countEncoded finds a label "<key>.<suffix>" with a count other than 0 and returns the suffix.
func countEncoded(labels map[string]string, key string) string {
	var found []string
	for k, v := range labels {
		suffix, ok := strings.CutPrefix(k, key+".")
		if !ok || suffix == "" || v == "" || v == "0" {
			continue
		}
		found = append(found, suffix)
	}
	if len(found) == 0 {
		return ""
	}
	slices.Sort(found) // deterministic when a node has several
	return found[0]
}

// memoryFromLabels parses the vram label: "192G" (GiB, as aim-engine's ParseVRAMToBytes reads it, in either case),
// "1T" or "1.5T" (TiB), "196608M" (MiB), a Kubernetes quantity, or a bare number of bytes.
// A value that does not parse, or is not positive, is passed over for the next label (then the model's memory).
func memoryFromLabels(labels map[string]string) (resource.Quantity, bool) {
	for _, k := range []string{LabelVRAM, LabelBetaVRAM} {
		if q, err := resource.ParseQuantity(vramQuantity(strings.TrimSpace(labels[k]))); err == nil && q.Sign() > 0 {
			return q, true
		}
	}
	return resource.Quantity{}, false
}

// vramQuantity writes a vram label's value as a Kubernetes quantity: its unit letter as the binary unit.
func vramQuantity(v string) string {
	for suffix, unit := range map[string]string{"G": "Gi", "T": "Ti", "M": "Mi"} {
		if n, ok := strings.CutSuffix(strings.ToUpper(v), suffix); ok && vramNumber.MatchString(n) {
			return n + unit
		}
	}
	return v
}

// vramNumber is the number before a vram label's unit letter.
var vramNumber = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
