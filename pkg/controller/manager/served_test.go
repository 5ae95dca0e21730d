package manager

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
)

// TestServedAsksDiscoveryOnce: controllers that register against the same optional API share one answer.
func TestServedAsksDiscoveryOnce(t *testing.T) {
	kube := fake.NewClientset()
	kube.Resources = []*metav1.APIResourceList{{GroupVersion: "serving.kserve.io/v1beta1", APIResources: []metav1.APIResource{{Name: "inferenceservices"}}}}
	m := &Manager{Clients: Clients{Kube: kube}}
	isvc := schema.GroupVersionResource{Group: "serving.kserve.io", Version: "v1beta1", Resource: "inferenceservices"}
	other := schema.GroupVersionResource{Group: "serving.kserve.io", Version: "v1beta1", Resource: "servingruntimes"}
	routes := schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	for range 3 {
		if ok, err := m.Served(isvc); !ok || err != nil {
			t.Fatalf("Served(inferenceservices) = %v, %v", ok, err)
		}
	}
	if ok, _ := m.Served(other); ok {
		t.Error("a resource the group version lacks is served")
	}
	if ok, err := m.Served(routes); ok || err != nil {
		t.Errorf("Served(an absent group) = %v, %v; want false without error", ok, err)
	}
	if n := len(kube.Actions()); n != 3 {
		t.Errorf("%d discovery calls for 3 resources asked 5 times, want 3", n)
	}
}
