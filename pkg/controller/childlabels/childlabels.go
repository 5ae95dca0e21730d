// Package childlabels computes the labels of the objects a controller creates for a parent, as aim-engine
// does, so that label selectors written for aim-engine's children keep working.
//
// Precedence, first wins: the child's own labels; then the parent's labels that propagate (every
// aim.eai.amd.com/ label, and those matching the runtime config's labelPropagation globs); then the
// "framework" label aim.eai.amd.com/<controller>.name naming the parent. app.kubernetes.io/managed-by is
// always aim-apiserver, whatever the parent carries: it is how the controllers tell their own children from a
// user's (stale deletes, finalizers), and a parent deployed by Helm or Argo CD, its managed-by propagated by a
// glob such as app.kubernetes.io/*, would otherwise disown them. (aim-engine's value is aim-engine on
// InferenceServices, HTTPRoutes and derived templates, aim-<controller>-controller on the rest: see
// docs/compatibility.md.)
package childlabels

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// The controllers' names in the framework label aim.eai.amd.com/<controller>.name.
const (
	Service                = "service"
	ServiceTemplate        = "service-template"
	ClusterServiceTemplate = "cluster-service-template"
	Model                  = "model"
	ClusterModel           = "cluster-model"
	TemplateCache          = "template-cache"
	Artifact               = "artifact"
	ClusterModelSource     = "cluster-model-source"
)

// Key is the framework label of a controller: aim.eai.amd.com/<controller>.name.
func Key(controller string) string { return aimv1.GroupName + "/" + controller + ".name" }

// For returns the labels of a child of parent created by controller, with own labels first.
func For(controller string, parent metav1.Object, rc runtimeconfig.Resolved, own map[string]string) map[string]string {
	return Merge(controller, parent.GetName(), own, rc.PropagatedLabels(parent.GetLabels()))
}

// Merge is For over labels already propagated: own, then propagated, then the framework label of controller
// naming parent, each only where its key is still free; managed-by is aim-apiserver's in any case.
func Merge(controller, parent string, own, propagated map[string]string) map[string]string {
	out := make(map[string]string, len(own)+len(propagated)+2)
	for _, m := range []map[string]string{own, propagated, {Key(controller): naming.LabelValue(parent)}} {
		for k, v := range m {
			if _, set := out[k]; !set {
				out[k] = v
			}
		}
	}
	out[aimv1.LabelManagedBy] = aimv1.ManagedByValue
	return out
}

// MadeBy reports whether a child's labels say controller made it: aim-apiserver's managed-by, or the one
// aim-engine's controller of the same name gives the children it makes (aim-<controller>-controller,
// reconciler.go:237), which children made before a migration keep. The finalizers clean up after both, as
// aim-engine's did; a user's object carries neither and stays.
func MadeBy(labels map[string]string, controller string) bool {
	v := labels[aimv1.LabelManagedBy]
	return v == aimv1.ManagedByValue || v == "aim-"+controller+"-controller"
}

// ForPods are the labels of a Job's pod template: the Job's, without managed-by (the Job controller manages
// the pods).
func ForPods(job map[string]string) map[string]string {
	out := make(map[string]string, len(job))
	for k, v := range job {
		if k != aimv1.LabelManagedBy {
			out[k] = v
		}
	}
	return out
}
