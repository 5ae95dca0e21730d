package migrate

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
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

// TestSecretsLeftBehind: aim-apiserver installed in another namespace than aim-engine's operator namespace reads the
// pull secrets of cluster models and model sources there; those it will not find are named with what names them.
// An aim-engine that read them from aim-apiserver's namespace already ($AIM_SYSTEM_NAMESPACE) leaves none behind.
func TestSecretsLeftBehind(t *testing.T) {
	ctx := context.Background()
	engine := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "aim-engine-controller-manager", Namespace: "aim-system"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "manager", Image: "docker.io/amdenterpriseai/aim-engine:0.2.0"}}}}}}
	kube := kubefake.NewClientset(engine,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ghcr", Namespace: "aim-system"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "dockerhub", Namespace: "aim-apiserver"}})
	object := func(kind, name string, secrets ...string) runtime.Object {
		var refs []any
		for _, s := range secrets {
			refs = append(refs, map[string]any{"name": s})
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "aim.eai.amd.com/v1alpha1", "kind": kind,
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"imagePullSecrets": refs}}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		schemaGVR("aimclustermodels"): "AIMClusterModelList", schemaGVR("aimclustermodelsources"): "AIMClusterModelSourceList",
		schemaGVR("aimclusterservicetemplates"): "AIMClusterServiceTemplateList"},
		object("AIMClusterModelSource", "catalog", "ghcr", "dockerhub"), object("AIMClusterModel", "llama", "ghcr"), object("AIMClusterModel", "public"))
	c := &cluster{kube: kube, dynamic: dyn}
	engines, err := c.engineControllers(ctx, nil)
	if err != nil || len(engines) != 1 {
		t.Fatalf("engines %v (%v)", engines, err)
	}
	from, missing, err := c.secretsLeftBehind(ctx, engines, "aim-apiserver")
	if want := []string{"ghcr (AIMClusterModel llama, AIMClusterModelSource catalog)"}; err != nil || from != "aim-system" || !slices.Equal(missing, want) {
		t.Errorf("left behind from %q: %q (%v), want %q", from, missing, err, want)
	}
	engines[0].SystemNamespace = "aim-apiserver" // aim-engine ran with AIM_SYSTEM_NAMESPACE=aim-apiserver
	if from, missing, err := c.secretsLeftBehind(ctx, engines, "aim-apiserver"); err != nil || from != "" || missing != nil {
		t.Errorf("same system namespace: from %q, missing %q (%v)", from, missing, err)
	}
	engine.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "AIM_SYSTEM_NAMESPACE", Value: "aim-apiserver"}}
	if got := engineSystemNamespace(engine); got != "aim-apiserver" {
		t.Errorf("system namespace of an engine with AIM_SYSTEM_NAMESPACE: %q", got)
	}
}

// TestServerSystemNamespace: the system namespace aim-apiserver's pods run with, read from the pods behind its
// Service (--system-namespace, else $AIM_SYSTEM_NAMESPACE); "" when they name none.
func TestServerSystemNamespace(t *testing.T) {
	ctx := context.Background()
	pod := func(ns string, c corev1.Container) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "aim-apiserver-0", Namespace: ns, Labels: map[string]string{"app": "aim-apiserver"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}
	}
	svc := func(ns string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "aim-apiserver", Namespace: ns}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "aim-apiserver"}}}
	}
	for _, tc := range []struct {
		name string
		c    corev1.Container
		want string
	}{
		{"the chart's extraEnv", corev1.Container{Env: []corev1.EnvVar{{Name: "AIM_SYSTEM_NAMESPACE", Value: "aim-system"}}}, "aim-system"},
		{"the flag first", corev1.Container{Args: []string{"--system-namespace=ops"}, Env: []corev1.EnvVar{{Name: "AIM_SYSTEM_NAMESPACE", Value: "aim-system"}}}, "ops"},
		{"neither", corev1.Container{}, ""},
	} {
		c := &cluster{kube: kubefake.NewClientset(svc("aim-apiserver"), pod("aim-apiserver", tc.c))}
		if got := c.serverSystemNamespace(ctx, "aim-apiserver/aim-apiserver"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
