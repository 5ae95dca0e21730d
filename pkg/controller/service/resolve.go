package service

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	modelctl "github.com/aim-apiserver/aim-apiserver/pkg/controller/model"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// LabelCustomModel marks models created for a service's model.custom.
const LabelCustomModel = "aim.eai.amd.com/custom-model"

// Model is a model of either kind.
type Model struct {
	// Namespace is empty for an AIMClusterModel.
	Name, Namespace string
	UID             types.UID
	Labels          map[string]string
	Status          aimv1.AIMStatus
	Spec            aimv1.AIMModelSpec
	// Stale is set when the status describes an earlier generation of the spec (see state.StaleStatus); Status
	// then reads Pending.
	Stale bool
	// Version is the object's (reconcile.Version), which everything else here is read from: it stands for
	// them where the InferenceService's inputs are told apart (workload.inputs).
	Version string
}

// Ref is the model as status.resolvedModel shows it.
func (m Model) Ref() *aimv1.AIMResolvedReference {
	return state.Reference(m.Name, m.Namespace, m.UID, "AIMModel", "AIMClusterModel")
}

// Template is a template of either kind.
type Template struct {
	// Namespace is empty for an AIMClusterServiceTemplate.
	Name, Namespace string
	UID             types.UID
	Labels          map[string]string
	Spec            aimv1.AIMServiceTemplateSpecCommon
	// Caching is the namespaced template's caching config; cluster templates have none.
	Caching *aimv1.AIMTemplateCachingConfig
	Status  aimv1.AIMServiceTemplateStatus
	// Generation is the spec's; Stale is set when Status describes an earlier one (see state.StaleStatus): Status
	// then reads Pending, and StaleFrom holds the status.status it said.
	Generation int64
	Stale      bool
	StaleFrom  aimv1.AIMStatus
	// Version is the object's (reconcile.Version), which everything else here is read from: it stands for
	// them where the InferenceService's inputs are told apart (workload.inputs).
	Version string
}

// Ref is the template as status.resolvedTemplate shows it.
func (t Template) Ref() *aimv1.AIMResolvedReference {
	return state.Reference(t.Name, t.Namespace, t.UID, "AIMServiceTemplate", "AIMClusterServiceTemplate")
}

// Derived reports whether the template was derived for a service's overrides.
func (t Template) Derived() bool { return t.Labels[aimv1.LabelOrigin] == aimv1.OriginDerived }

// candidate is the template as selection sees it, as aim-engine's selection reads a template
// (internal/aimservice/selection.go): metric and precision from the profile, else the spec; GPU model and count
// from the spec, else the profile; the profile type from the profile only.
func (t Template) candidate() Candidate {
	c := Candidate{Name: t.Name, Namespace: t.Namespace, Status: t.Status.Status,
		Metric: ptr.Deref(t.Spec.Metric, ""), Precision: ptr.Deref(t.Spec.Precision, "")}
	if hw := t.Spec.Hardware; hw != nil && hw.GPU != nil {
		c.GPUModel, c.GPUCount = hw.GPU.Model, hw.GPU.Requests
	}
	if p := t.Status.Profile; p != nil {
		c.Type = p.Metadata.Type
		c.Metric = aimv1.AIMMetric(cmp.Or(string(p.Metadata.Metric), string(c.Metric)))
		c.Precision = aimv1.AIMPrecision(cmp.Or(string(p.Metadata.Precision), string(c.Precision)))
		c.GPUModel = cmp.Or(c.GPUModel, p.Metadata.GPU)
		if c.GPUCount == 0 {
			c.GPUCount = p.Metadata.GPUCount
		}
	}
	return c
}

// ModelResolution is the outcome of resolving spec.model.
type ModelResolution struct {
	// Model is the resolved model; nil while none exists.
	Model *Model
	// Create is a model to create for model.image or model.custom; it is shared, so it has no owner.
	Create    *aimv1.AIMModel
	Component state.Component
}

// ResolveModel resolves spec.model over the models that match it: for model.name the namespaced model and
// then the cluster model of that name, for model.image every model with that image, for model.custom the
// namespace's models. The model in status.resolvedModel stays the service's while it is Ready (stillResolved).
func ResolveModel(svc *aimv1.AIMService, found []Model) ModelResolution {
	comp := state.Component{Name: ComponentModel, Dependency: state.DependencyUpstream}
	m := svc.Spec.Model
	if f, ok := stillResolved(svc, found); ok {
		if m.Custom != nil {
			return otherHardware(resolved(f, comp), CustomModel(svc))
		}
		return resolved(f, comp)
	}
	switch {
	case m.Name != nil:
		if len(found) == 0 {
			comp.Errors = []error{state.NewError(state.MissingUpstream, ReasonModelNotFound,
				"neither AIMModel %q in namespace %q nor AIMClusterModel %q exists", *m.Name, svc.Namespace, *m.Name)}
			return ModelResolution{Component: comp}
		}
		return resolved(found[0], comp)
	case m.Image != nil:
		image := strings.TrimSpace(*m.Image)
		var same []Model
		for _, f := range found {
			if f.Spec.Image == image {
				same = append(same, f)
			}
		}
		switch len(same) {
		case 0:
			model, err := ImageModel(svc, image)
			if err != nil {
				comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonInvalidImageReference, "spec.model.image: %v", err)}
				return ModelResolution{Component: comp}
			}
			return creating(svc, model, "the image", found, comp)
		case 1:
			return resolved(same[0], comp)
		}
		slices.SortFunc(same, func(a, b Model) int { return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) })
		var names []string
		for _, s := range same {
			names = append(names, s.Ref().Kind+" "+strings.TrimPrefix(s.Namespace+"/"+s.Name, "/"))
		}
		comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonAmbiguousModelImage,
			"several models use image %s (%s); name one in spec.model.name", image, strings.Join(names, ", "))}
		return ModelResolution{Component: comp}
	case m.Custom != nil:
		want := CustomModel(svc)
		if match := customMatch(svc.Namespace, want, found); match != nil {
			return otherHardware(resolved(*match, comp), want)
		}
		return creating(svc, want, "the custom model", found, comp)
	}
	comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonInvalidModelSpec, "spec.model names no model")}
	return ModelResolution{Component: comp}
}

// customMatch is the model among found of the custom model want (its base image and sources, in namespace): of
// several (a copy, an earlier name), the one of want's name, else the first by name, as the lister's order changes
// from call to call and the service must not move between them. Nil when none is.
func customMatch(namespace string, want *aimv1.AIMModel, found []Model) *Model {
	var match *Model
	for i, f := range found {
		if f.Namespace == namespace && f.Spec.Image == want.Spec.Image && sameSources(f.Spec.ModelSources, want.Spec.ModelSources) &&
			(match == nil || f.Name == want.Name || match.Name != want.Name && f.Name < match.Name) {
			match = &found[i]
		}
	}
	return match
}

// otherHardware says, of a Ready model found for a service's model.custom, when its custom hardware is not the
// service's: a custom model is matched by base image and sources (customMatch, as aim-engine matches it), so a
// service asking for other hardware runs on the templates of the model another service made, which aim-engine
// does without a word.
func otherHardware(res ModelResolution, want *aimv1.AIMModel) ModelResolution {
	m := res.Model
	if m == nil || res.Component.State != "" || len(res.Component.Errors) > 0 {
		return res
	}
	if m.Spec.Custom == nil || !aimv1.SemanticEqual(m.Spec.Custom.Hardware, want.Spec.Custom.Hardware) {
		res.Component.Message += "; its custom hardware is not this service's spec.model.custom.hardware (a custom model is found by " +
			"its base image and sources), so the service runs on the templates of the model as it is"
	}
	return res
}

// creating reports the model to create for a service's model.image or .custom; found holds none that matches it.
// A model of its name among them is another one (a user's, or one whose spec was edited): it is left as it is,
// and the service fails with the conflict, as nothing the controller retries can resolve it.
func creating(svc *aimv1.AIMService, model *aimv1.AIMModel, what string, found []Model, comp state.Component) ModelResolution {
	if slices.ContainsFunc(found, func(f Model) bool { return f.Namespace == svc.Namespace && f.Name == model.Name }) {
		comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonModelConflict,
			"AIMModel %s/%s, the name of the model for %s, exists with another image or sources; rename or delete it", svc.Namespace, model.Name, what)}
		return ModelResolution{Component: comp}
	}
	comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonCreatingModel, "creating AIMModel "+model.Name+" for "+what
	return ModelResolution{Create: model, Component: comp}
}

// stillResolved is the model in the service's status.resolvedModel, when it is among found and Ready. As in
// aim-engine, it stays the service's: another model of the same image or name made later neither moves a
// running service nor fails it as ambiguous (spec.model is immutable, so the status names a model the spec
// chose).
func stillResolved(svc *aimv1.AIMService, found []Model) (Model, bool) {
	ref := svc.Status.ResolvedModel
	if ref == nil {
		return Model{}, false
	}
	for _, f := range found {
		// A stale status reads Pending (currentModel).
		if r := f.Ref(); r.Name == ref.Name && r.Namespace == ref.Namespace && r.Scope == ref.Scope && f.Status == aimv1.AIMStatusReady {
			return f, true
		}
	}
	return Model{}, false
}

// resolved reports a found model, which counts as resolved only once it is Ready, as in the reference: a
// model still preparing keeps the service Pending, a Failed or Degraded one fails it, and one whose
// templates all need GPUs the cluster lacks makes it NotAvailable (F1).
func resolved(m Model, comp state.Component) ModelResolution {
	what := m.Ref().Kind + " " + strings.TrimPrefix(m.Namespace+"/"+m.Name, "/")
	if m.Stale {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonModelNotReady, what+" has a spec newer than its status; waiting for it to catch up"
		return ModelResolution{Model: &m, Component: comp}
	}
	switch m.Status {
	case aimv1.AIMStatusReady:
		// aim-engine's words (reconcile.go:290), which its user guide quotes.
		comp.Reason, comp.Message = ReasonModelResolved, m.Ref().Kind+" "+m.Name+" is ready"
	case aimv1.AIMStatusFailed, aimv1.AIMStatusDegraded:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, ReasonModelNotReady, what+" is "+string(m.Status)
	case aimv1.AIMStatusNotAvailable:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusNotAvailable, ReasonModelNotReady, what+" has no template this cluster's GPUs can run"
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonModelNotReady,
			what+" is "+cmp.Or(string(m.Status), string(aimv1.AIMStatusPending))
	}
	return ModelResolution{Model: &m, Component: comp}
}

// digestInName is how many hex digits of a digest stand for the tag in the name of an image's model.
const digestInName = 6

// ImageModel is the AIMModel created for a service's model.image, named as aim-engine names it: the last
// segment of the image's repository, its tag (latest when it has none) or the first six hex digits of its
// digest, and a hash of the whole reference.
func ImageModel(svc *aimv1.AIMService, image string) (*aimv1.AIMModel, error) {
	ref, err := name.ParseReference(image)
	if err != nil {
		return nil, err
	}
	repo := ref.Context().RepositoryStr()
	repo = repo[strings.LastIndex(repo, "/")+1:]
	var tag string
	switch r := ref.(type) {
	case name.Tag:
		tag = r.TagStr()
	case name.Digest:
		_, digest, _ := strings.Cut(r.DigestStr(), ":")
		tag = digest[:min(digestInName, len(digest))]
	}
	return &aimv1.AIMModel{
		TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMModel"},
		ObjectMeta: metav1.ObjectMeta{Name: naming.DerivedName([]string{repo, tag}, naming.HashLength, naming.MaxLength, image), Namespace: svc.Namespace,
			Labels: map[string]string{aimv1.LabelOrigin: aimv1.OriginAutoGenerated, aimv1.LabelManagedBy: aimv1.ManagedByValue}},
		// resources: {} as aim-engine writes its non-pointer field (model.go:371).
		Spec: aimv1.AIMModelSpec{Image: image, RuntimeConfigName: svc.Spec.RuntimeConfigName,
			ImagePullSecrets: svc.Spec.ImagePullSecrets, ServiceAccountName: svc.Spec.ServiceAccountName,
			Resources: &aimv1.ResourceRequirements{}},
	}, nil
}

// envEndpoint is the source env variable that tells S3 stores apart; custom model names hash its value.
const envEndpoint = "AWS_ENDPOINT_URL"

// CustomModel is the AIMModel of a service's model.custom, named as aim-engine names it: after the first
// source's model id, with a hash of the base image and of each source's model id, URI and S3 endpoint, so
// services asking for the same custom model share it.
func CustomModel(svc *aimv1.AIMService) *aimv1.AIMModel {
	c := svc.Spec.Model.Custom
	parts, inputs := []string{"custom-model"}, []any{c.BaseImage}
	for i, src := range c.ModelSources {
		if i == 0 {
			parts = []string{src.ModelID}
		}
		inputs = append(inputs, src.ModelID, src.SourceURI)
		if endpoint := envValue(src.Env, envEndpoint); endpoint != "" {
			inputs = append(inputs, endpoint)
		}
	}
	hw := c.Hardware
	return &aimv1.AIMModel{
		TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMModel"},
		ObjectMeta: metav1.ObjectMeta{Name: naming.DerivedName(parts, naming.HashLength, naming.MaxLength, inputs...), Namespace: svc.Namespace,
			Labels: map[string]string{aimv1.LabelOrigin: aimv1.OriginAutoGenerated, aimv1.LabelManagedBy: aimv1.ManagedByValue,
				LabelCustomModel: "true", aimv1.LabelService: naming.LabelValue(svc.Name)}},
		Spec: aimv1.AIMModelSpec{Image: c.BaseImage, ModelSources: c.ModelSources, Custom: &aimv1.AIMModelCustomConfig{Hardware: &hw},
			RuntimeConfigName: svc.Spec.RuntimeConfigName, ImagePullSecrets: svc.Spec.ImagePullSecrets,
			ServiceAccountName: svc.Spec.ServiceAccountName, Env: svc.Spec.Env, Resources: &aimv1.ResourceRequirements{}},
	}
}

// sameSources reports whether two models' sources are the same model files, as aim-engine matches a custom
// model: source by source, the model id, the URI and the S3 endpoint, which are also what its name hashes. Sizes
// and other env may differ: a service asking with another size finds the model of that name (taking the size
// the model has) instead of waiting for a model it can never create.
func sameSources(a, b []aimv1.AIMModelSource) bool {
	return slices.EqualFunc(a, b, func(x, y aimv1.AIMModelSource) bool {
		return x.ModelID == y.ModelID && x.SourceURI == y.SourceURI && envValue(x.Env, envEndpoint) == envValue(y.Env, envEndpoint)
	})
}

// envValue is the literal value of the first variable of that name, "" when it has none.
func envValue(vars []corev1.EnvVar, name string) string {
	for _, v := range vars {
		if v.Name == name {
			return v.Value
		}
	}
	return ""
}

// TemplateResolution is the outcome of resolving the service's template.
type TemplateResolution struct {
	// Base is the template chosen by name or by selection; nil when none is.
	Base       *Template
	Candidates []aimv1.AIMTemplateCandidate
	Component  state.Component
}

// ResolveTemplate resolves spec.template: by name (templates holds the namespaced and then the cluster
// template of that name), or by selection over the model's templates (F3, F6, F11). Templates derived for
// other services never take part in selection.
func ResolveTemplate(svc *aimv1.AIMService, model *Model, templates []Template, gpuModels []string) TemplateResolution {
	comp := state.Component{Name: ComponentTemplate, Dependency: state.DependencyUpstream}
	if sel := svc.Spec.Template; sel != nil && sel.Name != "" {
		if len(templates) == 0 {
			comp.Errors = []error{state.NewError(state.MissingUpstream, ReasonTemplateNotFound,
				"neither AIMServiceTemplate %q in namespace %q nor AIMClusterServiceTemplate %q exists", sel.Name, svc.Namespace, sel.Name)}
			return TemplateResolution{Component: comp}
		}
		// The namespaced template of the name, else the cluster one; but as in aim-engine (template.go:64) the one
		// the service runs on stays its own while it is Ready, so that a namespaced copy of a cluster template made
		// later does not move a running service.
		t := templates[0]
		for _, c := range templates {
			if isResolvedTemplate(svc, c) && c.Status.Status == aimv1.AIMStatusReady {
				t = c
			}
		}
		if t.Derived() && svc.Spec.Overrides != nil {
			// Overrides apply to a base (F10); run on this one and they would be ignored without a word. aim-engine
			// looks for the template derived from it, and finds none (template.go:77).
			comp.Errors = []error{state.NewError(state.MissingUpstream, ReasonTemplateNotFound,
				"AIMServiceTemplate %s was derived for the overrides of a service; spec.overrides apply to a base template: name that one", t.Name)}
			return TemplateResolution{Component: comp}
		}
		return TemplateResolution{Base: &t, Component: comp}
	}
	if model == nil {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonAwaitingModel, "the model is not resolved yet"
		return TemplateResolution{Component: comp}
	}
	return selectTemplate(svc, model, templates, gpuModels, comp)
}

// selectTemplate chooses the service's template among the model's (F3, F6, F11): the one it resolved before while
// that is on its way back to Ready (catchingUp), else by Select.
func selectTemplate(svc *aimv1.AIMService, model *Model, templates []Template, gpuModels []string, comp state.Component) TemplateResolution {
	mine := modelTemplates(model.Name, templates)
	if t, ok := catchingUp(svc, mine); ok {
		res := TemplateResolution{Base: &t, Component: comp}
		if m := svc.Status.TemplateMatching; m != nil {
			res.Candidates = m.Candidates
		}
		return res
	}
	var cands []Candidate
	byKey := map[string]Template{}
	for _, t := range mine {
		c := t.candidate()
		cands = append(cands, c)
		byKey[key(c)] = t
	}
	req := selectionRequest(svc, model, gpuModels)
	req.Resolved = resolvedCandidate(svc, mine)
	s := Select(cands, req)
	res := TemplateResolution{Candidates: s.Candidates}
	switch {
	case s.Chosen != nil:
		t := byKey[key(*s.Chosen)]
		res.Base = &t
	case s.Ambiguous:
		comp.Errors = []error{state.NewError(state.InvalidSpec, ReasonAmbiguous, "%s", s.Message)}
	case len(cands) == 0:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonTemplateNotFound, fmt.Sprintf("model %s has no templates yet", model.Name)
	case !slices.ContainsFunc(cands, func(c Candidate) bool { return c.Status == aimv1.AIMStatusReady }):
		// Templates exist but none is Ready (preparing, Failed or NotAvailable): the service waits for one, as
		// in the reference; templateMatching says why each was passed over.
		var states []string
		for _, c := range cands {
			states = append(states, fmt.Sprintf("%s (%s)", c.Name, cmp.Or(string(c.Status), "Pending")))
		}
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonTemplateUnready,
			"no template of the model is Ready: "+strings.Join(states, ", ")
	default:
		comp.Errors = []error{state.NewError(state.InvalidSpec, s.Reason, "%s", s.Message)}
	}
	res.Component = comp
	return res
}

// modelTemplates are the templates of the model a selection chooses from (derived ones are a service's own), in
// a fixed order: listers return objects in no particular order, and the recorded candidates (and so the status)
// must not change from one reconcile to the next. Only the model's templates are sorted: every resync of every
// service does this, over every template of the cluster.
func modelTemplates(model string, templates []Template) []Template {
	var mine []Template
	for _, t := range templates {
		if t.Spec.ModelName == model && !t.Derived() {
			mine = append(mine, t)
		}
	}
	slices.SortFunc(mine, func(a, b Template) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return mine
}

// catchingUp is the template of the service's status.resolvedTemplate among the model's while it is on its way
// back to Ready: its status behind its spec (an edit its controller has not seen yet) or Pending or Progressing
// (discovering again for a changed input). The service waits for it, as for a named template (TemplateComponent
// says why), instead of selecting another, which would move a running service off its template for an edit of
// it, and for good (keepResolved holds the other then). A template that fails is left for another. aim-engine
// keeps a resolved template whose status says Ready (template.go:172) and never discovers one again.
func catchingUp(svc *aimv1.AIMService, mine []Template) (Template, bool) {
	for _, t := range mine {
		said := t.Status.Status
		if t.Stale {
			said = t.StaleFrom
		}
		// On its way: no worse than Pending in the order the status takes (not Failed, Degraded or NotAvailable).
		onItsWay := !state.Worse(said, aimv1.AIMStatusPending)
		if t.Status.Status != aimv1.AIMStatusReady && onItsWay && isResolvedTemplate(svc, t) {
			return t, true
		}
	}
	return Template{}, false
}

// selectionRequest is what a service asks of the model's templates: the model's default, its overrides'
// metric, precision and GPU, whether unoptimized profiles may serve, and the GPU models the nodes have.
func selectionRequest(svc *aimv1.AIMService, model *Model, gpuModels []string) Request {
	req := Request{DefaultTemplate: model.Spec.DefaultServiceTemplate, GPUModels: gpuModels}
	if sel := svc.Spec.Template; sel != nil {
		req.AllowUnoptimized = sel.AllowUnoptimized
	}
	if o := svc.Spec.Overrides; o != nil {
		req.Metric, req.Precision = ptr.Deref(o.Metric, ""), ptr.Deref(o.Precision, "")
		if o.Hardware != nil && o.Hardware.GPU != nil {
			req.GPUModel, req.GPUCount = o.Hardware.GPU.Model, o.Hardware.GPU.Requests
		}
	}
	return req
}

// resolvedCandidate is the key of the template in the service's status.resolvedTemplate among the model's
// templates: that template itself, or, with overrides, the base the resolved derived template was made from.
func resolvedCandidate(svc *aimv1.AIMService, mine []Template) string {
	for _, t := range mine {
		if isResolvedTemplate(svc, t) {
			return key(t.candidate())
		}
	}
	return ""
}

// isResolvedTemplate reports whether t is the template in the service's status.resolvedTemplate: that template
// itself, or, with overrides, the base the resolved derived template was made from.
func isResolvedTemplate(svc *aimv1.AIMService, t Template) bool {
	ref := svc.Status.ResolvedTemplate
	if ref == nil || ref.Name == "" {
		return false
	}
	itself := t.Namespace == ref.Namespace && t.Name == ref.Name
	derived := svc.Spec.Overrides != nil && ref.Namespace == svc.Namespace && derivedName(svc, t) == ref.Name
	return itself || derived
}

// TemplateComponent reports the state of the template the service runs on.
func TemplateComponent(t *Template, comp state.Component) state.Component {
	what := t.Ref().Kind + " " + strings.TrimPrefix(t.Namespace+"/"+t.Name, "/")
	if t.Stale {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonTemplateUnready, state.StaleMessage(what, t.Generation, t.Status.ObservedGeneration)
		return comp
	}
	switch t.Status.Status {
	case aimv1.AIMStatusReady:
		comp.Reason, comp.Message = ReasonTemplateResolved, t.Ref().Kind+" "+t.Name+" is ready" // as aim-engine's (reconcile.go:380)
	case aimv1.AIMStatusNotAvailable:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusNotAvailable, ReasonTemplateUnready, what+" needs a GPU this cluster does not have"
	case aimv1.AIMStatusFailed, aimv1.AIMStatusDegraded:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusFailed, ReasonTemplateUnready, what+" is "+string(t.Status.Status)
	default:
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusPending, ReasonTemplateUnready, what+" is "+cmp.Or(string(t.Status.Status), "Pending")
	}
	return comp
}

// DerivedTemplate is the namespaced template a service with overrides runs on (F10): the base template's spec
// with the overrides laid over it, owned by the service. A base that is itself derived is used as it is. As in
// aim-engine it names the runtime config ("default" when nothing names one); it keeps the base's caching (in
// Shared mode too, where aim-engine sets {enabled: true}), so that the caching env reaches the service's cache,
// and the base's resources, over which the InferenceService lays the service's (docs/compatibility.md).
func DerivedTemplate(svc *aimv1.AIMService, base Template, modelName string, rc runtimeconfig.Resolved) *aimv1.AIMServiceTemplate {
	o := svc.Spec.Overrides
	if o == nil || base.Derived() {
		return nil
	}
	spec := *base.Spec.DeepCopy()
	spec.ModelName = cmp.Or(spec.ModelName, modelName)
	spec.RuntimeConfigName = runtimeconfig.Name(cmp.Or(svc.Spec.RuntimeConfigName, spec.RuntimeConfigName))
	if o.Hardware != nil {
		spec.Hardware = o.Hardware.DeepCopy()
	}
	if o.Precision != nil {
		spec.Precision = ptr.To(*o.Precision)
	}
	if o.Metric != nil {
		spec.Metric = ptr.To(*o.Metric)
	}
	if len(svc.Spec.ImagePullSecrets) > 0 {
		spec.ImagePullSecrets = svc.Spec.ImagePullSecrets
	}
	// The profile is discovered anew for overridden parameters. Overrides that restate the base's (metric: latency
	// on a latency template, as selection picked it) keep its profile, which aim-engine's InferenceService, built
	// from the base, runs with (AIM_PROFILE_ID).
	if !restatesBase(o, base.Spec.AIMRuntimeParameters) {
		spec.ProfileID = ""
	}
	return &aimv1.AIMServiceTemplate{
		TypeMeta: metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMServiceTemplate"},
		ObjectMeta: metav1.ObjectMeta{
			// Not aim-engine's name (which hashes only the overrides, 4 digits): each service owns its derived
			// template (F10), so the service's UID is in the hash and two services with the same base and
			// overrides do not collide.
			Name:      derivedName(svc, base),
			Namespace: svc.Namespace,
			Labels: childlabels.For(childlabels.Service, svc, rc, map[string]string{
				aimv1.LabelOrigin: aimv1.OriginDerived, aimv1.LabelService: naming.LabelValue(svc.Name)}),
			OwnerReferences: []metav1.OwnerReference{ownerRef(svc)},
		},
		Spec: aimv1.AIMServiceTemplateSpec{AIMServiceTemplateSpecCommon: spec, Caching: base.Caching.DeepCopy()},
	}
}

// restatesBase reports whether overrides set only what the base template already has: the metric, the
// precision and the hardware that decide its profile.
func restatesBase(o *aimv1.AIMRuntimeParameters, base aimv1.AIMRuntimeParameters) bool {
	return (o.Metric == nil || ptr.Equal(o.Metric, base.Metric)) && (o.Precision == nil || ptr.Equal(o.Precision, base.Precision)) &&
		(o.Hardware == nil || aimv1.SemanticEqual(o.Hardware, base.Hardware))
}

// derivedName is the name of the template derived from base for the service's overrides: the base's name and
// the overridden values, and a hash that tells services apart.
func derivedName(svc *aimv1.AIMService, base Template) string {
	o := svc.Spec.Overrides
	parts := []string{base.Name, "ovr"}
	if g := o.Hardware; g != nil && g.GPU != nil {
		if g.GPU.Model != "" {
			parts = append(parts, strings.ToLower(g.GPU.Model))
		}
		// As aim-engine's buildOverrideNameParts: a count only when there is one.
		if g.GPU.Requests > 0 {
			parts = append(parts, fmt.Sprintf("%dgpu", g.GPU.Requests))
		}
	}
	if o.Precision != nil {
		parts = append(parts, string(*o.Precision))
	}
	if o.Metric != nil {
		parts = append(parts, string(*o.Metric))
	}
	return naming.DerivedName(parts, naming.HashLength, naming.MaxLength, svc.UID, base.Namespace, base.Name, sameAmounts(o))
}

// sameAmounts is o with its quantities in their canonical form: an amount written another way (1024Mi for 1Gi,
// the number 8 for "8"), which the API takes as no change of the immutable overrides, must not rename the derived
// template either (a new template, its discovery, a rollout of the predictor).
func sameAmounts(o *aimv1.AIMRuntimeParameters) *aimv1.AIMRuntimeParameters {
	if o.Hardware == nil {
		return o
	}
	c := o.DeepCopy()
	modelctl.CanonicalHardware(c.Hardware)
	return c
}

// ownerRef makes the service the controlling owner of a child.
func ownerRef(svc *aimv1.AIMService) metav1.OwnerReference {
	return *metav1.NewControllerRef(svc, aimv1.SchemeGroupVersion.WithKind("AIMService"))
}
