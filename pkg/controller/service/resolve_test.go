package service

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

func service(mutate func(*aimv1.AIMService)) *aimv1.AIMService {
	s := &aimv1.AIMService{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: "team", UID: "svc-uid"},
		Spec: aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: ptr.To("qwen")}}}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func model(name, ns string, st aimv1.AIMStatus, image string) Model {
	return Model{Name: name, Namespace: ns, UID: "m-" + "uid", Status: st, Spec: aimv1.AIMModelSpec{Image: image}}
}

func template(name, ns, modelName string, st aimv1.AIMStatus, typ aimv1.AIMProfileType, gpuModel string) Template {
	return Template{Name: name, Namespace: ns, UID: "t-uid",
		Spec: aimv1.AIMServiceTemplateSpecCommon{ModelName: modelName, AIMRuntimeParameters: aimv1.AIMRuntimeParameters{
			Metric: ptr.To(aimv1.AIMMetric("latency")), Precision: ptr.To(aimv1.AIMPrecision("fp8")),
			Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1, Model: gpuModel}}}},
		Status: aimv1.AIMServiceTemplateStatus{Status: st, Profile: &aimv1.AIMProfile{Metadata: aimv1.AIMProfileMetadata{Type: typ}}}}
}

// outcome is a component's state and reason as Derive will read them.
func outcome(c state.Component) (aimv1.AIMStatus, string) {
	st, reason, _ := state.Outcome(c)
	return st, reason
}

func TestResolveModel(t *testing.T) {
	img := "registry.example/aim/qwen3-32b:0.8.5"
	for _, tc := range []struct {
		name       string
		svc        *aimv1.AIMService
		found      []Model
		wantModel  string
		wantCreate string
		wantState  aimv1.AIMStatus
		wantReason string
	}{
		{"by name, namespaced first", service(nil), []Model{model("qwen", "team", aimv1.AIMStatusReady, img), model("qwen", "", aimv1.AIMStatusReady, img)},
			"team/qwen", "", aimv1.AIMStatusReady, "ModelResolved"},
		{"by name, missing", service(nil), nil, "", "", aimv1.AIMStatusFailed, "ModelNotFound"},
		{"by name, failed model", service(nil), []Model{model("qwen", "", aimv1.AIMStatusFailed, img)}, "/qwen", "", aimv1.AIMStatusFailed, "ModelNotReady"},
		{"by name, degraded model fails the service", service(nil), []Model{model("qwen", "", aimv1.AIMStatusDegraded, img)}, "/qwen", "", aimv1.AIMStatusFailed, "ModelNotReady"},
		{"by name, model still progressing", service(nil), []Model{model("qwen", "", aimv1.AIMStatusProgressing, img)}, "/qwen", "", aimv1.AIMStatusPending, "ModelNotReady"},
		{"by name, model without status yet", service(nil), []Model{model("qwen", "", "", img)}, "/qwen", "", aimv1.AIMStatusPending, "ModelNotReady"},
		{"by name, model not available", service(nil), []Model{model("qwen", "", aimv1.AIMStatusNotAvailable, img)}, "/qwen", "", aimv1.AIMStatusNotAvailable, "ModelNotReady"},
		{"by image, one match", service(func(s *aimv1.AIMService) { s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To(" " + img + " ")} }),
			[]Model{model("other", "team", aimv1.AIMStatusReady, "x:1"), model("q", "", aimv1.AIMStatusReady, img)}, "/q", "", aimv1.AIMStatusReady, "ModelResolved"},
		{"by image, none: create", service(func(s *aimv1.AIMService) { s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To(img)} }),
			nil, "", "qwen3-32b-0-8-5-", aimv1.AIMStatusPending, "CreatingModel"},
		{"by image, several", service(func(s *aimv1.AIMService) { s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To(img)} }),
			[]Model{model("a", "team", aimv1.AIMStatusReady, img), model("b", "", aimv1.AIMStatusReady, img)}, "", "", aimv1.AIMStatusFailed, "AmbiguousModelImage"},
		// A service keeps the Ready model it resolved: a second model of its image, or a namespaced model of
		// the name of the cluster model it runs on, made later, changes nothing (aim-engine's resolvedModel).
		{"by image, several, one resolved before", service(func(s *aimv1.AIMService) {
			s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To(img)}
			s.Status.ResolvedModel = model("b", "", aimv1.AIMStatusReady, img).Ref()
		}), []Model{model("a", "team", aimv1.AIMStatusReady, img), model("b", "", aimv1.AIMStatusReady, img)}, "/b", "", aimv1.AIMStatusReady, "ModelResolved"},
		{"by name, the cluster model resolved before", service(func(s *aimv1.AIMService) {
			s.Status.ResolvedModel = model("qwen", "", aimv1.AIMStatusReady, img).Ref()
		}), []Model{model("qwen", "team", aimv1.AIMStatusReady, img), model("qwen", "", aimv1.AIMStatusReady, img)}, "/qwen", "", aimv1.AIMStatusReady, "ModelResolved"},
		{"by image, the model resolved before is no longer Ready: resolved again", service(func(s *aimv1.AIMService) {
			s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To(img)}
			s.Status.ResolvedModel = model("b", "", aimv1.AIMStatusReady, img).Ref()
		}), []Model{model("a", "team", aimv1.AIMStatusReady, img), model("b", "", aimv1.AIMStatusDegraded, img)}, "", "", aimv1.AIMStatusFailed, "AmbiguousModelImage"},
		{"by image, invalid reference", service(func(s *aimv1.AIMService) { s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To("UPPER CASE::")} }),
			nil, "", "", aimv1.AIMStatusFailed, "InvalidImageReference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ResolveModel(tc.svc, tc.found)
			got := ""
			if r.Model != nil {
				got = r.Model.Namespace + "/" + r.Model.Name
			}
			if got != tc.wantModel {
				t.Errorf("model = %q, want %q", got, tc.wantModel)
			}
			if (r.Create == nil) != (tc.wantCreate == "") || r.Create != nil && !strings.HasPrefix(r.Create.Name, tc.wantCreate) {
				t.Errorf("create = %+v, want a name starting %q", r.Create, tc.wantCreate)
			}
			if st, reason := outcome(r.Component); st != tc.wantState || reason != tc.wantReason {
				t.Errorf("component = %s %s, want %s %s", st, reason, tc.wantState, tc.wantReason)
			}
		})
	}
}

// TestCustomModelResolutionIsStable: of several models of a service's custom sources, the one of the name the
// service would give it, else the first by name, whatever order the lister returns them in.
func TestCustomModelResolutionIsStable(t *testing.T) {
	svc := service(func(s *aimv1.AIMService) {
		s.Spec.Model = aimv1.AIMServiceModel{Custom: &aimv1.AIMServiceCustomModel{BaseImage: "registry.example/aim/base:1.0",
			ModelSources: []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "hf://org/m"}}}}
	})
	same := func(name string) Model {
		m := model(name, "team", aimv1.AIMStatusProgressing, "registry.example/aim/base:1.0")
		m.Spec.ModelSources = []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "hf://org/m"}}
		return m
	}
	b, c, own := same("copy-b"), same("copy-c"), same(CustomModel(svc).Name)
	for _, tc := range []struct {
		found []Model
		want  string
	}{
		{[]Model{c, b}, "copy-b"}, {[]Model{b, c}, "copy-b"},
		{[]Model{b, own, c}, own.Name}, {[]Model{own, c, b}, own.Name}, {[]Model{c, b, own}, own.Name},
	} {
		if r := ResolveModel(svc, tc.found); r.Model == nil || r.Model.Name != tc.want {
			t.Errorf("found %v: resolved %+v, want %s", tc.found, r.Model, tc.want)
		}
	}
}

// TestModelNameTakenIsAConflict: a namespaced model of the name a service's model.image or .custom would get, with
// another image or sources, is someone else's: the service fails with ModelConflict and creates nothing, where it
// would otherwise wait at CreatingModel for a model the create can never make. A cluster model of the name is
// no conflict: the model made is namespaced.
func TestModelNameTakenIsAConflict(t *testing.T) {
	byImage := service(func(s *aimv1.AIMService) {
		s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To("registry.example/aim/qwen:1.0")}
	})
	imageModel, err := ImageModel(byImage, "registry.example/aim/qwen:1.0")
	if err != nil {
		t.Fatal(err)
	}
	byCustom := service(func(s *aimv1.AIMService) {
		s.Spec.Model = aimv1.AIMServiceModel{Custom: &aimv1.AIMServiceCustomModel{BaseImage: "registry.example/aim/base:1.0",
			ModelSources: []aimv1.AIMModelSource{{ModelID: "org/m", SourceURI: "hf://org/m"}}}}
	})
	customModel := CustomModel(byCustom)
	for _, tc := range []struct {
		name       string
		svc        *aimv1.AIMService
		found      []Model
		wantCreate bool
		wantReason string
	}{
		{"image, the name taken", byImage, []Model{model(imageModel.Name, "team", aimv1.AIMStatusReady, "registry.example/other:2")}, false, "ModelConflict"},
		{"image, a cluster model of the name", byImage, []Model{model(imageModel.Name, "", aimv1.AIMStatusReady, "registry.example/other:2")}, true, "CreatingModel"},
		{"custom, the name taken", byCustom, []Model{model(customModel.Name, "team", aimv1.AIMStatusReady, "registry.example/aim/base:1.0")}, false, "ModelConflict"},
		{"custom, free", byCustom, nil, true, "CreatingModel"},
	} {
		r := ResolveModel(tc.svc, tc.found)
		if _, reason := outcome(r.Component); reason != tc.wantReason || (r.Create != nil) != tc.wantCreate {
			t.Errorf("%s: reason %s, create %v; want %s, create %v", tc.name, reason, r.Create != nil, tc.wantReason, tc.wantCreate)
		}
		if tc.wantReason == "ModelConflict" {
			if st, _ := outcome(r.Component); st != aimv1.AIMStatusFailed {
				t.Errorf("%s: %s, want Failed", tc.name, st)
			}
		}
	}
}

func TestImageModelIsSharedAndCarriesServiceSettings(t *testing.T) {
	svc := service(func(s *aimv1.AIMService) {
		s.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}}
		s.Spec.ServiceAccountName = "sa"
	})
	m, err := ImageModel(svc, "registry.example/aim/qwen:1.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.OwnerReferences) != 0 || m.Labels[aimv1.LabelOrigin] != aimv1.OriginAutoGenerated || m.Spec.ServiceAccountName != "sa" || m.Spec.ImagePullSecrets[0].Name != "pull" {
		t.Errorf("image model = %+v", m)
	}
	m2, _ := ImageModel(svc, "registry.example/aim/qwen:1.1")
	if m.Name == m2.Name {
		t.Errorf("two images share model name %s", m.Name)
	}
	// aim-engine's models carry resources: {} (a struct it cannot omit); so do ours, image and custom alike.
	custom := service(func(s *aimv1.AIMService) {
		s.Spec.Model = aimv1.AIMServiceModel{Custom: &aimv1.AIMServiceCustomModel{BaseImage: "registry.example/aim/base:1.0"}}
	})
	for _, m := range []*aimv1.AIMModel{m, CustomModel(custom)} {
		if r := m.Spec.Resources; r == nil || r.Limits != nil || r.Requests != nil || r.Claims != nil {
			t.Errorf("model %s: spec.resources %v, want {}", m.Name, r)
		}
	}
}

// TestModelNamesAreAimEngines: the models a service creates are named as aim-engine names them (expected
// values computed with its algorithm).
func TestModelNamesAreAimEngines(t *testing.T) {
	for image, want := range map[string]string{
		"docker.io/amdenterpriseai/aim-qwen-qwen3-32b:0.8.5": "aim-qwen-qwen3-32b-0-8-5-1311475f",
		"amdenterpriseai/aim-base":                           "aim-base-latest-18b77e9f",
		// A digest stands in with its first six hex digits.
		"ghcr.io/silogen/aim-meta-llama-llama-3-1-8b-instruct@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": "aim-meta-llama-llama-3-1-8b-instruct-012345-dfcd7dac",
		// The longer part is shortened first.
		"docker.io/amdenterpriseai/aim-mistralai-mixtral-8x22b-instruct-v0-1-with-extra-long-suffix:0.8.5-preview.20260301": "aim-mistralai-mixtral-8x22b-ins-0-8-5-preview-20260301-ed83845a",
	} {
		if m, err := ImageModel(service(nil), image); err != nil || m.Name != want {
			t.Errorf("ImageModel(%s) = %v %v, want %s", image, m, err, want)
		}
	}
	for _, tc := range []struct {
		source aimv1.AIMModelSource
		want   string
	}{
		{aimv1.AIMModelSource{ModelID: "Qwen/Qwen3-8B", SourceURI: "hf://Qwen/Qwen3-8B"}, "qwen-qwen3-8b-83cdece1"},
		// The S3 endpoint is hashed: the same bucket path on two stores is two models.
		{aimv1.AIMModelSource{ModelID: "my-org/my-model", SourceURI: "s3://bucket/model",
			Env: []corev1.EnvVar{{Name: "AWS_ENDPOINT_URL", Value: "https://minio-1.local"}}}, "my-org-my-model-aa6fdc57"},
	} {
		svc := service(func(s *aimv1.AIMService) {
			s.Spec.Model = aimv1.AIMServiceModel{Custom: &aimv1.AIMServiceCustomModel{BaseImage: "docker.io/amdenterpriseai/aim-base:0.8.5",
				ModelSources: []aimv1.AIMModelSource{tc.source}}}
		})
		if got := CustomModel(svc).Name; got != tc.want {
			t.Errorf("CustomModel(%s) = %s, want %s", tc.source.ModelID, got, tc.want)
		}
	}
}

func TestCustomModelIsFoundAgainBySpec(t *testing.T) {
	svc := service(func(s *aimv1.AIMService) {
		s.Spec.Model = aimv1.AIMServiceModel{Custom: &aimv1.AIMServiceCustomModel{BaseImage: "base:1",
			ModelSources: []aimv1.AIMModelSource{{ModelID: "Org/Name", SourceURI: "hf://Org/Name"}},
			Hardware:     aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2}}}}
	})
	first := ResolveModel(svc, nil)
	if first.Create == nil || !strings.HasPrefix(first.Create.Name, "org-name-") || first.Create.Labels[LabelCustomModel] != "true" ||
		first.Create.Spec.Custom.Hardware.GPU.Requests != 2 {
		t.Fatalf("custom model to create = %+v", first.Create)
	}
	c := first.Create
	again := ResolveModel(svc, []Model{{Name: c.Name, Namespace: c.Namespace, Status: aimv1.AIMStatusReady, Spec: c.Spec}})
	if again.Model == nil || again.Create != nil {
		t.Fatalf("the created custom model was not found again: %+v", again)
	}
	other := c.Spec.DeepCopy()
	other.ModelSources[0].SourceURI = "hf://Org/Other"
	if r := ResolveModel(svc, []Model{{Name: c.Name, Namespace: "team", Spec: *other}}); r.Model != nil {
		t.Fatal("a model with other sources matched")
	}
	// A second service asking for the same files with another size (or other env) finds the model its name
	// would take, as aim-engine matches it, instead of waiting forever for one it cannot create.
	sized := c.Spec.DeepCopy()
	sized.ModelSources[0].WeightsSize = ptr.To(aimv1.MustParseQuantity("20Gi"))
	sized.ModelSources[0].Env = []corev1.EnvVar{{Name: "HF_HUB_ENABLE_HF_TRANSFER", Value: "1"}}
	if r := ResolveModel(svc, []Model{{Name: c.Name, Namespace: "team", Status: aimv1.AIMStatusReady, Spec: *sized}}); r.Model == nil || r.Create != nil {
		t.Errorf("a model of the same files with another size: %+v", r)
	}
	// A model of the same files made for other hardware is the service's too, as in aim-engine; the condition
	// says its hardware is not the one asked for, also once the service runs on it, and says nothing of a model
	// of the hardware asked for (quantities compared by amount).
	for _, tc := range []struct {
		name      string
		hardware  aimv1.AIMHardwareRequirements
		resolved  *aimv1.AIMResolvedReference
		otherSaid bool
	}{
		{"the same hardware", aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2}}, nil, false},
		{"the same hardware, resolved", aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2}}, &aimv1.AIMResolvedReference{Name: c.Name, Namespace: "team", Scope: aimv1.AIMResolutionScopeNamespace}, false},
		{"another GPU count", aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1}}, nil, true},
		{"another GPU count, resolved", aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 1}}, &aimv1.AIMResolvedReference{Name: c.Name, Namespace: "team", Scope: aimv1.AIMResolutionScopeNamespace}, true},
	} {
		spec := c.Spec.DeepCopy()
		spec.Custom.Hardware = tc.hardware.DeepCopy()
		s := svc.DeepCopy()
		s.Status.ResolvedModel = tc.resolved
		r := ResolveModel(s, []Model{{Name: c.Name, Namespace: "team", Status: aimv1.AIMStatusReady, Spec: *spec}})
		if r.Model == nil || r.Component.Reason != ReasonModelResolved ||
			strings.Contains(r.Component.Message, "spec.model.custom.hardware") != tc.otherSaid {
			t.Errorf("%s: %+v", tc.name, r.Component)
		}
	}
	// Another S3 endpoint is another model.
	endpoint := c.Spec.DeepCopy()
	endpoint.ModelSources[0].Env = []corev1.EnvVar{{Name: "AWS_ENDPOINT_URL", Value: "https://s3.other.example"}}
	if r := ResolveModel(svc, []Model{{Name: c.Name, Namespace: "team", Spec: *endpoint}}); r.Model != nil {
		t.Error("a model of another S3 endpoint matched")
	}
}

func TestResolveTemplateByName(t *testing.T) {
	svc := service(func(s *aimv1.AIMService) { s.Spec.Template = &aimv1.AIMServiceTemplateSelector{Name: "t"} })
	if r := ResolveTemplate(svc, nil, nil, nil); r.Base != nil {
		t.Fatal("resolved a missing template")
	} else if st, reason := outcome(r.Component); st != aimv1.AIMStatusFailed || reason != "TemplateNotFound" {
		t.Fatalf("missing template: %s %s", st, reason)
	}
	ns, cl := template("t", "team", "qwen", aimv1.AIMStatusReady, "optimized", ""), template("t", "", "qwen", aimv1.AIMStatusReady, "optimized", "")
	if r := ResolveTemplate(svc, nil, []Template{ns, cl}, nil); r.Base == nil || r.Base.Namespace != "team" {
		t.Fatalf("namespaced template not preferred: %+v", r.Base)
	}
	// The cluster template a service runs on stays its own while Ready, as aim-engine's resolvedTemplate: a
	// namespaced copy made later does not move it; once it is not Ready, the namespaced one is taken.
	svc.Status.ResolvedTemplate = cl.Ref()
	if r := ResolveTemplate(svc, nil, []Template{ns, cl}, nil); r.Base == nil || r.Base.Namespace != "" {
		t.Errorf("the resolved cluster template was not kept: %+v", r.Base)
	}
	cl.Status.Status = aimv1.AIMStatusFailed
	if r := ResolveTemplate(svc, nil, []Template{ns, cl}, nil); r.Base == nil || r.Base.Namespace != "team" {
		t.Errorf("a Failed resolved template was kept: %+v", r.Base)
	}
	// A template derived for a service's overrides, named with overrides: not run with them ignored, and, as
	// aim-engine finds no template derived from it, TemplateNotFound. Without overrides it is run as it is.
	derived := template("t", "team", "qwen", aimv1.AIMStatusReady, "optimized", "")
	derived.Labels = map[string]string{aimv1.LabelOrigin: aimv1.OriginDerived}
	overrides := svc.DeepCopy()
	overrides.Status.ResolvedTemplate = nil
	overrides.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp8"))}
	if r := ResolveTemplate(overrides, nil, []Template{derived}, nil); r.Base != nil {
		t.Errorf("a derived template ran with overrides: %+v", r.Base.Name)
	} else if st, reason := outcome(r.Component); st != aimv1.AIMStatusFailed || reason != "TemplateNotFound" || !strings.Contains(r.Component.Errors[0].Error(), "name that one") {
		t.Errorf("a derived template named with overrides: %s %s %v", st, reason, r.Component.Errors)
	}
	overrides.Spec.Overrides = nil
	if r := ResolveTemplate(overrides, nil, []Template{derived}, nil); r.Base == nil {
		t.Error("a derived template named without overrides was not run")
	}
}

func TestResolveTemplateBySelection(t *testing.T) {
	m := model("qwen", "", aimv1.AIMStatusReady, "img")
	gpus := []string{"MI300X"}
	for _, tc := range []struct {
		name       string
		svc        *aimv1.AIMService
		templates  []Template
		want       string
		wantState  aimv1.AIMStatus
		wantReason string
	}{
		{"one ready", service(nil), []Template{template("a", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")}, "a", aimv1.AIMStatusReady, ""},
		{"other models' templates do not count", service(nil), []Template{template("a", "", "llama", aimv1.AIMStatusReady, "optimized", "MI300X")},
			"", aimv1.AIMStatusPending, "TemplateNotFound"},
		{"still discovering", service(nil), []Template{template("a", "", "qwen", aimv1.AIMStatusProgressing, "", "MI300X")},
			"", aimv1.AIMStatusPending, "TemplateNotReady"},
		{"all not available", service(nil), []Template{template("a", "", "qwen", aimv1.AIMStatusNotAvailable, "", "MI355X")},
			"", aimv1.AIMStatusPending, "TemplateNotReady"},
		{"the only one failed", service(nil), []Template{template("a", "", "qwen", aimv1.AIMStatusFailed, "", "MI300X")},
			"", aimv1.AIMStatusPending, "TemplateNotReady"},
		{"only unoptimized", service(nil), []Template{template("a", "", "qwen", aimv1.AIMStatusReady, "preview", "MI300X")},
			"", aimv1.AIMStatusFailed, "TemplateNotFound"},
		{"tie", service(nil), []Template{template("a", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X"),
			template("b", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")}, "", aimv1.AIMStatusFailed, ReasonAmbiguous},
		{"derived templates of other services are skipped", service(nil), []Template{
			func() Template {
				t := template("d", "team", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")
				t.Labels = map[string]string{aimv1.LabelOrigin: aimv1.OriginDerived}
				return t
			}(), template("a", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")}, "a", aimv1.AIMStatusReady, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ResolveTemplate(tc.svc, &m, tc.templates, gpus)
			got := ""
			if r.Base != nil {
				got = r.Base.Name
			}
			if got != tc.want {
				t.Errorf("chose %q, want %q", got, tc.want)
			}
			if r.Base == nil {
				if st, reason := outcome(r.Component); st != tc.wantState || reason != tc.wantReason {
					t.Errorf("component = %s %s, want %s %s", st, reason, tc.wantState, tc.wantReason)
				}
			}
			if n := len(r.Candidates); tc.want != "" && n == 0 {
				t.Error("no candidates recorded (F3)")
			}
		})
	}
}

// TestResolvedTemplateOnItsWayBackIsWaitedFor: a running service whose selected template is edited waits for it
// (its status behind its spec, or discovering again) instead of moving to another template for good; a template
// that fails, or is gone, is left for another, as in aim-engine.
func TestResolvedTemplateOnItsWayBackIsWaitedFor(t *testing.T) {
	m := model("qwen", "", aimv1.AIMStatusReady, "img")
	other := template("other", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")
	mine := func(st aimv1.AIMStatus, stale bool) Template {
		t := template("mine", "team", "qwen", st, "optimized", "MI300X")
		if stale {
			t.Stale, t.StaleFrom, t.Status.Status = true, st, aimv1.AIMStatusPending
		}
		return t
	}
	matching := &aimv1.AIMTemplateMatching{Candidates: []aimv1.AIMTemplateCandidate{{Name: "mine", Namespace: "team", Status: StatusChosen, Reason: ReasonBestMatch}}}
	svc := service(func(s *aimv1.AIMService) {
		s.Status.ResolvedTemplate = mine(aimv1.AIMStatusReady, false).Ref()
		s.Status.TemplateMatching = matching
	})
	for _, tc := range []struct {
		name string
		mine Template
		want string
	}{
		{"its status behind an edit", mine(aimv1.AIMStatusReady, true), "mine"},
		{"discovering again", mine(aimv1.AIMStatusProgressing, false), "mine"},
		{"failed", mine(aimv1.AIMStatusFailed, false), "other"},
		{"failed, and edited since", mine(aimv1.AIMStatusFailed, true), "other"},
		{"no longer available", mine(aimv1.AIMStatusNotAvailable, false), "other"},
	} {
		r := ResolveTemplate(svc, &m, []Template{tc.mine, other}, []string{"MI300X"})
		if r.Base == nil || r.Base.Name != tc.want {
			t.Errorf("%s: chose %v, want %s", tc.name, r.Base, tc.want)
			continue
		}
		if tc.want == "mine" {
			if d := cmp.Diff(matching.Candidates, r.Candidates); d != "" {
				t.Errorf("%s: candidates, want the recorded ones kept (-want +got):\n%s", tc.name, d)
			}
			if st, reason := outcome(TemplateComponent(r.Base, r.Component)); st != aimv1.AIMStatusPending || reason != ReasonTemplateUnready {
				t.Errorf("%s: template component %s %s, want Pending TemplateNotReady", tc.name, st, reason)
			}
		}
	}
	// Without a resolved template the edit of one is selection as ever.
	if r := ResolveTemplate(service(nil), &m, []Template{mine(aimv1.AIMStatusReady, true), other}, []string{"MI300X"}); r.Base == nil || r.Base.Name != "other" {
		t.Errorf("a new service chose %v, want other", r.Base)
	}
}

func TestTemplateComponent(t *testing.T) {
	for st, want := range map[aimv1.AIMStatus]aimv1.AIMStatus{
		aimv1.AIMStatusReady: aimv1.AIMStatusReady, aimv1.AIMStatusNotAvailable: aimv1.AIMStatusNotAvailable,
		aimv1.AIMStatusFailed: aimv1.AIMStatusFailed, aimv1.AIMStatusDegraded: aimv1.AIMStatusFailed,
		aimv1.AIMStatusProgressing: aimv1.AIMStatusPending, "": aimv1.AIMStatusPending,
	} {
		tpl := template("t", "", "m", st, "optimized", "")
		if got, _ := outcome(TemplateComponent(&tpl, state.Component{Name: ComponentTemplate})); got != want {
			t.Errorf("template %q: component %s, want %s", st, got, want)
		}
	}
	// Ready model and template in aim-engine's words, which its user guide quotes.
	tpl := template("t", "team", "m", aimv1.AIMStatusReady, "optimized", "")
	if c := TemplateComponent(&tpl, state.Component{Name: ComponentTemplate}); c.Message != "AIMServiceTemplate t is ready" {
		t.Errorf("TemplateReady message %q", c.Message)
	}
	if r := ResolveModel(service(nil), []Model{model("qwen", "team", aimv1.AIMStatusReady, "x:1")}); r.Component.Message != "AIMModel qwen is ready" {
		t.Errorf("ModelReady message %q", r.Component.Message)
	}
}

// TestDerivedNameIgnoresHowAnAmountIsWritten: overrides whose amounts are written another way are the same
// overrides to the API (an update that changes nothing), and keep the derived template's name, so that a
// re-applied manifest neither makes a new template nor rolls the predictor; another amount is another template.
func TestDerivedNameIgnoresHowAnAmountIsWritten(t *testing.T) {
	base := template("qwen-cpu", "", "qwen", aimv1.AIMStatusReady, "optimized", "")
	named := func(requests aimv1.Quantity, minVram string) string {
		svc := service(func(s *aimv1.AIMService) {
			s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Hardware: &aimv1.AIMHardwareRequirements{
				CPU: &aimv1.AIMCpuRequirements{Requests: requests},
				GPU: &aimv1.AIMGpuRequirements{Requests: 1, MinVRAM: ptr.To(aimv1.MustParseQuantity(minVram))}}}
		})
		return DerivedTemplate(svc, base, "qwen", runtimeconfig.Resolved{}).Name
	}
	eight := aimv1.MustParseQuantity("8")
	asNumber := eight
	asNumber.Number = true
	first := named(eight, "64Gi")
	for what, got := range map[string]string{
		"minVram 65536Mi for 64Gi": named(eight, "65536Mi"),
		"the number 8 for \"8\"":   named(asNumber, "64Gi"),
		"8000m cpu for 8":          named(aimv1.MustParseQuantity("8000m"), "64Gi"),
	} {
		if got != first {
			t.Errorf("%s: derived template %s, want %s", what, got, first)
		}
	}
	if other := named(eight, "128Gi"); other == first {
		t.Errorf("another minVram kept the name %s", other)
	}
}

func TestDerivedTemplate(t *testing.T) {
	base := template("base", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X")
	base.Spec.ProfileID = "p1"
	base.Caching = &aimv1.AIMTemplateCachingConfig{Env: []corev1.EnvVar{{Name: "HF_TOKEN", Value: "t"}}}
	if DerivedTemplate(service(nil), base, "qwen", runtimeconfig.Resolved{}) != nil {
		t.Fatal("derived a template without overrides")
	}
	svc := service(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Precision: ptr.To(aimv1.AIMPrecision("fp16")),
			Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2, Model: "MI300X"}}}
	})
	d := DerivedTemplate(svc, base, "qwen", runtimeconfig.Resolved{})
	if d.Namespace != "team" || !strings.HasPrefix(d.Name, "base-ovr-mi300x-2gpu-fp16-") || d.Labels[aimv1.LabelOrigin] != aimv1.OriginDerived {
		t.Errorf("derived meta = %+v", d.ObjectMeta)
	}
	if o := d.OwnerReferences; len(o) != 1 || o[0].UID != "svc-uid" || !*o[0].Controller {
		t.Errorf("derived owner = %+v", o)
	}
	s := d.Spec
	if *s.Precision != "fp16" || *s.Metric != "latency" || s.Hardware.GPU.Requests != 2 || s.ModelName != "qwen" || s.ProfileID != "" {
		t.Errorf("derived spec = %+v", s)
	}
	// aim-engine's: the runtime config named, "default" when none; the base's caching, whose env the service's
	// cache takes.
	if s.RuntimeConfigName != aimv1.DefaultRuntimeConfigName {
		t.Errorf("derived runtimeConfigName %q", s.RuntimeConfigName)
	}
	if diff := cmp.Diff(base.Caching, d.Spec.Caching); diff != "" || d.Spec.Caching == base.Caching {
		t.Errorf("derived caching (-base +derived):\n%s", diff)
	}
	if cache := desiredCache(svc, Template{Name: d.Name, Namespace: d.Namespace, Spec: s.AIMServiceTemplateSpecCommon, Caching: d.Spec.Caching}, runtimeconfig.Resolved{},
		aimv1.AIMCachingModeShared); !slices.ContainsFunc(cache.Spec.Env, func(e corev1.EnvVar) bool { return e.Name == "HF_TOKEN" }) {
		t.Errorf("the base's caching env does not reach the service's cache: %v", cache.Spec.Env)
	}
	if *base.Spec.Precision != "fp8" {
		t.Error("deriving changed the base")
	}
	derived := Template{Name: d.Name, Labels: d.Labels}
	if DerivedTemplate(svc, derived, "qwen", runtimeconfig.Resolved{}) != nil {
		t.Error("derived a template from a derived template")
	}
	// Overrides that restate the base's metric and precision keep its profile: the pod runs with the base's
	// AIM_PROFILE_ID, as aim-engine's built from the base does.
	restated := service(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Metric: base.Spec.Metric, Precision: base.Spec.Precision}
	})
	if d := DerivedTemplate(restated, base, "qwen", runtimeconfig.Resolved{}); d.Spec.ProfileID != "p1" ||
		!slices.Contains(Environment(restated, Template{Spec: d.Spec.AIMServiceTemplateSpecCommon}, runtimeconfig.Resolved{}),
			corev1.EnvVar{Name: "AIM_PROFILE_ID", Value: "p1"}) {
		t.Errorf("restating overrides: profileId %q, want the base's p1 in the spec and the pod's env", d.Spec.ProfileID)
	}
	// Hardware counts as restated only when it is the base's; other hardware is discovered anew.
	sameHardware := service(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Hardware: base.Spec.Hardware.DeepCopy()}
	})
	otherHardware := service(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 8, Model: "MI300X"}}}
	})
	if a, b := DerivedTemplate(sameHardware, base, "qwen", runtimeconfig.Resolved{}), DerivedTemplate(otherHardware, base, "qwen", runtimeconfig.Resolved{}); a.Spec.ProfileID != "p1" || b.Spec.ProfileID != "" {
		t.Errorf("hardware overrides: the base's own keeps profileId %q (want p1), other hardware %q (want none)", a.Spec.ProfileID, b.Spec.ProfileID)
	}
	// Hardware is compared by amount: 2000m restates a base's 2 (D17).
	cpuBase := base
	cpuBase.Spec.Hardware = &aimv1.AIMHardwareRequirements{CPU: &aimv1.AIMCpuRequirements{Requests: aimv1.MustParseQuantity("2")}}
	respelled := service(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Hardware: &aimv1.AIMHardwareRequirements{CPU: &aimv1.AIMCpuRequirements{Requests: aimv1.MustParseQuantity("2000m")}}}
	})
	if d := DerivedTemplate(respelled, cpuBase, "qwen", runtimeconfig.Resolved{}); d.Spec.ProfileID != "p1" {
		t.Errorf("cpu 2000m over a base's 2: profileId %q, want the base's p1", d.Spec.ProfileID)
	}
	// Overrides without a GPU model leave that part out.
	count := service(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Requests: 2}}}
	})
	if d := DerivedTemplate(count, base, "qwen", runtimeconfig.Resolved{}); !strings.HasPrefix(d.Name, "base-ovr-2gpu-") {
		t.Errorf("derived name %q", d.Name)
	}
	// ... and a GPU model without a count leaves the count out, as aim-engine's name does.
	modelOnly := service(func(s *aimv1.AIMService) {
		s.Spec.Overrides = &aimv1.AIMRuntimeParameters{Hardware: &aimv1.AIMHardwareRequirements{GPU: &aimv1.AIMGpuRequirements{Model: "MI325X"}}}
	})
	if d := DerivedTemplate(modelOnly, base, "qwen", runtimeconfig.Resolved{}); !strings.HasPrefix(d.Name, "base-ovr-mi325x-") || strings.Contains(d.Name, "0gpu") {
		t.Errorf("derived name %q", d.Name)
	}
}

func TestResolutionDoesNotDependOnListOrder(t *testing.T) {
	m := model("qwen", "", aimv1.AIMStatusReady, "img")
	a, b, c := template("a", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X"),
		template("b", "", "qwen", aimv1.AIMStatusReady, "optimized", "MI300X"), template("c", "", "qwen", aimv1.AIMStatusProgressing, "", "MI300X")
	first := ResolveTemplate(service(nil), &m, []Template{a, b, c}, []string{"MI300X"})
	second := ResolveTemplate(service(nil), &m, []Template{c, b, a}, []string{"MI300X"})
	if fmt.Sprint(first.Candidates) != fmt.Sprint(second.Candidates) || first.Component.Errors[0].Error() != second.Component.Errors[0].Error() {
		t.Errorf("order changed the outcome:\n%v\n%v", first, second)
	}
	img := service(func(s *aimv1.AIMService) { s.Spec.Model = aimv1.AIMServiceModel{Image: ptr.To("img")} })
	x, y := model("x", "team", aimv1.AIMStatusReady, "img"), model("y", "", aimv1.AIMStatusReady, "img")
	if r1, r2 := ResolveModel(img, []Model{x, y}), ResolveModel(img, []Model{y, x}); r1.Component.Errors[0].Error() != r2.Component.Errors[0].Error() {
		t.Errorf("order changed the message: %v / %v", r1.Component.Errors, r2.Component.Errors)
	}
}

// A dependency whose status is of an earlier generation is waited for, not used: its Ready, hardware and
// profile may describe a spec that is gone. A status without observedGeneration is taken as it is.
func TestStaleDependencyStatusIsWaitedFor(t *testing.T) {
	for _, tc := range []struct {
		generation, observed int64
		stale                bool
	}{{2, 1, true}, {2, 2, false}, {2, 0, false}, {1, 1, false}} {
		if got := state.StaleStatus(tc.generation, tc.observed); got != tc.stale {
			t.Errorf("state.StaleStatus(%d, %d) = %v", tc.generation, tc.observed, got)
		}
	}

	tpl := &aimv1.AIMClusterServiceTemplate{ObjectMeta: metav1.ObjectMeta{Name: "fast", Generation: 3},
		Status: aimv1.AIMServiceTemplateStatus{Status: aimv1.AIMStatusReady, ObservedGeneration: 2}}
	stale := fromCluster(tpl)
	comp := TemplateComponent(&stale, state.Component{Name: ComponentTemplate})
	if stale.Status.Status == aimv1.AIMStatusReady || comp.State != aimv1.AIMStatusPending || comp.Reason != ReasonTemplateUnready ||
		!strings.Contains(comp.Message, "generation 2") || !strings.Contains(comp.Message, "generation 3") {
		t.Errorf("stale template: status %s, component %s %s %q", stale.Status.Status, comp.State, comp.Reason, comp.Message)
	}
	if tpl.Status.Status != aimv1.AIMStatusReady {
		t.Error("reading a stale template changed the cached object")
	}
	tpl.Status.ObservedGeneration = 3
	if cur := fromCluster(tpl); cur.Stale || TemplateComponent(&cur, state.Component{}).Reason != "Resolved" {
		t.Errorf("current template not resolved: %+v", cur)
	}

	mdl := &aimv1.AIMModel{ObjectMeta: metav1.ObjectMeta{Name: "qwen", Namespace: "team", Generation: 5},
		Status: aimv1.AIMModelStatus{Status: aimv1.AIMStatusReady, ObservedGeneration: 4}}
	res := ResolveModel(service(nil), []Model{fromNamespacedModel(mdl)})
	if res.Component.State != aimv1.AIMStatusPending || res.Component.Reason != ReasonModelNotReady {
		t.Errorf("stale model: %+v", res.Component)
	}
}
