package artifact

import (
	"cmp"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

const (
	// DownloaderName names the ServiceAccount downloads run under, its RoleBinding and the ClusterRole the
	// binding grants (artifacts/deploy): patching aimartifacts/status and nothing else (F15).
	DownloaderName = "aim-artifact-downloader"

	// LabelArtifact names the artifact of a child (aim-engine's framework label of the artifact controller).
	LabelArtifact = "aim.eai.amd.com/artifact.name"
	// The labels aim-engine puts on an artifact's volume and Jobs.
	LabelComponent   = "aim.eai.amd.com/component"
	LabelCacheName   = "aim.eai.amd.com/cache.name"
	LabelCacheType   = "aim.eai.amd.com/cache.type"
	LabelSourceModel = "aim.eai.amd.com/source-model"
	// CacheTypeArtifact marks the Jobs; CacheTypeTemplateCache the volume of an artifact a template cache made.
	CacheTypeArtifact      = "artifact"
	CacheTypeTemplateCache = "template-cache"
	// LabelTemplateCreated marks artifacts a template cache made (aim-engine's label, without a domain).
	LabelTemplateCreated = "template-created"

	ComponentCheckSize = "check-size"
	ComponentDownload  = "download"

	// CheckSizeContainer and DownloadContainer are the containers of the two Jobs.
	CheckSizeContainer = "check-size"
	DownloadContainer  = "model-download"
	// MountPath is where the download Job mounts the volume.
	MountPath = "/cache"

	nonRootID    int64 = 1000
	backoffLimit int32 = 2
	// checkSizeTTL removes a finished check-size Job; its result lives on in status.discoveredSizeBytes.
	checkSizeTTL int32 = 300
	// downloadTTL removes a finished download Job; the DownloadComplete condition remembers the success.
	downloadTTL int32 = 600
	cacheVolume       = "cache"
)

// PVCName is the volume of an artifact, as aim-engine names it; the artifact's UID in the hash keeps the
// volumes of a re-created artifact apart from those of its predecessor.
func PVCName(a *aimv1.AIMArtifact) string {
	return naming.DerivedName([]string{a.Name, "cache"}, naming.HashLength, naming.MaxLength, a.UID)
}

// JobLabels are the labels of an artifact's Job of a component: aim-engine's, the artifact's propagated
// labels and the framework label naming the artifact.
func JobLabels(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved, component string) map[string]string {
	return childlabels.For(childlabels.Artifact, a, rc, map[string]string{
		LabelCacheName: naming.LabelValue(a.Name), LabelCacheType: CacheTypeArtifact, LabelComponent: component,
	})
}

// jobSelector finds the Jobs of a component of an artifact, whatever else they are labelled with.
func jobSelector(a *aimv1.AIMArtifact, component string) map[string]string {
	return map[string]string{LabelArtifact: naming.LabelValue(a.Name), LabelComponent: component}
}

// PVCLabels are the labels of an artifact's volume, as aim-engine sets them: the artifact, the cache type
// when a template cache made the artifact, and the model the source holds.
func PVCLabels(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved) map[string]string {
	own := map[string]string{LabelCacheName: naming.LabelValue(a.Name)}
	if a.Labels[LabelTemplateCreated] == "true" {
		own[LabelCacheType] = CacheTypeTemplateCache
	}
	if src := a.Spec.SourceURI; src != "" {
		_, rest, found := strings.Cut(src, "://")
		if !found {
			rest = src
		}
		own[LabelSourceModel] = naming.SanitizedLabelValue(rest)
	}
	return childlabels.For(childlabels.Artifact, a, rc, own)
}

func ownerRef(a *aimv1.AIMArtifact) metav1.OwnerReference {
	return *metav1.NewControllerRef(a, aimv1.SchemeGroupVersion.WithKind("AIMArtifact"))
}

// StorageClassName is the artifact's class, else the runtime config's default, else nil (the cluster default).
func StorageClassName(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved) *string {
	if a.Spec.StorageClassName != "" {
		return ptr.To(a.Spec.StorageClassName)
	}
	if s := rc.Spec.Storage; s != nil && s.DefaultStorageClassName != nil && *s.DefaultStorageClassName != "" {
		return ptr.To(*s.DefaultStorageClassName)
	}
	return nil
}

// BuildPVC is the volume of an artifact holding allocated bytes.
func BuildPVC(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved, allocated resource.Quantity) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: PVCName(a), Namespace: a.Namespace, Labels: PVCLabels(a, rc),
			OwnerReferences: []metav1.OwnerReference{ownerRef(a)}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      append([]corev1.PersistentVolumeAccessMode(nil), rc.AccessModes()...),
			StorageClassName: StorageClassName(a, rc),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: allocated}},
		},
	}
}

// image is the downloader image of an artifact.
func image(a *aimv1.AIMArtifact, registries *mirrors.Config) string {
	return registries.Rewrite(cmp.Or(a.Spec.ModelDownloadImage, aimv1.DefaultModelDownloadImage))
}

// job is what both Jobs share: ownership, labels, retries, the dedicated service account and a non-root pod.
// The name hashes the artifact's UID and the pod spec (aim-engine hashes only the UID): a spec change (say,
// fixed credentials) runs a new Job at once instead of waiting for the failed one to expire, and a finished
// Job is never re-run for nothing.
func job(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved, registries *mirrors.Config, component string, ttl int32, c corev1.Container, extend func(*corev1.PodSpec)) *batchv1.Job {
	labels := JobLabels(a, rc, component)
	c.Image = image(a, nil)
	c.ImagePullPolicy = corev1.PullIfNotPresent
	c.Args = []string{a.Spec.SourceURI}
	c.SecurityContext = &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	j := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Namespace: a.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{ownerRef(a)}},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To(backoffLimit),
			TTLSecondsAfterFinished: ptr.To(ttl),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: childlabels.ForPods(labels)},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// Never the namespace's default account (reference defect R9.21 in docs/design.md): this one may only patch
					// artifact status.
					ServiceAccountName: DownloaderName,
					ImagePullSecrets:   append([]corev1.LocalObjectReference(nil), a.Spec.ImagePullSecrets...),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To(nonRootID),
						RunAsGroup:     ptr.To(nonRootID),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{c},
				},
			},
		},
	}
	if extend != nil {
		extend(&j.Spec.Template.Spec)
	}
	j.Name = naming.DerivedName([]string{a.Name, component}, naming.HashLength, naming.MaxLength, a.UID, j.Spec.Template.Spec)
	// Named before the image is rewritten: where it is pulled from is no reason for a new Job.
	j.Spec.Template.Spec.Containers[0].Image = image(a, registries)
	return j
}

// BuildCheckSizeJob measures the source: its container prints {"url": ..., "sizeBytes": N} last, and the
// result is read from the termination message (logs are the fallback), so that no log access is needed.
func BuildCheckSizeJob(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved, registries *mirrors.Config) *batchv1.Job {
	return job(a, rc, registries, ComponentCheckSize, checkSizeTTL, corev1.Container{
		Name:                     CheckSizeContainer,
		Command:                  []string{"/check-size.sh"},
		Env:                      env.Merge(rc.Spec.Env, a.Spec.Env),
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}, nil)
}

// DownloadEnv is the download container's environment: aim-engine's defaults (in its order), then the runtime
// config's env, then the artifact's, merged by name.
func DownloadEnv(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved, sizeBytes int64) []corev1.EnvVar {
	defaults := []corev1.EnvVar{
		{Name: "AIM_DOWNLOADER_PROTOCOL", Value: "XET,HF_TRANSFER"},
		{Name: "TMPDIR", Value: "/tmp/"},
		{Name: "HF_HOME", Value: "/tmp/.hf"},
		{Name: "EXPECTED_SIZE_BYTES", Value: strconv.FormatInt(sizeBytes, 10)},
		{Name: "MOUNT_PATH", Value: MountPath},
		{Name: "ARTIFACT_NAME", Value: a.Name},
		{Name: "ARTIFACT_NAMESPACE", Value: a.Namespace},
		{Name: "STALL_TIMEOUT", Value: "120"},
		{Name: "TARGET_DIR", Value: MountPath},
	}
	return env.Merge(defaults, rc.Spec.Env, a.Spec.Env)
}

// BuildDownloadJob downloads the source into the volume named claim. The downloader patches status.progress
// and status.download itself, under the dedicated service account.
func BuildDownloadJob(a *aimv1.AIMArtifact, rc runtimeconfig.Resolved, registries *mirrors.Config, sizeBytes int64, claim string) *batchv1.Job {
	return job(a, rc, registries, ComponentDownload, downloadTTL, corev1.Container{
		Name:         DownloadContainer,
		Env:          DownloadEnv(a, rc, sizeBytes),
		VolumeMounts: []corev1.VolumeMount{{Name: cacheVolume, MountPath: MountPath}},
		// The end of the log becomes the termination message, which tells a failed attempt's cause (source not
		// found, credentials refused, disk full) without log access.
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}, func(pod *corev1.PodSpec) {
		// fsGroup makes the volume writable for the non-root user.
		pod.SecurityContext.FSGroup = ptr.To(nonRootID)
		pod.Volumes = []corev1.Volume{{Name: cacheVolume, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	})
}

// BuildServiceAccount is the downloader's account in a namespace. It is shared by every artifact there and
// owned by none, so it outlives any one of them.
func BuildServiceAccount(namespace string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: DownloaderName, Namespace: namespace,
			Labels: map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue}},
	}
}

// BuildRoleBinding grants the downloader's account the ClusterRole of the same name in its namespace only.
func BuildRoleBinding(namespace string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: DownloaderName, Namespace: namespace,
			Labels: map[string]string{aimv1.LabelManagedBy: aimv1.ManagedByValue}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: DownloaderName},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: DownloaderName, Namespace: namespace}},
	}
}
