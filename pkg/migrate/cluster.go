package migrate

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apiserver"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/imagemeta"
	"github.com/aim-apiserver/aim-apiserver/pkg/migrate/freeze"
)

var (
	crdGVR        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	apiServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
)

const (
	// apiServiceName is the APIService of the group version: kube-aggregator's CRD auto-registration creates it
	// for aim-engine's CRDs, artifacts/deploy creates it for aim-apiserver.
	apiServiceName = "v1alpha1." + aim.GroupName
	// automanagedLabel marks an APIService the auto-registration owns; without it, it leaves the object alone,
	// also when the CRDs go.
	automanagedLabel = "kube-aggregator.kubernetes.io/automanaged"
	// annotationRetry on a terminating CRD asks kube-apiserver's CRD finalizer to try again now.
	annotationRetry = "aim.eai.amd.com/migrate-retry"
	// Priorities of aim-apiserver's APIService (artifacts/deploy) and of an auto-registered one.
	groupPriorityMinimum = 1000
	versionPriority      = 15
	crdVersionPriority   = 100
)

// cluster is the kube-apiserver side of a migration.
type cluster struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
	config  *rest.Config
}

func newCluster(config *rest.Config) (*cluster, error) {
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return &cluster{kube: kube, dynamic: dyn, config: config}, nil
}

// crds are the CustomResourceDefinitions of the AIM group.
func (c *cluster) crds(ctx context.Context) ([]unstructured.Unstructured, error) {
	list, err := c.dynamic.Resource(crdGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing CRDs: %w", err)
	}
	var out []unstructured.Unstructured
	for _, crd := range list.Items {
		if group, _, _ := unstructured.NestedString(crd.Object, "spec", "group"); group == aim.GroupName {
			out = append(out, crd)
		}
	}
	return out, nil
}

// apiService is the APIService of the group version, nil when there is none.
func (c *cluster) apiService(ctx context.Context) (*unstructured.Unstructured, error) {
	as, err := c.dynamic.Resource(apiServiceGVR).Get(ctx, apiServiceName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading APIService %s: %w", apiServiceName, err)
	}
	return as, nil
}

// switched says whether the APIService sends the group to the Service namespace/name.
func switched(as *unstructured.Unstructured, namespace, name string) bool {
	if as == nil {
		return false
	}
	ns, _, _ := unstructured.NestedString(as.Object, "spec", "service", "namespace")
	n, _, _ := unstructured.NestedString(as.Object, "spec", "service", "name")
	return ns == namespace && n == name && as.GetLabels()[automanagedLabel] == ""
}

// switchAPIService points the APIService at aim-apiserver in one merge patch: removing the auto-registration
// label hands the object over (the auto-registration reverts any change to an object that carries it), and
// the spec names the Service and the CA of its certificate.
func (c *cluster) switchAPIService(ctx context.Context, namespace, name string, port int32, caBundle []byte) error {
	spec := map[string]any{
		"group": aim.GroupName, "version": v1alpha1.SchemeGroupVersion.Version,
		"service":               map[string]any{"namespace": namespace, "name": name, "port": port},
		"caBundle":              base64.StdEncoding.EncodeToString(caBundle),
		"insecureSkipTLSVerify": false, "groupPriorityMinimum": groupPriorityMinimum, "versionPriority": versionPriority,
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{automanagedLabel: nil}}, "spec": spec})
	_, err := c.dynamic.Resource(apiServiceGVR).Patch(ctx, apiServiceName, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": apiServiceName}, "spec": spec,
		}}
		_, err = c.dynamic.Resource(apiServiceGVR).Create(ctx, obj, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("switching APIService %s to %s/%s: %w", apiServiceName, namespace, name, err)
	}
	return nil
}

// returnAPIService gives the APIService back to the CRD auto-registration, which makes it local again.
func (c *cluster) returnAPIService(ctx context.Context) error {
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"labels": map[string]any{automanagedLabel: "true"}},
		"spec": map[string]any{"service": nil, "caBundle": nil, "insecureSkipTLSVerify": nil,
			"groupPriorityMinimum": groupPriorityMinimum, "versionPriority": crdVersionPriority},
	})
	if _, err := c.dynamic.Resource(apiServiceGVR).Patch(ctx, apiServiceName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("returning APIService %s to the CRDs: %w", apiServiceName, err)
	}
	return nil
}

// stopDeployment scales the Deployment namespace/name to zero replicas and returns how many it wanted; found is
// false when there is no such Deployment.
func (c *cluster) stopDeployment(ctx context.Context, namespace, name string) (was int32, found bool, err error) {
	d, err := c.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, fmt.Errorf("reading Deployment %s/%s: %w", namespace, name, err)
	}
	if was = ptr.Deref(d.Spec.Replicas, 1); was == 0 {
		return 0, true, nil
	}
	if _, err := c.kube.AppsV1().Deployments(namespace).Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"replicas":0}}`),
		metav1.PatchOptions{}); err != nil {
		return was, true, fmt.Errorf("scaling Deployment %s/%s to zero: %w", namespace, name, err)
	}
	return was, true, nil
}

// waitAvailable waits until the APIService reports Available, and says why it did not.
func (c *cluster) waitAvailable(ctx context.Context, timeout time.Duration) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		as, err := c.apiService(ctx)
		if err != nil || as == nil {
			last = fmt.Sprint(err)
			return false, nil
		}
		cond := findCondition(as, "Available")
		if cond == nil {
			return false, nil
		}
		last = fmt.Sprintf("%v: %v", cond["reason"], cond["message"])
		return cond["status"] == "True", nil
	})
	if err != nil {
		return fmt.Errorf("APIService %s is not Available after %s (%s): %w", apiServiceName, timeout, last, err)
	}
	return nil
}

// list reads every object of a resource of the group through kube-apiserver, page by page.
func (c *cluster) list(ctx context.Context, gvr schema.GroupVersionResource) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	opts := metav1.ListOptions{Limit: 500}
	for {
		page, err := c.dynamic.Resource(gvr).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvr.Resource, err)
		}
		out = append(out, page.Items...)
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}

// engineDeployment is a Deployment of aim-engine's controller.
type engineDeployment struct {
	Namespace, Name string
	Replicas        int32 // desired
	Running         int32 // pods that exist
	// SystemNamespace is where it read the pull secrets of cluster models and model sources (engineSystemNamespace).
	SystemNamespace string
	// GitOps names the GitOps tool that manages the Deployment, or "".
	GitOps string
}

// gitOpsManager names the GitOps tool that applied an object, from the marks Argo CD (annotation tracking, the
// default since Argo CD 3, or its instance label) and Flux (kustomize- and helm-controller) put on it; "" when
// there are none. Argo CD's older label tracking uses app.kubernetes.io/instance, which Helm sets too: it cannot
// be told apart.
func gitOpsManager(labels, annotations map[string]string) string {
	if id := annotations["argocd.argoproj.io/tracking-id"]; id != "" {
		app, _, _ := strings.Cut(id, ":")
		return fmt.Sprintf("Argo CD (application %s)", app)
	}
	if app := labels["argocd.argoproj.io/instance"]; app != "" {
		return fmt.Sprintf("Argo CD (application %s)", app)
	}
	for _, tool := range []struct{ prefix, kind string }{{"kustomize.toolkit.fluxcd.io", "Kustomization"}, {"helm.toolkit.fluxcd.io", "HelmRelease"}} {
		if name := labels[tool.prefix+"/name"]; name != "" {
			return fmt.Sprintf("Flux (%s %s/%s)", tool.kind, labels[tool.prefix+"/namespace"], name)
		}
	}
	return ""
}

// engineControllers finds aim-engine's controller: the Deployments named by refs, or else every Deployment
// that runs an aim-engine image.
func (c *cluster) engineControllers(ctx context.Context, refs []string) ([]engineDeployment, error) {
	var out []engineDeployment
	add := func(d *appsv1.Deployment) {
		out = append(out, engineDeployment{Namespace: d.Namespace, Name: d.Name, Replicas: ptr.Deref(d.Spec.Replicas, 1),
			Running: d.Status.Replicas, GitOps: gitOpsManager(d.Labels, d.Annotations), SystemNamespace: engineSystemNamespace(d)})
	}
	if len(refs) > 0 {
		for _, ref := range refs {
			ns, name, _ := splitRef(ref)
			d, err := c.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("reading Deployment %s: %w", ref, err)
			}
			add(d)
		}
		return out, nil
	}
	list, err := c.kube.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Deployments to find aim-engine: %w", err)
	}
	for i := range list.Items {
		d := &list.Items[i]
		if slices.ContainsFunc(d.Spec.Template.Spec.Containers, func(ct corev1.Container) bool { return strings.Contains(ct.Image, "aim-engine") }) {
			add(d)
		}
	}
	return out, nil
}

// engineSystemNamespace is aim-engine's operator namespace, where its controller read the pull secrets of cluster
// models and model sources and ran the discovery Jobs of cluster templates: $AIM_SYSTEM_NAMESPACE of its
// container, else its own namespace (internal/constants/constants.go:161).
func engineSystemNamespace(d *appsv1.Deployment) string {
	return cmp.Or(systemNamespaceOf(d.Spec.Template.Spec.Containers), d.Namespace)
}

// systemNamespaceOf is the system namespace containers name: aim-apiserver's --system-namespace flag, else
// $AIM_SYSTEM_NAMESPACE (aim-engine's and aim-apiserver's); "" when they name none.
func systemNamespaceOf(containers []corev1.Container) string {
	for _, c := range containers {
		for _, a := range c.Args {
			if v, ok := strings.CutPrefix(a, "--system-namespace="); ok && v != "" {
				return v
			}
		}
		for _, e := range c.Env {
			if e.Name == "AIM_SYSTEM_NAMESPACE" && e.Value != "" {
				return e.Value
			}
		}
	}
	return ""
}

// serverSystemNamespace is the system namespace aim-apiserver's pods behind its Service (ref) run with, "" when
// they name none (the pod's namespace then) or cannot be read.
func (c *cluster) serverSystemNamespace(ctx context.Context, ref string) string {
	ns, name, _ := splitRef(ref)
	svc, err := c.kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil || len(svc.Spec.Selector) == 0 {
		return ""
	}
	pods, err := c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String()})
	if err != nil || len(pods.Items) == 0 {
		return ""
	}
	return systemNamespaceOf(pods.Items[0].Spec.Containers)
}

// secretsLeftBehind are the pull secrets the cluster models, model sources and cluster templates (their discovery
// Jobs') name that do not exist in ours, the namespace aim-apiserver reads them from, when an aim-engine controller
// read them from another (from, the first such); each with the objects that name it. aim-engine's objects name
// them; so do the copies.
func (c *cluster) secretsLeftBehind(ctx context.Context, engines []engineDeployment, ours string) (from string, missing []string, err error) {
	for _, e := range engines {
		if e.SystemNamespace != ours {
			from = e.SystemNamespace
			break
		}
	}
	if from == "" {
		return "", nil, nil
	}
	named := map[string][]string{}
	for _, k := range []struct{ plural, kind string }{{"aimclustermodels", "AIMClusterModel"}, {"aimclustermodelsources", "AIMClusterModelSource"},
		{"aimclusterservicetemplates", "AIMClusterServiceTemplate"}} { // a cluster template's: its discovery Job's
		items, err := c.list(ctx, schemaGVR(k.plural))
		if err != nil {
			return from, nil, err
		}
		for _, it := range items {
			refs, _, _ := unstructured.NestedSlice(it.Object, "spec", "imagePullSecrets")
			for _, r := range refs {
				if name, _ := r.(map[string]any)["name"].(string); name != "" {
					named[name] = append(named[name], k.kind+" "+it.GetName())
				}
			}
		}
	}
	var refs []corev1.LocalObjectReference
	for _, name := range slices.Sorted(maps.Keys(named)) {
		refs = append(refs, corev1.LocalObjectReference{Name: name})
	}
	// Read as the controller reads them, so that what is named missing is what it will miss.
	_, gone, err := imagemeta.ExistingPullSecrets(ctx, c.kube, ours, refs)
	if err != nil {
		return from, nil, err
	}
	for _, ref := range gone {
		name := strings.TrimPrefix(ref, ours+"/")
		missing = append(missing, fmt.Sprintf("%s (%s)", name, strings.Join(named[name], ", ")))
	}
	return from, missing, nil
}

// secretsLeftBehindWarning says what aim-apiserver will miss in ours of the secrets aim-engine read from from.
func secretsLeftBehindWarning(from, ours string, missing []string) string {
	return fmt.Sprintf("aim-engine read the pull secrets of cluster models, model sources and cluster templates from namespace %s; aim-apiserver reads them "+
		"from %s (--system-namespace), where these do not exist: %s. Copy them into %s, or run aim-apiserver with "+
		"AIM_SYSTEM_NAMESPACE=%s (the chart's extraEnv) and keep that namespace when removing aim-engine (docs/migration.md, step 1)",
		from, ours, strings.Join(missing, "; "), ours, from)
}

// username is who runs the migration, exempt from the freeze.
func (c *cluster) username(ctx context.Context) (string, error) {
	r, err := c.kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("finding out who runs the migration: %w", err)
	}
	return r.Status.UserInfo.Username, nil
}

// freeze stops every write to the group served by kube-apiserver (the CRDs) except the migration's own. The
// policy does not reach aim-apiserver: admission of an aggregated API runs in the aggregated server.
func (c *cluster) freeze(ctx context.Context, exempt string) error {
	client := c.kube.AdmissionregistrationV1()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: freeze.PolicyName, Labels: map[string]string{"app.kubernetes.io/managed-by": "aim-apiserver-migrate"}},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{aim.GroupName}, APIVersions: []string{"*"},
						Resources: []string{"*/*"}, Scope: ptr.To(admissionregistrationv1.AllScopes)},
				},
			}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name: "not-the-migration", Expression: fmt.Sprintf("request.userInfo.username != %q", exempt),
			}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "false",
				Message:    "aim.eai.amd.com is being migrated to aim-apiserver: writes wait until `aim-apiserver migrate` finishes (or --rollback)",
				Reason:     ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: freeze.PolicyName, Labels: policy.Labels},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: freeze.PolicyName, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	if _, err := client.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the freeze policy: %w", err)
	}
	if _, err := client.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the freeze policy binding: %w", err)
	}
	return nil
}

// frozen proves the freeze holds: a dry-run create by another user (impersonated, with the administrator's
// power, so that only admission can refuse it) is denied by the policy.
func (c *cluster) frozen(ctx context.Context, gvr schema.GroupVersionResource, kind string, timeout time.Duration) error {
	cfg := rest.CopyConfig(c.config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "aim-migration-probe", Groups: []string{"system:masters"}}
	probe, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": map[string]any{"name": "aim-migration-probe"},
	}}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		_, last = probe.Resource(gvr).Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return freeze.Denied(last), nil
	})
	if err != nil {
		return fmt.Errorf("the freeze policy does not hold after %s (last answer to a probe write: %v)", timeout, last)
	}
	return nil
}

// unfreeze removes the freeze.
func (c *cluster) unfreeze(ctx context.Context) error {
	client := c.kube.AdmissionregistrationV1()
	err1 := client.ValidatingAdmissionPolicyBindings().Delete(ctx, freeze.PolicyName, metav1.DeleteOptions{})
	err2 := client.ValidatingAdmissionPolicies().Delete(ctx, freeze.PolicyName, metav1.DeleteOptions{})
	var errs []error
	for _, err := range []error{err1, err2} {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("removing the freeze policy: %w", err)
	}
	return nil
}

// caBundle reads ca.crt of aim-apiserver's serving Secret.
func (c *cluster) caBundle(ctx context.Context, ref string) ([]byte, error) {
	ns, name, _ := splitRef(ref)
	s, err := c.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// kustomize's secretGenerator appends a content hash to the name: take the one such Secret.
		list, lerr := c.kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
		if lerr != nil {
			return nil, fmt.Errorf("listing Secrets in %s for the APIService's caBundle: %w", ns, lerr)
		}
		var found []string
		for i := range list.Items {
			if suffix, ok := strings.CutPrefix(list.Items[i].Name, name+"-"); ok && len(suffix) == 10 && !strings.Contains(suffix, "-") {
				s, found = &list.Items[i], append(found, list.Items[i].Name)
			}
		}
		if len(found) == 1 {
			err = nil
		} else if len(found) > 1 {
			return nil, fmt.Errorf("the serving Secret %s does not exist and several Secrets could be it (%s): pass --serving-secret", ref, strings.Join(found, ", "))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the serving Secret %s for the APIService's caBundle: %w", ref, err)
	}
	ca := s.Data["ca.crt"]
	if len(ca) == 0 {
		return nil, fmt.Errorf("the serving Secret %s has no ca.crt for the APIService's caBundle", ref)
	}
	return ca, nil
}

// engineNamespace reports whether namespace ns is the Namespace aim-engine's kustomize manifests declare
// (config/manager/manager.yaml, named aim-system by config/default): removing aim-engine with kubectl delete -k,
// kubectl delete -f of an install.yaml built from them, or make undeploy deletes it, with everything in it.
func (c *cluster) engineNamespace(ctx context.Context, ns string) (bool, error) {
	n, err := c.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("reading namespace %s: %w", ns, err)
	}
	l := n.GetLabels()
	return l["app.kubernetes.io/name"] == "aim-engine" && l["app.kubernetes.io/managed-by"] == "kustomize", nil
}

// engineNamespaceWarning says what removing aim-engine's kustomize installation would do to aim-apiserver in ns.
func engineNamespaceWarning(ns string) string {
	return fmt.Sprintf("aim-apiserver runs in namespace %s, which aim-engine's kustomize manifests declare: removing aim-engine with "+
		"kubectl delete -k, kubectl delete -f of its install.yaml or make undeploy deletes the namespace, and aim-apiserver and its "+
		"etcd with it. Remove aim-engine without its Namespace (docs/migration.md, \"Uninstalling aim-engine\")", ns)
}

// serviceReady checks that aim-apiserver's Service exists and has a ready endpoint.
func (c *cluster) serviceReady(ctx context.Context, ref string) error {
	ns, name, _ := splitRef(ref)
	if _, err := c.kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("aim-apiserver's Service %s: %w (install aim-apiserver first, without its APIService)", ref, err)
	}
	slices, err := c.kube.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
	if err != nil {
		return fmt.Errorf("reading the endpoints of %s: %w", ref, err)
	}
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			if ptr.Deref(e.Conditions.Ready, false) {
				return nil
			}
		}
	}
	return fmt.Errorf("aim-apiserver's Service %s has no ready endpoint: is aim-apiserver running?", ref)
}

// namespaceExists says whether a namespace exists (a terminating one does).
func (c *cluster) namespaceExists(ctx context.Context, name string) (bool, error) {
	_, err := c.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("reading namespace %s: %w", name, err)
}

// openAPIWait is how long migrate waits for kube-apiserver to serve the OpenAPI document after the switch before
// it registers the APIService anew (ensureOpenAPI).
const openAPIWait = 10 * time.Second

// openAPIPath is where kube-apiserver serves the group's OpenAPI v3 document once it has aggregated it (the
// version as in apiServiceName).
const openAPIPath = "/openapi/v3/apis/" + aim.GroupName + "/v1alpha1"

// crdOpenAPIServed reports whether kube-apiserver serves its OpenAPI documents with the CRDs' schema of the group:
// its v2 document, which it merges from every source and answers with 503 while two of them hold the same path
// (the CRDs' and a cached copy of aim-apiserver's), and the group's v3 document, not aim-apiserver's. kubectl
// validates against them: until they are served, kubectl apply fails with "failed to download openapi". The
// group's document is read first: the v2 document holds every kind of the cluster (megabytes), fetched only once
// the group's is the CRDs'.
func (c *cluster) crdOpenAPIServed(ctx context.Context) bool {
	if title, ok := c.openAPITitle(ctx); !ok || title == apiserver.OpenAPITitle {
		return false
	}
	return c.kube.Discovery().RESTClient().Get().AbsPath("/openapi/v2").Do(ctx).Error() == nil
}

// openAPITitle is the title of the group's OpenAPI v3 document as kube-apiserver serves it: aim-apiserver's
// (apiserver.OpenAPITitle) or the CRDs'. ok is false while it serves none.
func (c *cluster) openAPITitle(ctx context.Context) (title string, ok bool) {
	body, err := c.kube.Discovery().RESTClient().Get().AbsPath(openAPIPath).DoRaw(ctx)
	if err != nil {
		return "", false
	}
	var doc struct {
		Info struct{ Title string } `json:"info"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return "", false
	}
	return doc.Info.Title, true
}

// ensureOpenAPI makes kube-apiserver serve aim-apiserver's OpenAPI v3 document, and reports whether it had to
// register the APIService anew for that. kube-aggregator fetches the document when an APIService is added, a
// minute after a success and after a failure; an existing APIService that changes from the CRDs to a Service is
// none of these (its OpenAPI controller re-queues an updated APIService only after a failed fetch), so the
// migrated group could go without a schema (kubectl explain) until kube-apiserver restarts. When aim-apiserver's
// document (its title tells it from the CRDs', which kube-apiserver may serve for a moment after they are gone)
// is not served within that time, the APIService is deleted and created again as it is: the group is unserved for
// that moment (clients retry, as after any APIService change). The copy to create is saved in dir first
// (pendingAPIServiceFile), so that a failed create or a stopped run loses nothing.
func (c *cluster) ensureOpenAPI(ctx context.Context, within time.Duration, dir string) (bool, error) {
	served := func(ctx context.Context) (bool, error) {
		title, ok := c.openAPITitle(ctx)
		return ok && title == apiserver.OpenAPITitle, nil
	}
	if err := wait.PollUntilContextTimeout(ctx, 2*time.Second, within, true, served); err == nil {
		return false, nil
	}
	as, err := c.apiService(ctx)
	if err != nil {
		return false, err
	}
	if as == nil {
		return false, fmt.Errorf("APIService %s is gone: nothing serves the group", apiServiceName)
	}
	again := &unstructured.Unstructured{Object: map[string]any{"apiVersion": as.GetAPIVersion(), "kind": as.GetKind(),
		"metadata": map[string]any{"name": as.GetName()}, "spec": as.Object["spec"]}}
	again.SetLabels(as.GetLabels())
	again.SetAnnotations(as.GetAnnotations())
	path, err := savePendingAPIService(dir, again)
	if err != nil {
		return false, fmt.Errorf("registering APIService %s anew: %w", apiServiceName, err)
	}
	if err := c.deleteAPIService(ctx, as); err != nil {
		return false, fmt.Errorf("registering APIService %s anew: %w", apiServiceName, err)
	}
	if err := c.createAPIService(ctx, again, within); err != nil {
		return true, fmt.Errorf("registering APIService %s anew: %w; nothing serves %s until it exists: run migrate "+
			"again, or kubectl create -f %s", apiServiceName, err, aim.GroupName, path)
	}
	return true, removePendingAPIService(dir)
}

// deleteAPIService deletes the APIService as it was read (a UID precondition: one created meanwhile stays), so
// that kube-apiserver drops what it cached of it when it is registered again; one gone already is no error.
func (c *cluster) deleteAPIService(ctx context.Context, as *unstructured.Unstructured) error {
	uid := as.GetUID()
	err := c.dynamic.Resource(apiServiceGVR).Delete(ctx, apiServiceName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting APIService %s: %w", apiServiceName, err)
	}
	return nil
}

// createAPIService creates the APIService, trying again for within while kube-apiserver answers with an error
// that can pass (a timeout, a lost connection, a throttle). One that exists already was created by someone else
// (a Helm upgrade, a GitOps sync): that serves too.
func (c *cluster) createAPIService(ctx context.Context, as *unstructured.Unstructured, within time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, within/10, within, true, func(ctx context.Context) (bool, error) {
		_, last = c.dynamic.Resource(apiServiceGVR).Create(ctx, as, metav1.CreateOptions{})
		switch {
		case last == nil, apierrors.IsAlreadyExists(last):
			return true, nil
		case apierrors.IsInvalid(last), apierrors.IsForbidden(last), apierrors.IsBadRequest(last):
			return false, last
		}
		return false, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("creating it: %w", last)
	}
	if err != nil {
		return fmt.Errorf("creating it: %w", err)
	}
	return nil
}
