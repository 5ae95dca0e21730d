package gpu

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

func node(name string, gpus int64, lbls map[string]string) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}}
	if gpus >= 0 {
		n.Status.Allocatable = corev1.ResourceList{"amd.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI), "cpu": resource.MustParse("64")}
	}
	return n
}

func TestModelFromEveryLabelForm(t *testing.T) {
	cases := []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"device id", map[string]string{LabelDeviceID: "74a1"}, "MI300X"},
		{"device id with 0x and upper case", map[string]string{LabelDeviceID: "0x74A5"}, "MI325X"},
		{"beta device id", map[string]string{LabelBetaDeviceID: "75a3"}, "MI355X"},
		{"count-encoded device id", map[string]string{LabelDeviceID + ".75b0": "8"}, "MI350X"},
		{"count-encoded beta device id", map[string]string{LabelBetaDeviceID + ".7408": "4"}, "MI250X"},
		{"count-encoded zero is no GPU", map[string]string{LabelDeviceID + ".74a1": "0"}, ""},
		{"family", map[string]string{LabelFamily: "Instinct-MI300X"}, "MI300X"},
		{"beta family", map[string]string{LabelBetaFamily: "mi210"}, "MI210"},
		{"family that is not a model", map[string]string{LabelFamily: "AI"}, ""},
		{"count-encoded family", map[string]string{LabelFamily + ".MI325X": "8"}, "MI325X"},
		{"device id wins over family", map[string]string{LabelDeviceID: "740f", LabelFamily: "MI300X"}, "MI210"},
		{"unknown device id", map[string]string{LabelDeviceID: "7fff"}, "AMD-7FFF"},
		{"no AMD labels", map[string]string{"kubernetes.io/os": "linux"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := modelFromLabels(tc.labels); got != tc.want {
				t.Errorf("model %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNormalizeModel(t *testing.T) {
	for in, want := range map[string]string{
		"MI300X": "MI300X", "mi300x": "MI300X", "AMD Instinct MI325X": "MI325X", "Instinct-MI355X": "MI355X",
		"MI300X (rev 2)": "MI300X", "amd_mi210": "MI210", "AMD-7FFF": "AMD-7FFF", "something": "SOMETHING",
		"AMD-MI300X": "MI300X", "amd-mi325x": "MI325X", "InstinctMI300X": "MI300X", "AMD-74A1": "AMD-74A1",
	} {
		if got := NormalizeModel(in); got != want {
			t.Errorf("NormalizeModel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFind(t *testing.T) {
	inv := NewInventory([]corev1.Node{
		node("mi300-full", 0, map[string]string{LabelDeviceID: "74a1"}),
		node("mi300-free", 8, map[string]string{LabelBetaDeviceID: "74b5"}),
		node("mi210", 4, map[string]string{LabelDeviceID + ".740f": "4", LabelVRAM: "64G"}),
		node("unknown", 2, map[string]string{LabelDeviceID: "7fff"}),
		node("cpu-only", -1, nil),
	})
	if got := inv.Models(); !slices.Equal(got, []string{"MI300X", "MI210", "AMD-7FFF"}) {
		t.Errorf("models %v", got)
	}
	cases := []struct {
		name      string
		req       Requirement
		available bool
		nodes     []string
		reason    string
	}{
		{"model with capacity", Requirement{Model: "MI300X", Count: 8}, true, []string{"mi300-free"}, ""},
		{"model, no GPUs consumed", Requirement{Model: "mi300x"}, true, []string{"mi300-free", "mi300-full"}, ""},
		{"model without capacity", Requirement{Model: "MI300X", Count: 9}, false, nil, ReasonInsufficientCapacity},
		{"absent model", Requirement{Model: "MI355X", Count: 1}, false, nil, ReasonGPUNotAvailable},
		{"any model", Requirement{Count: 4}, true, []string{"mi210", "mi300-free"}, ""},
		{"unknown device id by its model name", Requirement{Model: "AMD-7FFF", Count: 1}, true, []string{"unknown"}, ""},
		{"memory from table", Requirement{MinMemory: ptrQ("192Gi"), Count: 1}, true, []string{"mi300-free"}, ""},
		{"memory from label", Requirement{MinMemory: ptrQ("60Gi"), Count: 4}, true, []string{"mi210", "mi300-free"}, ""},
		{"too much memory", Requirement{MinMemory: ptrQ("1Ti")}, false, nil, ReasonVRAMNotAvailable},
		{"other resource name", Requirement{Model: "MI300X", Count: 1, ResourceName: "amd.com/mi300x"}, false, nil, ReasonInsufficientCapacity},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := inv.Find(tc.req)
			if m.Available != tc.available || !slices.Equal(m.Nodes, tc.nodes) || m.Reason != tc.reason {
				t.Errorf("got available=%v nodes=%v reason=%q (%s)", m.Available, m.Nodes, m.Reason, m.Message)
			}
			if !m.Available && m.Message == "" {
				t.Error("unavailable match without a message")
			}
		})
	}
}

// TestFindListsModelsInOneOrder: models of one rank are listed by name, whatever nodes come and go; the list
// ends up in templates' GPUReady message, which a joining node must not rewrite.
func TestFindListsModelsInOneOrder(t *testing.T) {
	mi300a, mi308x := map[string]string{LabelDeviceID: "74a0"}, map[string]string{LabelDeviceID: "74a2"}
	want := []string{"MI300A", "MI308X"}
	for name, nodes := range map[string][]corev1.Node{
		"MI308X's node first":            {node("n-b", 8, mi308x), node("n-c", 8, mi300a)},
		"an MI300A node joins before it": {node("n-a", 8, mi300a), node("n-b", 8, mi308x), node("n-c", 8, mi300a)},
	} {
		inv := NewInventory(nodes)
		if got := inv.Find(Requirement{Count: 1}).Models; !slices.Equal(got, want) {
			t.Errorf("%s: Find lists %v, want %v", name, got, want)
		}
		if got := inv.Models(); !slices.Equal(got, want) {
			t.Errorf("%s: Models lists %v, want %v", name, got, want)
		}
	}
}

// TestAffinityAgreesWithInventory: every node the inventory counts for a model is selected by the affinity
// built for that model, whatever label form identified it, and no node of another model is (F11).
func TestAffinityAgreesWithInventory(t *testing.T) {
	nodes := []corev1.Node{
		node("id", 8, map[string]string{LabelDeviceID: "74a1"}),
		node("beta-id", 8, map[string]string{LabelBetaDeviceID: "74bd"}),
		node("count", 8, map[string]string{LabelDeviceID + ".74a9": "8"}),
		node("beta-count", 8, map[string]string{LabelBetaDeviceID + ".74b5": "8"}),
		node("family", 8, map[string]string{LabelFamily: "Instinct-MI300X"}),
		node("count-zero", 8, map[string]string{LabelDeviceID + ".74a1": "0"}),
		node("other", 8, map[string]string{LabelDeviceID: "75a3"}),
		node("other-family", 8, map[string]string{LabelFamily: "MI355X"}),
	}
	inv := NewInventory(nodes)
	m := inv.Find(Requirement{Model: "MI300X", Count: 1})
	sel, err := nodeaffinity.NewNodeSelector(inv.Affinity(m.Models).RequiredDuringSchedulingIgnoredDuringExecution)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		want := slices.Contains(m.Nodes, n.Name)
		if got := sel.Match(&n); got != want {
			t.Errorf("node %s (labels %v): affinity match %v, inventory candidate %v", n.Name, labels.Set(n.Labels), got, want)
		}
	}
	if inv.Affinity(nil) != nil {
		t.Error("affinity for no models should be nil")
	}
}

func TestRank(t *testing.T) {
	order := []string{"MI355X", "MI350X", "MI325X", "MI300X", "MI250X", "MI210", "MI100"}
	for i := 1; i < len(order); i++ {
		if Rank(order[i-1]) >= Rank(order[i]) && order[i] != "MI100" {
			t.Errorf("%s should rank before %s", order[i-1], order[i])
		}
	}
	if Rank("MI100") != Rank("AMD-7FFF") || Rank("MI100") <= Rank("MI210") {
		t.Error("unranked models should rank last, equally")
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		gpu         bool
		count       int32
		model, want string
	}{
		{true, 1, "MI300X", "1 x MI300X"}, {true, 2, "mi325x", "2 x mi325x"}, {true, 0, "MI300X", "MI300X"},
		{false, 0, "", "CPU"}, {true, 4, "", "4 x GPU"}, {true, 0, "", "CPU"},
	} {
		if got := Summary(tc.gpu, tc.count, tc.model); got != tc.want {
			t.Errorf("Summary(%v, %d, %q) = %q, want %q", tc.gpu, tc.count, tc.model, got, tc.want)
		}
	}
}

func TestMemoryLabel(t *testing.T) {
	for v, want := range map[string]string{"192G": "192Gi", "192g": "192Gi", "1T": "1Ti", "1.5T": "1536Gi", "65536M": "64Gi",
		"64Gi": "64Gi", "1073741824": "1Gi"} {
		q, ok := memoryFromLabels(map[string]string{LabelVRAM: v})
		if !ok || q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("vram %q = %v (%v), want %s", v, q.String(), ok, want)
		}
	}
	for _, v := range []string{"lots", "-1G", "1e3G", "NaNG", "0G", "0"} {
		if q, ok := memoryFromLabels(map[string]string{LabelVRAM: v}); ok {
			t.Errorf("unparsable vram %q accepted as %v", v, q.String())
		}
	}
}

func ptrQ(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

// aim-engine's device table (KnownAmdDevices) and memory table (KnownGPUVRAM), Radeon included: a node with an
// RX 7900 is an RX7900, found by a template naming it, with 24Gi per GPU when unlabelled.
func TestAimEngineDeviceTable(t *testing.T) {
	for id, want := range map[string]string{"73a2": "W6900X", "73a3": "W6800", "73ab": "W6800X", "7550": "RX9070",
		"744c": "RX7900", "73af": "RX6900", "73bf": "RX6800", "74a1": "MI300X", "7461": "V710"} {
		if got := ModelForDeviceID(id); got != want {
			t.Errorf("device %s is %s, want %s", id, got, want)
		}
	}
	for model, want := range map[string]string{"RX7900": "24Gi", "RX9070": "16Gi", "W6800X": "32Gi", "V710": "28Gi"} {
		if q, ok := MemoryPerGPU(model); !ok || q.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("memory of %s = %v (%v), want %s", model, q.String(), ok, want)
		}
	}
	if ids := DeviceIDsForModel("rx7900"); len(ids) != 1 || ids[0] != "744c" {
		t.Errorf("device ids of an RX 7900: %v", ids)
	}
	// A model written with the vendor's prefix is the model, as aim-engine reads it; an unknown device's is its id.
	if got, want := DeviceIDsForModel("AMD-MI300X"), DeviceIDsForModel("MI300X"); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("device ids of AMD-MI300X %v, want MI300X's %v", got, want)
	}
	if ids := DeviceIDsForModel("AMD-7FFF"); !slices.Equal(ids, []string{"7fff"}) {
		t.Errorf("device ids of an unknown device: %v", ids)
	}
}
