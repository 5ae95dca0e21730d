package migrate

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
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
