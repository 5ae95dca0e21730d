// Package templatecache reconciles AIMTemplateCaches: one AIMArtifact per model source of a template, and a
// status listing every artifact with its volume, which the AIMService controller mounts.
//
// Shared caches (the default) use unowned artifacts named after the source, so every cache of a namespace
// downloading the same source with the same storage class and env uses one artifact; Dedicated caches own
// their artifacts, which the garbage collector deletes with the cache. Artifacts carry aim-engine's labels
// (the cache that made them, its template, the source's index); a deleted cache's finalizer removes the
// shared artifacts it listed that are not Ready and that no other cache lists (not, as aim-engine does,
// every non-Ready artifact with its label: reference defect R9.22 in docs/design.md).
package templatecache

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/childlabels"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/env"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/naming"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/reconcile"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

// Labels of the artifacts a cache makes, the template kinds, and the hash length of artifact names.
const (
	// LabelCache names the cache that made an artifact (aim-engine's label; a shared artifact keeps the name
	// of the first cache).
	LabelCache = "aim.eai.amd.com/template-cache.name"
	// The labels aim-engine puts on the artifacts a cache makes.
	LabelTemplateName    = "aim.eai.amd.com/template.name"
	LabelTemplateScope   = "aim.eai.amd.com/template.scope"
	LabelTemplateIndex   = "aim.eai.amd.com/template.index"
	LabelTemplateCreated = "template-created"

	KindNamespaced = "AIMServiceTemplate"
	KindCluster    = "AIMClusterServiceTemplate"

	hashLength = 10
)

// Template is the template a cache resolved.
type Template struct {
	Kind, Name   string
	Status       aimv1.AIMStatus
	ModelSources []aimv1.AIMModelSource
	// Ready is the template's Ready condition, which a cache waiting for it mirrors.
	Ready *metav1.Condition
	// Stale is set while the template's status is of an earlier spec, saying so.
	Stale string
}

// Observation is what one reconcile of a cache saw.
type Observation struct {
	Cache *aimv1.AIMTemplateCache
	// Template is nil when TemplateErr says why.
	Template    *Template
	TemplateErr error

	RuntimeConfig    runtimeconfig.Resolved
	RuntimeConfigErr error

	// Artifacts are every artifact of the cache's namespace, Caches every other template cache of it.
	Artifacts []*aimv1.AIMArtifact
	Caches    []*aimv1.AIMTemplateCache
}

// Plan is what a reconcile should do and report.
type Plan struct {
	// Apply are Dedicated artifacts to server-side apply; Create are Shared artifacts to create when missing
	// (never updated: other caches use them too).
	Apply, Create []*aimv1.AIMArtifact
	// InUse names the artifacts of the cache once every one of them is Ready; the artifacts the cache owns
	// under other names (as an earlier release named them) are then deleted. Nil until then: a service may
	// still mount them.
	InUse []string
	// Superseded are the Shared artifacts of the cache that no source of it uses any more (its env, storage class
	// or sources changed) and that are not Ready: left, they would hold their volume and retry their download for
	// good. Ready ones stay, as the finalizer leaves them: a download is worth keeping.
	Superseded []*aimv1.AIMArtifact
	Components []state.Component
	// Status carries every field but status and conditions, which the state engine derives.
	Status aimv1.AIMTemplateCacheStatus
}

// PlanCache decides a cache's artifacts and status. It is pure.
func PlanCache(o Observation) Plan {
	c := o.Cache
	p := Plan{Status: *c.Status.DeepCopy()}
	p.Status.ObservedGeneration = c.Generation
	configMissing := planRuntimeConfig(o, &p)
	sources, templateBlocked := planTemplate(o, &p)
	if configMissing || templateBlocked {
		// Keep the last known artifacts: they still exist, and the status says the cache is not Ready.
		return p
	}
	planArtifacts(o, &p, sources)
	return p
}

// report adds an upstream component.
func (p *Plan) report(component string, s aimv1.AIMStatus, reason, msg string, errs ...error) {
	p.Components = append(p.Components, state.Component{Name: component, Dependency: state.DependencyUpstream, State: s,
		Reason: reason, Message: msg, Errors: errs})
}

// planRuntimeConfig reports the runtime config and records it in the status; true when it is missing.
func planRuntimeConfig(o Observation, p *Plan) (missing bool) {
	rc, recorded := runtimeconfig.Report(o.RuntimeConfig, o.RuntimeConfigErr, p.Status.ResolvedRuntimeConfig)
	p.Components, p.Status.ResolvedRuntimeConfig = append(p.Components, rc), recorded
	return o.RuntimeConfigErr != nil
}

// planTemplate reports the template and returns the sources to cache: the cache's own, or else the
// template's once it is Ready. blocked is true when there is no template or it is not Ready.
func planTemplate(o Observation, p *Plan) (sources []aimv1.AIMModelSource, blocked bool) {
	c, st := o.Cache, &p.Status
	switch t := o.Template; {
	case t == nil:
		st.ResolvedTemplateKind = "" // the KIND column names no kind of a template that does not exist
		err := o.TemplateErr
		if err == nil {
			err = state.NewError(state.MissingUpstream, ReasonTemplateNotFound, "template %q not found", c.Spec.TemplateName)
		}
		p.report(ComponentTemplate, "", "", "", err)
		return nil, true
	case len(c.Spec.ModelSources) > 0:
		// The cache lists its sources: the template need not have resolved its own.
		st.ResolvedTemplateKind = t.Kind
		p.report(ComponentTemplate, aimv1.AIMStatusReady, ReasonTemplateFound, t.Kind+" "+t.Name)
		return c.Spec.ModelSources, false
	case t.Stale != "" && len(c.Status.Artifacts) == 0:
		// A cache that has made no artifact yet waits for a template whose status is of an earlier spec: the model
		// sources there may be of a spec that is gone, and a download of them wasted. A cache that has made its
		// artifacts takes the status as it is, as aim-engine does: it made them from those sources, and its
		// status would flip to Pending and back at every edit of the template.
		st.ResolvedTemplateKind = t.Kind
		p.report(ComponentTemplate, aimv1.AIMStatusPending, ReasonTemplateNotReady, t.Stale)
		return nil, true
	case t.Status != aimv1.AIMStatusReady:
		st.ResolvedTemplateKind = t.Kind
		mirror, reason, msg := templateNotReady(t)
		p.report(ComponentTemplate, mirror, reason, msg)
		return nil, true
	default:
		// The template's own Ready reason and message, as aim-engine copies them (AllComponentsReady), and its
		// words for a template without the condition (written by hand, or by an old release).
		st.ResolvedTemplateKind = t.Kind
		reason, msg := ReasonResourceFound, MessageNoReadyCondition
		if t.Ready != nil {
			reason, msg = t.Ready.Reason, t.Ready.Message
		}
		p.report(ComponentTemplate, aimv1.AIMStatusReady, reason, msg)
		return t.ModelSources, false
	}
}

// templateNotReady is the state, reason and message of the Template component while the template is not
// Ready. The cache mirrors its template, as the reference does: a Failed template fails the cache, one whose
// GPU is absent makes it NotAvailable, the rest is waiting; reason and message are the template's.
func templateNotReady(t *Template) (aimv1.AIMStatus, string, string) {
	mirror, reason := aimv1.AIMStatusPending, ReasonTemplateNotReady
	msg := fmt.Sprintf("%s %s is %s", t.Kind, t.Name, cmp.Or(string(t.Status), string(aimv1.AIMStatusPending)))
	switch t.Status {
	case aimv1.AIMStatusFailed, aimv1.AIMStatusDegraded, aimv1.AIMStatusNotAvailable:
		mirror = t.Status
	}
	if t.Ready != nil && t.Ready.Status == metav1.ConditionFalse {
		reason, msg = t.Ready.Reason, t.Ready.Message
	}
	return mirror, reason, msg
}

// planArtifacts matches an artifact to each source, plans the ones to apply or create, lists them in the
// status and reports the Artifacts component.
func planArtifacts(o Observation, p *Plan, sources []aimv1.AIMModelSource) {
	c := o.Cache
	entries := map[string]aimv1.AIMTemplateCacheArtifactStatus{}
	var states []artifactState
	var errs []error
	for i, src := range sources {
		desired := DesiredArtifact(c, src, i, o.RuntimeConfig)
		cur, err := match(c, desired, o.Artifacts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case c.Spec.Mode == aimv1.AIMTemplateCacheModeDedicated && (cur == nil || !upToDate(cur, desired)):
			p.Apply = append(p.Apply, desired)
		case cur == nil:
			p.Create = append(p.Create, desired)
		}
		entry := artifactEntry(src, desired, cur)
		if cur != nil {
			// As aim-engine lists them: the artifacts that exist (an entry's uid is required), not those still
			// to be made, which the Artifacts component reports.
			entries[entry.Name] = entry
		}
		as := artifactState{name: entry.Name, status: entry.Status, missing: cur == nil}
		if cur != nil {
			as.ready = meta.FindStatusCondition(cur.Status.Conditions, state.ConditionReady)
			as.missing = unreported(cur, as.ready)
		}
		states = append(states, as)
	}
	p.Status.Artifacts = entries
	if len(entries) == 0 {
		p.Status.Artifacts = nil
	}
	comp := artifactsComponent(states, errs)
	if comp.State == aimv1.AIMStatusReady {
		p.InUse = slices.Sorted(maps.Keys(entries))
	}
	p.Components = append(p.Components, comp)
	p.Superseded = unneededArtifacts(c, o.Artifacts, o.Caches, entries)
}

// artifactEntry is the status entry of a source: the artifact serving it, or the desired one, Pending, until
// it exists (then it is reported, not listed).
func artifactEntry(src aimv1.AIMModelSource, desired, cur *aimv1.AIMArtifact) aimv1.AIMTemplateCacheArtifactStatus {
	// No mountPoint: aim-engine leaves it empty (reconcile.go:465), and services derive it from the model.
	entry := aimv1.AIMTemplateCacheArtifactStatus{Name: desired.Name, Model: src.ModelID, Status: aimv1.AIMStatusPending}
	if cur != nil {
		entry.Name, entry.UID, entry.PersistentVolumeClaim = cur.Name, cur.UID, cur.Status.PersistentVolumeClaim
		entry.Status = aimv1.AIMStatus(cmp.Or(string(cur.Status.Status), string(aimv1.AIMStatusPending)))
	}
	return entry
}

// ArtifactName is the artifact of a source, as aim-engine names it: the source URI (its dots become dashes
// like every character a name cannot hold) and a hash of what the download depends on, so that the Shared
// caches of a namespace find each other's artifacts. A Dedicated cache's artifacts also hash the cache's name.
func ArtifactName(c *aimv1.AIMTemplateCache, src aimv1.AIMModelSource) string {
	inputs := []any{src.SourceURI, artifactEnv(c, src), c.Spec.StorageClassName}
	if c.Spec.Mode == aimv1.AIMTemplateCacheModeDedicated {
		inputs = append(inputs, "dedicated", c.Name)
	}
	return naming.DerivedName([]string{src.SourceURI}, hashLength, naming.MaxLength, inputs...)
}

// artifactEnv is the environment of a source's download: the cache's, overlaid by the source's (nil when
// both are empty).
func artifactEnv(c *aimv1.AIMTemplateCache, src aimv1.AIMModelSource) []corev1.EnvVar {
	return env.Merge(c.Spec.Env, src.Env)
}

// DesiredArtifact is the artifact a cache wants for a source.
func DesiredArtifact(c *aimv1.AIMTemplateCache, src aimv1.AIMModelSource, index int, rc runtimeconfig.Resolved) *aimv1.AIMArtifact {
	labels := childlabels.For(childlabels.TemplateCache, c, rc, map[string]string{
		LabelTemplateCreated: "true", LabelTemplateName: naming.LabelValue(c.Spec.TemplateName),
		LabelTemplateScope: string(c.Spec.TemplateScope), LabelTemplateIndex: strconv.Itoa(index),
		LabelCache: naming.LabelValue(c.Name),
	})
	a := &aimv1.AIMArtifact{
		TypeMeta:   metav1.TypeMeta{APIVersion: aimv1.SchemeGroupVersion.String(), Kind: "AIMArtifact"},
		ObjectMeta: metav1.ObjectMeta{Name: ArtifactName(c, src), Namespace: c.Namespace, Labels: labels},
		Spec: aimv1.AIMArtifactSpec{
			SourceURI: src.SourceURI, ModelID: src.ModelID, StorageClassName: c.Spec.StorageClassName,
			Env: artifactEnv(c, src), ModelDownloadImage: c.Spec.DownloadImage,
			RuntimeConfigName: c.Spec.RuntimeConfigName,
		},
	}
	// Always set, "0" when the source's size is unknown, as aim-engine writes it (reconcile.go:352): its
	// spec.size is a resource.Quantity without omitempty (aimartifact_types.go:92). A zero size still has the
	// artifact measure the model.
	a.Spec.WeightsSize = ptr.To(aimv1.NewQuantity(resource.Quantity{}))
	if src.WeightsSize != nil {
		a.Spec.WeightsSize = ptr.To(*src.WeightsSize)
	}
	if len(c.Spec.ImagePullSecrets) > 0 {
		a.Spec.ImagePullSecrets = append(a.Spec.ImagePullSecrets, c.Spec.ImagePullSecrets...)
	}
	if c.Spec.Mode == aimv1.AIMTemplateCacheModeDedicated {
		a.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(c, aimv1.SchemeGroupVersion.WithKind("AIMTemplateCache"))}
	}
	return a
}

// match finds the artifact serving a source. Dedicated: the one of the derived name, which must be this
// cache's. Shared: an unowned artifact of the same source and a compatible storage class, the best-off first,
// the derived name winning ties, then the one the cache lists already, then the first by name (the lister's order
// changes from call to call, and a cache moving between two Ready artifacts would remount its services' pods);
// another cache may have made it, or a user. An artifact of another name is
// taken only when Ready: its env (credentials) differs from this cache's, and a download that failed or is
// still running with other credentials is no reason not to start this cache's own.
func match(c *aimv1.AIMTemplateCache, desired *aimv1.AIMArtifact, all []*aimv1.AIMArtifact) (*aimv1.AIMArtifact, error) {
	if c.Spec.Mode == aimv1.AIMTemplateCacheModeDedicated {
		for _, a := range all {
			if a.Name != desired.Name {
				continue
			}
			if !reconcile.OwnedBy(a, c.UID) {
				return nil, state.NewError(state.InvalidSpec, ReasonArtifactConflict,
					"AIMArtifact %s/%s exists and does not belong to this cache", a.Namespace, a.Name)
			}
			return a, nil
		}
		return nil, nil
	}
	var best *aimv1.AIMArtifact
	for _, a := range all {
		if len(a.OwnerReferences) > 0 || a.Spec.SourceURI != desired.Spec.SourceURI || a.DeletionTimestamp != nil ||
			(c.Spec.StorageClassName != "" && a.Spec.StorageClassName != c.Spec.StorageClassName) ||
			(a.Name != desired.Name && a.Status.Status != aimv1.AIMStatusReady) {
			continue
		}
		if best == nil || better(c, a, best, desired.Name) {
			best = a
		}
	}
	return best, nil
}

// better reports whether artifact a serves the cache better than b (match's order).
func better(c *aimv1.AIMTemplateCache, a, b *aimv1.AIMArtifact, derived string) bool {
	if ra, rb := rank(a, derived), rank(b, derived); ra != rb {
		return ra < rb
	}
	_, aListed := c.Status.Artifacts[a.Name]
	if _, bListed := c.Status.Artifacts[b.Name]; aListed != bListed {
		return aListed
	}
	return a.Name < b.Name
}

// rank orders candidate artifacts: Ready first, Failed last, the derived name before others of its state.
func rank(a *aimv1.AIMArtifact, derived string) int {
	order := map[aimv1.AIMStatus]int{aimv1.AIMStatusReady: 0, aimv1.AIMStatusProgressing: 1, aimv1.AIMStatusPending: 2,
		aimv1.AIMStatusDegraded: 3, aimv1.AIMStatusNotAvailable: 4, aimv1.AIMStatusFailed: 5}
	r, ok := order[a.Status.Status]
	if !ok {
		r = 2
	}
	r *= 2
	if a.Name != derived {
		r++
	}
	return r
}

// upToDate reports whether an existing Dedicated artifact has the desired spec, labels and owner.
func upToDate(cur, desired *aimv1.AIMArtifact) bool {
	for k, v := range desired.Labels {
		if cur.Labels[k] != v {
			return false
		}
	}
	// The live artifact holds the server's defaults (the downloader image, a file key's optional): compared with
	// a desired one without them, every reconcile would apply it again.
	want := desired.DeepCopy()
	aimv1.SetObjectDefaults_AIMArtifact(want)
	return aimv1.SemanticEqual(cur.Spec, want.Spec)
}

// unreported says the artifact controller has not written an artifact's status yet. aim-engine waits for such
// an artifact as for a missing one (CreatingCaches): it skips those with an empty status (reconcile.go:272).
// Here a new artifact's status is already Pending, the schema's default, so the Ready condition that every
// status write of the controller carries tells the two apart.
func unreported(a *aimv1.AIMArtifact, ready *metav1.Condition) bool {
	return a.Status.Status == "" || ready == nil
}

type artifactState struct {
	name   string
	status aimv1.AIMStatus
	// missing: the artifact is still to be made, or its controller has not reported on it yet.
	missing bool
	// ready is the artifact's Ready condition.
	ready *metav1.Condition
}

// artifactsComponent aggregates the artifacts as aim-engine's ArtifactsReady does: CreatingCaches while any is
// to be created (Progressing, or the state of an existing artifact that is worse: a Failed one fails the cache
// meanwhile, reconcile.go:204), AllCachesReady when every one is Ready, else the worst artifact's state with its
// Ready reason.
func artifactsComponent(states []artifactState, errs []error) state.Component {
	comp := state.Component{Name: ComponentArtifacts, Dependency: state.DependencyDownstream, Errors: errs}
	if len(errs) > 0 {
		return comp
	}
	if len(states) == 0 {
		// aim-engine's reason; a cache with nothing to download has nothing to wait for, so it is Ready here.
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusReady, ReasonNoCaches, "No artifacts to track"
		return comp
	}
	states = slices.SortedFunc(slices.Values(states), func(a, b artifactState) int { return strings.Compare(a.name, b.name) })
	var worst *artifactState
	for i, s := range states {
		if !s.missing && (worst == nil || state.Worse(s.status, worst.status)) {
			worst = &states[i]
		}
	}
	if slices.ContainsFunc(states, func(s artifactState) bool { return s.missing }) {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusProgressing, ReasonCreatingCaches, "Waiting for the AIM artifacts to be created"
		if worst != nil && state.Worse(worst.status, aimv1.AIMStatusProgressing) {
			comp.State = worst.status
		}
		return comp
	}
	if worst.status == aimv1.AIMStatusReady {
		comp.State, comp.Reason, comp.Message = aimv1.AIMStatusReady, ReasonAllCachesReady, "All caches are ready"
		return comp
	}
	// The worst artifact's Ready reason and message, whatever the condition's status (Unknown while no controller
	// runs), as aim-engine copies them (reconcile.go:443); its words when there is none (reconcile.go:453).
	comp.State, comp.Reason = cmp.Or(worst.status, aimv1.AIMStatusPending), ReasonCachesNotReady
	comp.Message = "One or more caches are not ready"
	if r := worst.ready; r != nil {
		comp.Reason, comp.Message = r.Reason, "One or more caches are not ready: "+r.Message
	}
	return comp
}

// FinalizerArtifactCleanup lets a deleted cache remove the shared artifacts it started when no other cache
// uses them (the reference's name).
const FinalizerArtifactCleanup = "aim.eai.amd.com/artifactcleanup"

// legacyFinalizerArtifactCleanup is the name earlier aim-apiserver releases used; caches holding it get the
// reference's name instead.
const legacyFinalizerArtifactCleanup = "aim.eai.amd.com/artifact-cleanup"

// ArtifactsToClean are the shared artifacts a deleted cache leaves that nobody needs (unneededArtifacts).
func ArtifactsToClean(c *aimv1.AIMTemplateCache, artifacts []*aimv1.AIMArtifact, caches []*aimv1.AIMTemplateCache) []*aimv1.AIMArtifact {
	return unneededArtifacts(c, artifacts, caches, nil)
}

// unneededArtifacts are the shared artifacts of cache c, listed in its status or labelled with its name (one it
// listed before its sources changed), but those in keep: made by the controller or by aim-engine's before a
// migration (childlabels.MadeBy; a user's own artifact stays), not owned (Dedicated ones go with the cache by owner
// reference), not Ready (a downloaded model is worth keeping), and listed by no other live cache of the namespace.
func unneededArtifacts(c *aimv1.AIMTemplateCache, artifacts []*aimv1.AIMArtifact, caches []*aimv1.AIMTemplateCache,
	keep map[string]aimv1.AIMTemplateCacheArtifactStatus) []*aimv1.AIMArtifact {
	used := map[string]bool{}
	for _, o := range caches {
		if o.UID == c.UID || o.DeletionTimestamp != nil {
			continue
		}
		for name := range o.Status.Artifacts {
			used[name] = true
		}
	}
	var out []*aimv1.AIMArtifact
	for _, a := range artifacts {
		_, listed := c.Status.Artifacts[a.Name]
		_, kept := keep[a.Name]
		mine := listed || a.Labels[LabelCache] == naming.LabelValue(c.Name)
		if mine && !kept && !used[a.Name] && len(a.OwnerReferences) == 0 && a.DeletionTimestamp == nil &&
			childlabels.MadeBy(a.Labels, childlabels.TemplateCache) && a.Status.Status != aimv1.AIMStatusReady {
			out = append(out, a)
		}
	}
	return out
}
