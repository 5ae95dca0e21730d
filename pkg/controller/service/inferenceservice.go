package service

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	kservev1beta1 "github.com/kserve/kserve/pkg/apis/serving/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/kserve"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/manager"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// Fixed environment of every inference container.
var baseEnv = []corev1.EnvVar{{Name: "AIM_CACHE_PATH", Value: kserve.CacheRoot}, {Name: "VLLM_ENABLE_METRICS", Value: "true"}}

// Environment is the inference container's environment as aim-engine assembles it: merged by name from the
// lowest layer to the highest (the fixed variables, the runtime config, the template's profile id, metric and
// precision, the template's env, the custom model's id, the service's env), then sorted by name. The model's
// own env reaches the pod only through the templates it creates; the sort decides which variables a
// $(VAR) reference sees.
func Environment(svc *aimv1.AIMService, t Template, rc runtimeconfig.Resolved) []corev1.EnvVar {
	var profile []corev1.EnvVar
	add := func(k, v string) {
		if v != "" {
			profile = append(profile, corev1.EnvVar{Name: k, Value: v})
		}
	}
	add("AIM_PROFILE_ID", t.Spec.ProfileID)
	add("AIM_METRIC", string(ptr.Deref(t.Spec.Metric, "")))
	add("AIM_PRECISION", string(ptr.Deref(t.Spec.Precision, "")))
	var modelID []corev1.EnvVar
	if len(t.Spec.ModelSources) > 0 {
		modelID = []corev1.EnvVar{{Name: "AIM_MODEL_ID", Value: t.Spec.ModelSources[0].ModelID}}
	}
	out := env.Merge(baseEnv, rc.Spec.Env, profile, t.Spec.Env, modelID, svc.Spec.Env)
	slices.SortStableFunc(out, func(a, b corev1.EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// InferenceService is the input of the service's InferenceService.
func InferenceService(svc *aimv1.AIMService, m Model, t Template, rc runtimeconfig.Resolved, mounts []kserve.CacheMount) kserve.Input {
	own := map[string]string{labelComponent: "inference", aimv1.LabelService: naming.LabelValue(svc.Name),
		LabelTemplate: naming.LabelValue(t.Name)}
	// The template's model, as aim-engine labels it: the model the service resolved unless spec.template names
	// a template of another model.
	if t.Spec.ModelName != "" {
		own[LabelModel] = naming.LabelValue(t.Spec.ModelName)
	}
	// As aim-engine labels them: the profile discovery found, not the template's spec.
	if p := t.Status.Profile; p != nil {
		if v := naming.SanitizedLabelValue(string(p.Metadata.Metric)); v != "" {
			own[LabelMetric] = v
		}
		if v := naming.SanitizedLabelValue(string(p.Metadata.Precision)); v != "" {
			own[LabelPrecision] = v
		}
	}
	labels := childlabels.For(childlabels.Service, svc, rc, own)
	in := kserve.Input{
		Name: WorkloadName(svc), Namespace: svc.Namespace, Owner: ownerRef(svc), Labels: labels,
		Image: m.Spec.Image, NodeAffinity: t.Status.ResolvedNodeAffinity, Scheduling: rc.Spec.Scheduling,
		Env: Environment(svc, t, rc), ServiceResources: svc.Spec.Resources.Core(),
		ImagePullSecrets:   unionSecrets(svc.Spec.ImagePullSecrets, t.Spec.ImagePullSecrets, m.Spec.ImagePullSecrets),
		ServiceAccountName: cmp.Or(svc.Spec.ServiceAccountName, cmp.Or(t.Spec.ServiceAccountName, m.Spec.ServiceAccountName)),
		Scale:              kserve.ScaleOf(&svc.Spec), AutoScaling: svc.Spec.AutoScaling,
		Caches: mounts,
	}
	hw := t.Status.ResolvedHardware
	if hw == nil {
		hw = t.Spec.Hardware
	}
	if hw != nil && hw.GPU != nil {
		in.GPUs, in.GPUResource = hw.GPU.Requests, corev1.ResourceName(hw.GPU.ResourceName)
	}
	// Only the template's resources, as in aim-engine: a model turns custom.hardware.cpu into the resources of
	// the templates it creates; hardware.cpu of a template written by hand places nothing.
	in.TemplateResources = t.Spec.Resources.Core()
	return in
}

// workload is everything the service's InferenceService is built from: build reads nothing else, so that
// inputs, which identifies each of them, identifies the InferenceService built.
type workload struct {
	svc    *aimv1.AIMService
	model  Model
	run    Template
	rc     runtimeconfig.Resolved
	mounts []kserve.CacheMount
	// image is the model's image as the predictor pulls it (rewriteImages).
	image string
}

func (w workload) build() *kservev1beta1.InferenceService {
	in := InferenceService(w.svc, w.model, w.run, w.rc, w.mounts)
	in.Image = w.image
	return kserve.Build(in)
}

// inputs identifies the workload: the objects it reads by their versions, which change with anything in them,
// and the values it holds besides. It is "" when an object has no version to tell its state by.
func (w workload) inputs() string {
	svc := reconcile.Version(w.svc)
	// A runtime config that does not exist is a state too: Ref is nil then.
	if svc == "" || w.model.Version == "" || w.run.Version == "" || w.rc.Ref != nil && w.rc.Version == "" {
		return ""
	}
	// Quoted, the strings cannot run into each other.
	return fmt.Sprintf("%q %q %q %q %q %q", svc, w.model.Version, w.run.Version, w.rc.Version, w.image, w.mounts)
}

// unionSecrets lists every pull secret once, in order of precedence.
func unionSecrets(lists ...[]corev1.LocalObjectReference) []corev1.LocalObjectReference {
	var out []corev1.LocalObjectReference
	for _, l := range lists {
		for _, s := range l {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// eventsOf are the events about the object of uid: those of an earlier object of the same name are not its.
func eventsOf(events []corev1.Event, uid types.UID) []corev1.Event {
	var out []corev1.Event
	for _, e := range events {
		if e.InvolvedObject.UID == uid {
			out = append(out, e)
		}
	}
	return out
}

// aimEngineManagedBy is the managed-by label aim-engine gives the InferenceServices it makes (kserve.go:202).
const aimEngineManagedBy = "aim-engine"

// UnchangedSinceAimEngine reports whether live is an InferenceService aim-engine made (a migration brings them)
// that already holds every field desired sets, but for those that only say who manages it: the managed-by
// label, the owner reference's blockOwnerDeletion, the applied-hash annotation. An apply would change only
// those labels and annotations, which KServe copies into the predictor's pod template: every predictor would
// roll out once after a migration, its new pod needing a GPU and loading the model again, for nothing. Such an
// InferenceService is left as aim-engine made it until the service changes it; a hand edit is drift, and
// applied as for any other.
func UnchangedSinceAimEngine(desired, live *kservev1beta1.InferenceService) bool {
	if live == nil || live.Labels[aimv1.LabelManagedBy] != aimEngineManagedBy {
		return false
	}
	want, err := reconcile.ApplyObject(desired)
	if err != nil {
		return false
	}
	meta, _ := want["metadata"].(map[string]any)
	if labels, ok := meta["labels"].(map[string]any); ok {
		labels[aimv1.LabelManagedBy] = aimEngineManagedBy
	}
	if mine, theirs := metav1.GetControllerOf(desired), metav1.GetControllerOf(live); mine != nil && theirs != nil && mine.UID == theirs.UID {
		delete(meta, "ownerReferences")
	}
	cur, err := manager.AsUnstructured(live)
	return err == nil && reconcile.Drift(cur.Object, want) == ""
}
