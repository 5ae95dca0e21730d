package discovery

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
)

const (
	// ContainerName is the discovery container; its termination message carries the result.
	ContainerName = "discovery"

	LabelName      = "app.kubernetes.io/name"
	LabelComponent = "app.kubernetes.io/component"

	NameValue      = "aim-discovery"
	ComponentValue = "discovery"
	// AnnotationSpecHash records the inputs a discovery Job ran with (JobHash).
	AnnotationSpecHash = "aim.eai.amd.com/discovery-spec-hash"

	namePrefix = "discover-"
	// "discover-" + 40 + "-" + 8 hex + "-" + attempt (up to 4 digits) fits the 63 characters of a pod label.
	maxTemplateInJob = 40
	maxAttempt       = 9999
	nonRootID        = 65532
	// ttlAfterFinished is aim-engine's (DiscoveryJobTTLSeconds in its discovery.go): the result is in the template's
	// status by then.
	ttlAfterFinished = 60
)

// JobSpec is everything a discovery Job depends on. Equal specs build equal Jobs with equal names.
type JobSpec struct {
	// TemplateName and TemplateKind identify the template; Namespace is where the Job runs.
	TemplateName string
	TemplateKind string
	Namespace    string
	// Owner is the template's controller reference, so that deleting it removes the Job.
	Owner metav1.OwnerReference
	// Controller names the template's controller in the framework label (childlabels.ServiceTemplate or
	// ClusterServiceTemplate).
	Controller string
	// Labels are propagated from the template; they never override the Job's own labels, and win over the
	// framework label, as in aim-engine.
	Labels map[string]string

	Image string
	// PullImage is the reference the pod pulls Image by (a mirror's, with rewriteImages); empty: Image. It is no
	// input of discovery: where the image comes from changes no result.
	PullImage          string
	ImagePullSecrets   []corev1.LocalObjectReference
	ServiceAccountName string

	// Attempt numbers the Jobs of one spec, from 1; a retry after a failure gets a new Job.
	Attempt int32

	Metric, Precision string
	GPUModel          string
	GPUCount          int32
	ProfileID         string
	Env               []corev1.EnvVar

	// Placement: the GPU node pool, without consuming GPUs.
	NodeAffinity      *corev1.NodeAffinity
	Tolerations       []corev1.Toleration
	NodeSelector      map[string]string
	PriorityClassName string
}

// Hash identifies the inputs of discovery's result, what status.discovery.specHash records: a result holds, and
// the backoff counts, while the hash is unchanged. The pull secrets and the service account are no inputs: they
// decide whether the pod can pull the image, not what discovery finds, so changing them (a rotated secret of a
// model that has many templates) leaves Ready templates Ready. They are in JobHash.
func (s JobSpec) Hash() string {
	// The owner's UID is an input so that a template re-created under the same name never adopts the result or
	// the Jobs of its predecessor.
	inputs := struct {
		Template, Kind, UID, Image, Metric, Precision, GPUModel, ProfileID string
		GPUCount                                                           int32
		Env                                                                []corev1.EnvVar
	}{s.TemplateName, s.TemplateKind, string(s.Owner.UID), s.Image, s.Metric, s.Precision,
		s.GPUModel, s.ProfileID, s.GPUCount, s.Env}
	return hash(inputs)
}

// JobHash identifies the Job: the inputs of Hash and the pull secrets and service account its pod runs with, so
// that a discovery run after one of them changed gets a new Job instead of the one that could not pull. It is
// the hash earlier releases recorded as status.discovery.specHash, computed as they did (their Job names stay
// the same, and their records are recognised).
func (s JobSpec) JobHash() string {
	inputs := struct {
		Template, Kind, UID, Image, SA, Metric, Precision, GPUModel, ProfileID string
		GPUCount                                                               int32
		Env                                                                    []corev1.EnvVar
		Secrets                                                                []corev1.LocalObjectReference
	}{s.TemplateName, s.TemplateKind, string(s.Owner.UID), s.Image, s.ServiceAccountName, s.Metric, s.Precision,
		s.GPUModel, s.ProfileID, s.GPUCount, s.Env, s.ImagePullSecrets}
	return hash(inputs)
}

// hash is the first 16 hex digits of the SHA-256 of v's JSON.
func hash(v any) string {
	data, _ := json.Marshal(v) // plain structs: cannot fail
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:16]
}

// JobName is "discover-<template>-<hash>-<attempt>", within the 63 characters a Job's pod labels allow.
func (s JobSpec) JobName() string {
	t := strings.TrimRight(truncate(s.TemplateName, maxTemplateInJob), "-.")
	return namePrefix + t + "-" + s.JobHash()[:8] + "-" + strconv.Itoa(int(min(max(s.Attempt, 1), maxAttempt)))
}

// AttemptOf returns the attempt number of a discovery Job name, or 0.
func AttemptOf(jobName string) int32 {
	i := strings.LastIndexByte(jobName, '-')
	n, err := strconv.Atoi(jobName[i+1:])
	if i < 0 || err != nil {
		return 0
	}
	return int32(n)
}

// environment is the discovery container's environment: quiet logs, the template's env, then the contract variables,
// merged by name so that no name appears twice.
func (s JobSpec) environment() []corev1.EnvVar {
	vars := []corev1.EnvVar{{Name: "AIM_LOG_LEVEL_ROOT", Value: "CRITICAL"}, {Name: "AIM_LOG_LEVEL", Value: "CRITICAL"}}
	vars = env.Merge(vars, s.Env)
	var contract []corev1.EnvVar
	add := func(name, value string) {
		if value != "" {
			contract = append(contract, corev1.EnvVar{Name: name, Value: value})
		}
	}
	add("AIM_METRIC", s.Metric)
	add("AIM_PRECISION", s.Precision)
	add("AIM_GPU_MODEL", s.GPUModel)
	if s.GPUCount > 0 {
		add("AIM_GPU_COUNT", strconv.Itoa(int(s.GPUCount)))
	}
	add("AIM_PROFILE_ID", s.ProfileID)
	return env.Merge(vars, contract)
}

// BuildJob returns the discovery Job.
func BuildJob(s JobSpec) *batchv1.Job {
	labels := s.labels()
	var affinity *corev1.Affinity
	if s.NodeAffinity != nil {
		affinity = &corev1.Affinity{NodeAffinity: s.NodeAffinity.DeepCopy()}
	}
	return &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: s.JobName(), Namespace: s.Namespace, Labels: labels,
			Annotations:     map[string]string{AnnotationSpecHash: s.JobHash()},
			OwnerReferences: []metav1.OwnerReference{s.Owner},
		},
		Spec: batchv1.JobSpec{
			// The controller retries with its own backoff and records each attempt.
			BackoffLimit:            ptr.To[int32](0),
			TTLSecondsAfterFinished: ptr.To[int32](ttlAfterFinished),
			// No ActiveDeadlineSeconds, as aim-engine's: pulling an image of tens of GB from a slow or air-gapped
			// registry can outlast any deadline, which would fail every attempt.
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: childlabels.ForPods(labels)},
				Spec: corev1.PodSpec{
					RestartPolicy:      corev1.RestartPolicyNever,
					ServiceAccountName: s.ServiceAccountName,
					ImagePullSecrets:   append([]corev1.LocalObjectReference(nil), s.ImagePullSecrets...),
					Affinity:           affinity,
					Tolerations:        append([]corev1.Toleration(nil), s.Tolerations...),
					NodeSelector:       s.NodeSelector,
					PriorityClassName:  s.PriorityClassName,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](nonRootID),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					// The container requests no resources, as aim-engine's: above all no GPU, since discovery runs on
					// the GPU node pool without taking GPUs.
					Containers: []corev1.Container{{
						Name:  ContainerName,
						Image: cmp.Or(s.PullImage, s.Image),
						Args:  []string{"dry-run", "--format=json"},
						Env:   s.environment(),
						// The result is read from the termination message, so no log access is needed.
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							RunAsNonRoot:             ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
}

// labels are the Job's labels in aim-engine's order, first wins (childlabels.Merge): the Job's own
// (BuildDiscoveryJob, internal/aimservicetemplate/discovery.go:198), then the template's propagated labels
// (PropagateLabels, internal/controller/utils/apply.go:292), then the controller's label naming the template,
// which its pipeline adds after propagating (internal/controller/utils/reconciler.go:326-333) and only where
// the key is absent (apply.go:229).
func (s JobSpec) labels() map[string]string {
	own := map[string]string{LabelName: NameValue, LabelComponent: ComponentValue,
		aimv1.LabelManagedBy: aimv1.ManagedByValue, aimv1.LabelTemplate: naming.LabelValue(s.TemplateName)}
	return childlabels.Merge(s.Controller, s.TemplateName, own, s.Labels)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// TerminationOutput returns the discovery container's termination message from a finished pod.
func TerminationOutput(pod *corev1.Pod) (string, bool) { return TerminationMessage(pod, ContainerName) }

// TerminationMessage returns a container's termination message from a finished pod.
func TerminationMessage(pod *corev1.Pod, container string) (string, bool) {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == container && cs.State.Terminated != nil && cs.State.Terminated.Message != "" {
			return cs.State.Terminated.Message, true
		}
	}
	return "", false
}
