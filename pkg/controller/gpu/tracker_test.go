package gpu

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func gpuNode(name, deviceID, count string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/os": "linux"}}}
	if deviceID != "" {
		n.Labels[LabelDeviceID] = deviceID
		n.Status.Allocatable = corev1.ResourceList{DefaultResourceName: resource.MustParse(count)}
	}
	return n
}

// TestTrackerFollowsNodes: the tracker's inventory is NewInventory's of the nodes it was shown, and its
// listeners hear of changes of the inventory only: not of a CPU node, nor of a GPU node's heartbeat.
func TestTrackerFollowsNodes(t *testing.T) {
	tr := NewTracker()
	var changes []string
	tr.OnChange(func(before, after Inventory) {
		changes = append(changes, fmtModels(before)+" -> "+fmtModels(after))
	})
	h := tr.Handler()
	a, b, cpu := gpuNode("a", "74a1", "8"), gpuNode("b", "74b5", "8"), gpuNode("cpu", "", "")
	h.OnAdd(a, true)
	h.OnAdd(b, true)
	h.OnAdd(cpu, true)
	if got, want := tr.Inventory(), NewInventory([]corev1.Node{*a, *b, *cpu}); fmtNodes(got) != fmtNodes(want) {
		t.Fatalf("inventory %s, want %s", fmtNodes(got), fmtNodes(want))
	}
	if len(changes) != 2 {
		t.Errorf("changes %q: want one per GPU node", changes)
	}

	// A heartbeat (conditions) and a CPU node's new label change nothing.
	changes = nil
	beat := a.DeepCopy()
	beat.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	h.OnUpdate(a, beat)
	relabelled := cpu.DeepCopy()
	relabelled.Labels["team"] = "web"
	h.OnUpdate(cpu, relabelled)
	if len(changes) != 0 {
		t.Errorf("changes %q after a heartbeat and a CPU node's label", changes)
	}

	// Capacity, a GPU label and deletion (also through a tombstone) are changes.
	fewer := beat.DeepCopy()
	fewer.Status.Allocatable[DefaultResourceName] = resource.MustParse("4")
	h.OnUpdate(beat, fewer)
	if m := tr.Inventory().Find(Requirement{Model: "MI300X", Count: 8}); slices.Contains(m.Nodes, "a") {
		t.Errorf("8 GPUs of a node that allocates 4: %+v", m)
	}
	gained := relabelled.DeepCopy()
	gained.Labels[LabelFamily] = "MI325X"
	h.OnUpdate(relabelled, gained)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "b", Obj: b})
	h.OnDelete(fewer)
	if got := fmtModels(tr.Inventory()); got != "MI325X" {
		t.Errorf("models %q after the deletions, want MI325X", got)
	}
	if len(changes) != 4 {
		t.Errorf("changes %q: want 4", changes)
	}
}

func fmtModels(inv Inventory) string {
	out := ""
	for i, m := range inv.Models() {
		if i > 0 {
			out += ","
		}
		out += m
	}
	return out
}

func fmtNodes(inv Inventory) string {
	out := ""
	for _, n := range inv.Nodes() {
		out += n.Name + "=" + n.Model + ";"
	}
	return out
}
