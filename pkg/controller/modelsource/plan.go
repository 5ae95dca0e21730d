package modelsource

import (
	"sort"

	"github.com/blang/semver/v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/model"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// Labels and annotations on the models a source creates.
const (
	LabelModelSource           = "aim.eai.amd.com/model-source"
	AnnotationSourceRegistry   = "aim.eai.amd.com/source-registry"
	AnnotationSourceRepository = "aim.eai.amd.com/source-repository"
	AnnotationSourceTag        = "aim.eai.amd.com/source-tag"
)

// modelHashLength is the length of the hash in model names.
const modelHashLength = 6

// Plan is what one sync does.
type Plan struct {
	// Create are the models to create, in order.
	Create []Image
	// LimitReached is true when maxModels left selected images without a model.
	LimitReached bool
}

// PlanModels decides which images get a model. existing maps the names of the AIMClusterModels in the
// cluster to whether this source owns them. Owned models count towards maxModels whether or not their image
// is still selected; a name taken by a model the source does not own is left alone. Images are taken in a
// deterministic order (Sort), so the models kept out by the limit are the same on every sync.
//
// Models are never deleted, not even when their image is no longer selected or maxModels shrinks: services
// may run on them, and a catalog entry that stays is harmless while a deleted one breaks its users.
func PlanModels(images []Image, existing map[string]bool, maxModels int) Plan {
	owned := countOwned(existing)
	sorted := append([]Image(nil), images...)
	Sort(sorted)
	var p Plan
	for _, img := range sorted {
		if _, ok := existing[ModelName(img)]; ok {
			continue
		}
		if owned+len(p.Create) >= maxModels {
			p.LimitReached = true
			continue
		}
		p.Create = append(p.Create, img)
	}
	return p
}

// Sort orders images by registry and repository, then newest semver version first, then tags that are not
// semver (TagVersion, as the versions filter reads them) by name.
func Sort(images []Image) {
	versions := make(map[string]*semver.Version, len(images))
	for _, img := range images {
		if v, ok := TagVersion(img.Tag); ok {
			versions[img.Tag] = &v
		}
	}
	sort.SliceStable(images, func(i, j int) bool {
		a, b := images[i], images[j]
		if a.Registry != b.Registry {
			return a.Registry < b.Registry
		}
		if a.Repository != b.Repository {
			return a.Repository < b.Repository
		}
		va, vb := versions[a.Tag], versions[b.Tag]
		switch {
		case va != nil && vb != nil && !va.EQ(*vb):
			return va.GT(*vb)
		case va != nil && vb == nil:
			return true
		case va == nil && vb != nil:
			return false
		}
		return a.Tag < b.Tag
	})
}

// ModelName is the name of an image's model, as aim-engine names it: the repository and the tag, with a hash
// of registry, repository and tag keeping apart images whose names sanitize or shorten alike.
func ModelName(img Image) string {
	return naming.DerivedName([]string{img.Repository, img.Tag}, modelHashLength, naming.MaxLength, img.Registry, img.Repository, img.Tag)
}

// NewModel is the AIMClusterModel a source creates for an image: owned by the source (so it is listed and
// garbage-collected with it), labelled with the source and auto-generated origin and the source's labels that
// rc (the cluster runtime config default, as aim-engine resolves it for a source) propagates, annotated with
// where the image came from.
func NewModel(src *aimv1.AIMClusterModelSource, rc runtimeconfig.Resolved, img Image) *aimv1.AIMClusterModel {
	return &aimv1.AIMClusterModel{
		TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMClusterModel"},
		ObjectMeta: metav1.ObjectMeta{
			Name: ModelName(img),
			// The framework label aim.eai.amd.com/cluster-model-source.name and managed-by, as on every child.
			Labels: childlabels.For(childlabels.ClusterModelSource, src, rc, map[string]string{
				LabelModelSource:  naming.LabelValue(src.Name),
				model.LabelOrigin: model.OriginAuto,
			}),
			Annotations: map[string]string{
				AnnotationSourceRegistry:   img.Registry,
				AnnotationSourceRepository: img.Repository,
				AnnotationSourceTag:        img.Tag,
			},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(src, aimv1.SchemeGroupVersion.WithKind("AIMClusterModelSource"))},
		},
		// resources: {} as aim-engine writes it: its spec.resources is a struct, not a pointer, which omitempty
		// cannot omit (api/v1alpha1/aimmodel_shared.go:213, internal/aimclustermodelsource/builder.go:58).
		Spec: aimv1.AIMModelSpec{Image: img.Reference(), ImagePullSecrets: src.Spec.ImagePullSecrets,
			Resources: &aimv1.ResourceRequirements{}},
	}
}

// maxModels is spec.maxModels, defaulted as the API does.
func maxModels(spec aimv1.AIMClusterModelSourceSpec) int {
	if spec.MaxModels == nil {
		return int(aimv1.DefaultMaxModels)
	}
	return int(*spec.MaxModels)
}
