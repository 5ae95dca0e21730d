package migrate

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// TestStopDeployment: a rollback scales aim-apiserver's Deployment to zero (its controller would keep
// reconciling the copies in its etcd), says how many replicas it had, and tells a missing one apart.
func TestStopDeployment(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "aim-apiserver", Namespace: "aim-system"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)}})
	c := &cluster{kube: kube}
	was, found, err := c.stopDeployment(ctx, "aim-system", "aim-apiserver")
	if err != nil || !found || was != 2 {
		t.Fatalf("stop: was %d found %v err %v", was, found, err)
	}
	d, err := kube.AppsV1().Deployments("aim-system").Get(ctx, "aim-apiserver", metav1.GetOptions{})
	if err != nil || ptr.Deref(d.Spec.Replicas, -1) != 0 {
		t.Errorf("replicas after the stop: %v (%v)", d.Spec.Replicas, err)
	}
	if was, found, err := c.stopDeployment(ctx, "aim-system", "aim-apiserver"); err != nil || !found || was != 0 {
		t.Errorf("stopped already: was %d found %v err %v", was, found, err)
	}
	if _, found, err := c.stopDeployment(ctx, "aim-system", "elsewhere"); err != nil || found {
		t.Errorf("no Deployment: found %v err %v", found, err)
	}
}

// TestEngineNamespace: the Namespace aim-engine's kustomize manifests declare (config/manager/manager.yaml) is
// told by its labels; a namespace Helm's --create-namespace made, or any other, is not.
func TestEngineNamespace(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "aim-system", Labels: map[string]string{
			"control-plane": "controller-manager", "app.kubernetes.io/name": "aim-engine", "app.kubernetes.io/managed-by": "kustomize"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "helm-made", Labels: map[string]string{"kubernetes.io/metadata.name": "helm-made"}}})
	c := &cluster{kube: kube}
	for ns, want := range map[string]bool{"aim-system": true, "helm-made": false} {
		if got, err := c.engineNamespace(ctx, ns); err != nil || got != want {
			t.Errorf("%s: %v (%v), want %v", ns, got, err, want)
		}
	}
	if _, err := c.engineNamespace(ctx, "missing"); err == nil {
		t.Error("a namespace that does not exist: no error")
	}
}
