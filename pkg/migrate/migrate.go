// Package migrate moves a live aim-engine installation, whose AIM objects are custom resources, onto
// aim-apiserver without deleting a child: every object is copied into aim-apiserver's etcd with its UID,
// timestamps, generation, finalizers, owner references, spec and status; the APIService of the group is
// switched to aim-apiserver; then the CRDs are removed in a way the garbage collector never notices.
//
// The order matters (docs/migration.md has the measurements):
//   - The garbage collector deletes the children of an owner it sees deleted, or that a live lookup answers
//     404 (or with another UID) for. A 503 only makes it retry. So every owner must be served with its UID
//     before any lookup can reach aim-apiserver, and the CRDs' own deletions must reach no watcher.
//   - kube-aggregator's CRD auto-registration owns the APIService while it carries the automanaged label: it
//     reverts any change. One merge patch removes the label and points the APIService at aim-apiserver.
//   - Watches opened on the CRDs before the switch keep running on the CRDs' storage. Changing a CRD's spec
//     makes kube-apiserver tear that storage down, which ends them; the clients reconnect, now to
//     aim-apiserver, and find every object. Only then are the CRDs deleted.
//   - Deleting a CRD deletes its objects, and an object with finalizers would keep the CRD terminating, out
//     of reach once the group is served elsewhere: the finalizers are taken off the CRD objects (kept on the
//     copies) just before the switch.
//   - Writes to the CRDs while they are copied would be lost: an admission policy freezes them. aim-apiserver
//     enforces the cluster's admission policies too, so the freeze ends as soon as the switch is verified.
package migrate

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/term"
	"google.golang.org/grpc/grpclog"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aim-apiserver/aim-apiserver/pkg/migrate/freeze"
)

// migrator runs one migration or rollback.
type migrator struct {
	o     *Options
	c     *cluster
	store *aimStore
	now   func() time.Time
	// target names the cluster (API server and kubeconfig context) for the confirmation.
	target string
	// frozenAt is when this run froze writes to the group; zero when it did not (a resumed run).
	frozenAt time.Time
	// copied says this run copied every object under its freeze, so that nothing can have changed since.
	copied bool
}

// policyPropagation is how long aim-apiserver is given to load an admission policy: three of the one-second
// refreshes every API server runs.
const policyPropagation = 3 * time.Second

// confirm says what is about to change where, and asks unless --yes. Without a terminal to ask in (a Job, a
// pipe) and without --yes it stops: a migration is not something to start by accident.
func (m *migrator) confirm(what string) error {
	m.logf("%s: cluster %s, aim-apiserver's etcd %v", what, m.target, m.o.Etcd.StorageConfig.Transport.ServerList)
	if m.o.Yes {
		return nil
	}
	if f, ok := m.o.In.(*os.File); m.o.In == nil || ok && !term.IsTerminal(int(f.Fd())) {
		return errors.New("not confirmed: answer in a terminal, or pass --yes; nothing was changed")
	}
	fmt.Fprint(m.o.Out, "Type yes to go on: ")
	line, _ := bufio.NewReader(m.o.In).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		return errors.New("not confirmed; nothing was changed")
	}
	return nil
}

// Run migrates, or rolls back with o.Rollback.
func Run(ctx context.Context, o *Options) error {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	config, err := loader.ClientConfig()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	target := config.Host
	if raw, err := loader.RawConfig(); err == nil && raw.CurrentContext != "" {
		target = fmt.Sprintf("%s (context %s)", config.Host, raw.CurrentContext)
	}
	config.UserAgent = "aim-apiserver-migrate"
	// A one-off administrator's run whose reads and writes hold the freeze: client-go's default of 5 requests per
	// second would make it last minutes for a few thousand objects.
	config.QPS, config.Burst = 100, 200
	// The etcd client's gRPC logs every dial it gives up as a warning; only errors matter here.
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, os.Stderr))
	c, err := newCluster(config)
	if err != nil {
		return err
	}
	store, err := newAIMStore(ctx, o.Etcd, o.StorageCompression)
	if err != nil {
		return err
	}
	defer store.close()
	m := &migrator{o: o, c: c, store: store, now: time.Now, target: target}
	if o.Rollback {
		return m.rollback(ctx)
	}
	return m.migrate(ctx)
}

func (m *migrator) logf(format string, args ...any) {
	fmt.Fprintf(m.o.Out, "[migrate %s] %s\n", m.now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// state is what the cluster looks like now.
type state struct {
	crds       []unstructured.Unstructured
	apiService *unstructured.Unstructured
	switched   bool
	backup     *Backup
	// engineNamespace is aim-apiserver's namespace when it is the Namespace aim-engine's kustomize manifests
	// declare, else empty.
	engineNamespace string
}

func (m *migrator) observe(ctx context.Context) (*state, error) {
	crds, err := m.c.crds(ctx)
	if err != nil {
		return nil, err
	}
	as, err := m.c.apiService(ctx)
	if err != nil {
		return nil, err
	}
	b, err := readBackup(m.o.BackupDir)
	if err != nil {
		return nil, err
	}
	ns, name, _ := splitRef(m.o.Service)
	return &state{crds: crds, apiService: as, switched: switched(as, ns, name), backup: b}, nil
}

func (m *migrator) migrate(ctx context.Context) error {
	st, err := m.observe(ctx)
	if err != nil {
		return err
	}
	if stop, err := m.restorePendingAPIService(ctx, st); stop || err != nil {
		return err
	}
	switch {
	case st.switched && len(st.crds) == 0:
		if err := m.c.unfreeze(ctx); err != nil {
			return err
		}
		m.logf("done already: APIService %s serves aim.eai.amd.com from %s and no CRD of the group is left", apiServiceName, m.o.Service)
		return nil
	case !st.switched && len(st.crds) == 0:
		return errors.New("nothing to migrate: no CustomResourceDefinition of aim.eai.amd.com exists and the APIService does not point at " +
			m.o.Service)
	}
	if err := m.preflight(ctx, st); err != nil {
		return err
	}
	if !m.o.DryRun {
		if err := m.confirm("about to migrate"); err != nil {
			return err
		}
	}
	if st.switched {
		m.logf("the APIService already points at %s: resuming after the switch from the backup of %s", m.o.Service, st.backup.Taken.Format(time.RFC3339))
		return m.afterSwitch(ctx, st)
	}
	return m.beforeSwitch(ctx, st)
}

// restorePendingAPIService creates the APIService that an earlier run deleted to register it anew and could not
// create again (ensureOpenAPI), from the copy it saved: until then nothing serves the group. Only after the CRDs are
// gone, only a copy that points at aim-apiserver, and as any change, after the confirmation. When someone created
// it meanwhile (a Helm upgrade, by hand), the copy is removed. stop: a dry run has said what it would do.
func (m *migrator) restorePendingAPIService(ctx context.Context, st *state) (stop bool, err error) {
	if len(st.crds) > 0 {
		return false, nil
	}
	saved, path, err := readPendingAPIService(m.o.BackupDir)
	if err != nil || saved == nil {
		return false, err
	}
	ns, name, _ := splitRef(m.o.Service)
	switch {
	case st.apiService != nil && st.switched && m.o.DryRun:
		m.logf("--dry-run: APIService %s exists again: would remove the copy an earlier run saved in %s", apiServiceName, path)
		return false, nil
	case st.apiService != nil && st.switched:
		m.logf("APIService %s exists again: removing the copy an earlier run saved in %s", apiServiceName, path)
		return false, removePendingAPIService(m.o.BackupDir)
	case st.apiService != nil, !switched(saved, ns, name):
		return false, nil
	case m.o.DryRun:
		m.logf("--dry-run: APIService %s is missing after an earlier run registered it anew: would create it from %s", apiServiceName, path)
		return true, nil
	}
	if err := m.confirm(fmt.Sprintf("APIService %s is missing after an earlier run registered it anew: about to create it from %s", apiServiceName, path)); err != nil {
		return false, err
	}
	if err := m.c.createAPIService(ctx, saved, openAPIWait); err != nil {
		return false, fmt.Errorf("APIService %s is missing; creating it from %s: %w", apiServiceName, path, err)
	}
	m.logf("created APIService %s from %s", apiServiceName, path)
	if err := removePendingAPIService(m.o.BackupDir); err != nil {
		return false, err
	}
	if err := m.c.waitAvailable(ctx, m.o.Timeout); err != nil {
		return false, err
	}
	st.apiService, st.switched = saved, true
	return false, nil
}

// preflight checks what must hold before anything changes, and prints it.
func (m *migrator) preflight(ctx context.Context, st *state) error {
	m.logf("preflight")
	served := map[string]bool{}
	for _, k := range m.store.kinds {
		served[k.Resource] = true
	}
	var problems []string
	for _, crd := range st.crds {
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
		stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
		var versions []string
		vs, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range vs {
			if vm, ok := v.(map[string]any); ok && vm["served"] == true {
				versions = append(versions, fmt.Sprint(vm["name"]))
			}
		}
		m.logf("  CRD %s: %s, serves %v, stored versions %v", crd.GetName(), scope, versions, stored)
		if !served[plural] {
			if st.switched {
				continue
			}
			items, err := m.c.list(ctx, schemaGVR(plural))
			if err != nil {
				return err
			}
			if len(items) > 0 {
				problems = append(problems, fmt.Sprintf("CRD %s holds %d objects of a kind aim-apiserver does not serve; they would be lost", crd.GetName(), len(items)))
			}
			continue
		}
		if !slices.Contains(versions, "v1alpha1") && !st.switched {
			problems = append(problems, fmt.Sprintf("CRD %s does not serve v1alpha1", crd.GetName()))
		}
	}

	engines, err := m.c.engineControllers(ctx, m.o.EngineDeployments)
	if err != nil {
		return err
	}
	if len(engines) == 0 {
		m.logf("  aim-engine controller: no Deployment found (looked for aim-engine images; name it with --engine-deployment)")
	}
	for _, e := range engines {
		m.logf("  aim-engine controller %s/%s: %d replicas wanted, %d pods", e.Namespace, e.Name, e.Replicas, e.Running)
		if e.Replicas > 0 || e.Running > 0 {
			msg := fmt.Sprintf("aim-engine's controller %s/%s still runs: scale it to zero first "+
				"(kubectl -n %s scale deployment %s --replicas 0), or pass --force", e.Namespace, e.Name, e.Namespace, e.Name)
			if !m.o.Force {
				problems = append(problems, msg)
			} else {
				m.logf("  --force: %s", msg)
			}
		}
	}

	// A GitOps tool that manages aim-engine would bring its CRDs and controller back after the switch.
	var managed []string
	for _, e := range engines {
		if e.GitOps != "" {
			managed = append(managed, fmt.Sprintf("Deployment %s/%s by %s", e.Namespace, e.Name, e.GitOps))
		}
	}
	for _, crd := range st.crds {
		if tool := gitOpsManager(crd.GetLabels(), crd.GetAnnotations()); tool != "" {
			managed = append(managed, fmt.Sprintf("CRD %s by %s", crd.GetName(), tool))
		}
	}
	for _, what := range managed {
		m.logf("  managed by GitOps: %s", what)
	}
	if len(managed) > 0 {
		msg := "a GitOps tool manages aim-engine (above) and would re-create its CRDs and controller after the switch: " +
			"turn off automated sync and self-heal for it, or take aim-engine's CRDs and Deployment out of it without pruning " +
			"them, then pass --gitops-paused"
		if !m.o.GitOpsPaused {
			problems = append(problems, msg)
		} else {
			m.logf("  --gitops-paused: going on")
		}
	}

	if err := m.c.serviceReady(ctx, m.o.Service); err != nil {
		problems = append(problems, err.Error())
	} else {
		m.logf("  aim-apiserver: Service %s has a ready endpoint", m.o.Service)
	}
	// Not a reason to stop: the loss comes with aim-engine's removal, which the warning is for.
	ns, _, _ := splitRef(m.o.Service)
	in, err := m.c.engineNamespace(ctx, ns)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if in {
		st.engineNamespace = ns
		m.logf("  WARNING: %s", engineNamespaceWarning(ns))
	}
	// Not a reason to stop either: the secrets can be copied before or after the switch.
	ours := cmp.Or(m.o.SystemNamespace, m.c.serverSystemNamespace(ctx, m.o.Service), ns)
	if from, missing, err := m.c.secretsLeftBehind(ctx, engines, ours); err != nil {
		m.logf("  WARNING: the pull secrets of cluster objects could not be checked: %v", err)
	} else if len(missing) > 0 {
		m.logf("  WARNING: %s", secretsLeftBehindWarning(from, ours, missing))
	}
	// Nor this: the configs can be mended after the switch, through aim-apiserver.
	if configs, err := m.c.runtimeConfigsTurningPropagationOff(ctx); err != nil {
		m.logf("  WARNING: the runtime configs' label propagation could not be checked: %v", err)
	} else if len(configs) > 0 {
		m.logf("  WARNING: %s", propagationTurnedOffWarning(configs))
	}
	if _, err := m.c.caBundle(ctx, m.o.ServingSecret); err != nil {
		problems = append(problems, err.Error())
	}
	if _, _, err := m.store.kinds[0].get(ctx, "default", "aim-migration-probe"); err != nil {
		problems = append(problems, "aim-apiserver's etcd is not reachable: "+err.Error())
	} else {
		m.logf("  aim-apiserver's etcd %v: reachable", m.o.Etcd.StorageConfig.Transport.ServerList)
	}
	if st.apiService != nil {
		m.logf("  APIService %s: %s", apiServiceName, describeAPIService(st.apiService))
	}
	if st.switched && st.backup == nil {
		problems = append(problems, fmt.Sprintf("the APIService already points at %s but there is no backup in %s to finish from", m.o.Service, m.o.BackupDir))
	}
	if len(problems) > 0 {
		return fmt.Errorf("preflight failed:\n  - %s", strings.Join(problems, "\n  - "))
	}
	return nil
}

// beforeSwitch copies, switches and finishes.
func (m *migrator) beforeSwitch(ctx context.Context, st *state) error {
	objects, err := m.read(ctx, st)
	if err != nil {
		return err
	}
	if m.o.DryRun {
		if err := m.protectHelmOwned(ctx, objects); err != nil {
			return err
		}
		if err := m.removeOrphans(ctx, m.c.namespaceExists, true); err != nil {
			return err
		}
		invalid, err := m.check(ctx, objects)
		if err != nil {
			return err
		}
		m.plan(objects, invalid)
		m.logf("--dry-run: nothing changed")
		return nil
	}

	// Back up before changing anything; the freeze is the first change.
	b := &Backup{Taken: m.now(), APIService: st.apiService, CRDs: st.crds, Objects: objects, StrippedFinalizers: map[types.UID][]string{}}
	if st.backup != nil {
		maps.Copy(b.StrippedFinalizers, st.backup.StrippedFinalizers)
	}
	if _, err := writeBackup(m.o.BackupDir, b); err != nil {
		return err
	}
	me, err := m.c.username(ctx)
	if err != nil {
		return err
	}
	m.logf("freezing writes to the CRDs (admission policy %s; %s is exempt)", freeze.PolicyName, me)
	if err := m.c.freeze(ctx, me); err != nil {
		return err
	}
	m.frozenAt = m.now()
	probe := m.store.clusterKind()
	if err := m.c.frozen(ctx, probe.GVR(), probe.Kind, time.Minute); err != nil {
		return m.abort(ctx, err)
	}
	// kube-apiserver enforces the freeze now. aim-apiserver, whose controller starts on the copies as soon as they
	// are written, loads admission policies on its own (every API server refreshes them each second,
	// k8s.io/apiserver's policy source); it cannot be probed before the switch, so give it a few refreshes. Without
	// this wait its controller created children of the copies before the freeze reached it, which the garbage
	// collector then deleted (their owners did not exist behind the CRDs).
	m.logf("waiting %s for aim-apiserver to load the freeze policy too", policyPropagation)
	select {
	case <-ctx.Done():
		return m.abort(ctx, ctx.Err())
	case <-time.After(policyPropagation):
	}

	// Read again under the freeze: nothing changes from here on.
	if b.Objects, err = m.read(ctx, st); err != nil {
		return err
	}
	if err := m.protectHelmOwned(ctx, b.Objects); err != nil {
		return m.abort(ctx, err)
	}
	path, err := writeBackup(m.o.BackupDir, b)
	if err != nil {
		return err
	}
	m.logf("backup of %d objects and %d CRDs written to %s", len(b.Objects), len(b.CRDs), path)

	invalid, err := m.check(ctx, b.Objects)
	if err != nil {
		return m.abort(ctx, err)
	}
	m.plan(b.Objects, invalid)
	if len(invalid) > 0 && !m.o.AllowInvalid {
		return m.abort(ctx, fmt.Errorf("%d objects fail aim-apiserver's validation (listed above): fix them, or pass --allow-invalid "+
			"to store them as they are; nothing was switched", len(invalid)))
	}

	if err := m.removeOrphans(ctx, m.c.namespaceExists, false); err != nil {
		return m.abort(ctx, err)
	}
	if err := m.copy(ctx, b.Objects, true, previousUIDs(st.backup, b.Objects)); err != nil {
		return m.abort(ctx, err)
	}
	m.copied = true
	if err := m.stripFinalizers(ctx, b); err != nil {
		return err
	}

	ca, err := m.c.caBundle(ctx, m.o.ServingSecret)
	if err != nil {
		return err
	}
	ns, name, _ := splitRef(m.o.Service)
	m.logf("switching APIService %s to %s", apiServiceName, m.o.Service)
	if err := m.c.switchAPIService(ctx, ns, name, m.o.Port, ca); err != nil {
		return err
	}
	if err := m.c.waitAvailable(ctx, m.o.Timeout); err != nil {
		return err
	}
	m.logf("APIService %s is Available: aim-apiserver serves aim.eai.amd.com", apiServiceName)
	st.backup = b
	return m.afterSwitch(ctx, st)
}

// afterSwitch makes sure every object is served with its UID, ends the watches on the CRDs' storage and
// removes the CRDs.
func (m *migrator) afterSwitch(ctx context.Context, st *state) error {
	// A resumed run makes sure the copies exist; this run's own copy, under its freeze, cannot have changed.
	if !m.copied {
		if err := m.copy(ctx, st.backup.Objects, false, nil); err != nil {
			return err
		}
	}
	if err := m.c.waitAvailable(ctx, m.o.Timeout); err != nil {
		return err
	}
	if err := m.verifyServed(ctx, st.backup.Objects); err != nil {
		return err
	}
	// The CRDs' objects are out of the API's reach now, so the freeze protects nothing; and aim-apiserver runs
	// the cluster's admission policies too, so it would stop aim-apiserver's own controller and users.
	if err := m.c.unfreeze(ctx); err != nil {
		return err
	}
	if m.frozenAt.IsZero() {
		m.logf("lifted the freeze: writes go to aim-apiserver")
	} else {
		m.logf("lifted the freeze: writes go to aim-apiserver; writes to the group were refused for %s", m.now().Sub(m.frozenAt).Round(time.Millisecond))
	}
	if err := m.endCRDWatches(ctx, st.crds); err != nil {
		return err
	}
	if err := m.deleteCRDs(ctx, st.crds); err != nil {
		return err
	}
	// Until the CRDs were gone, their OpenAPI answered for the group.
	if again, err := m.c.ensureOpenAPI(ctx, openAPIWait, m.o.BackupDir); err != nil {
		return err
	} else if again {
		m.logf("kube-apiserver did not serve aim-apiserver's OpenAPI: registered APIService %s anew, which makes it "+
			"fetch the document", apiServiceName)
		if err := m.c.waitAvailable(ctx, m.o.Timeout); err != nil {
			return err
		}
	}
	m.logf("done: %d objects are served by aim-apiserver with their UIDs; the CRDs are gone. The backup stays in %s "+
		"(aim-apiserver migrate --rollback restores the CRDs from aim-apiserver's objects)", len(st.backup.Objects), m.o.BackupDir)
	if st.engineNamespace != "" {
		m.logf("WARNING: %s", engineNamespaceWarning(st.engineNamespace))
	}
	return nil
}

// abort ends a run that stops before the switch: the CRDs are writable again.
func (m *migrator) abort(ctx context.Context, cause error) error {
	if err := m.c.unfreeze(ctx); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// read lists every object of the kinds aim-apiserver serves, as the CRDs serve them. Finalizers an earlier
// run took off are put back: they belong to the copies.
func (m *migrator) read(ctx context.Context, st *state) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	for _, k := range m.store.kinds {
		if !hasCRD(st.crds, k.Resource) {
			continue
		}
		items, err := m.c.list(ctx, k.GVR())
		if err != nil {
			return nil, err
		}
		for i := range items {
			items[i].SetAPIVersion(k.GVR().GroupVersion().String())
			items[i].SetKind(k.Kind)
		}
		out = append(out, items...)
	}
	if st.backup != nil {
		for i := range out {
			if f := st.backup.StrippedFinalizers[out[i].GetUID()]; len(f) > 0 {
				out[i].SetFinalizers(union(out[i].GetFinalizers(), f))
			}
		}
	}
	m.logf("read %d objects from the CRDs", len(out))
	return out, nil
}

// invalidObject is an object aim-apiserver would reject.
type invalidObject struct {
	Kind, Name string
	Errors     field.ErrorList
}

// check decodes and validates every object as aim-apiserver would. An object that does not decode cannot
// be stored at all: that is an error, --allow-invalid or not.
func (m *migrator) check(ctx context.Context, objects []unstructured.Unstructured) ([]invalidObject, error) {
	var invalid []invalidObject
	for i := range objects {
		u := &objects[i]
		k, err := m.store.kindOf(u)
		if err != nil {
			return nil, err
		}
		obj, formatErrs, err := m.store.decode(k, u)
		if err != nil {
			return nil, err
		}
		errs := formatErrs
		if obj != nil {
			errs = k.validate(obj)
		}
		if cur, found, err := k.get(ctx, u.GetNamespace(), u.GetName()); err != nil {
			return nil, err
		} else if found && uidOf(cur) != u.GetUID() {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "uid"), u.GetUID(),
				fmt.Sprintf("aim-apiserver already stores this object with uid %s: remove it there first", uidOf(cur))))
		}
		if len(errs) > 0 {
			invalid = append(invalid, invalidObject{Kind: k.Kind, Name: describe(u), Errors: errs})
		}
	}
	return invalid, nil
}

// plan prints what the migration does.
func (m *migrator) plan(objects []unstructured.Unstructured, invalid []invalidObject) {
	counts := map[string]int{}
	for _, u := range objects {
		counts[u.GetKind()]++
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	m.logf("plan: copy %d objects into aim-apiserver's etcd with their UIDs:", len(objects))
	for _, k := range kinds {
		m.logf("  %-26s %d", k, counts[k])
	}
	for _, inv := range invalid {
		for _, e := range inv.Errors {
			m.logf("  INVALID %s %s: %s", inv.Kind, inv.Name, e.Error())
		}
	}
	m.logf("then switch APIService %s to %s, end the watches on the CRDs and delete the CRDs", apiServiceName, m.o.Service)
}

// copy writes the objects into aim-apiserver's storage. Before the switch the CRDs are the truth: a copy that
// differs is brought up to date, and copies an earlier run made of objects deleted since are removed. After
// the switch aim-apiserver is the truth: only missing copies are created.
func (m *migrator) copy(ctx context.Context, objects []unstructured.Unstructured, beforeSwitch bool, gone map[types.UID]unstructured.Unstructured) error {
	start := m.now()
	var created, updated, same int
	for i := range objects {
		u := &objects[i]
		k, err := m.store.kindOf(u)
		if err != nil {
			return err
		}
		src, _, err := m.store.decode(k, u)
		if err != nil {
			return err
		}
		if src == nil {
			return fmt.Errorf("%s %s does not decode: it cannot be stored", k.Kind, describe(u))
		}
		cur, found, err := k.get(ctx, u.GetNamespace(), u.GetName())
		if err != nil {
			return err
		}
		switch {
		case !found:
			if err := k.create(ctx, src); err != nil {
				return err
			}
			created++
		case uidOf(cur) != u.GetUID():
			return fmt.Errorf("aim-apiserver already stores %s %s with uid %s, the CRDs with uid %s: remove aim-apiserver's object "+
				"(kubectl delete through aim-apiserver, or etcdctl) and run again", k.Kind, describe(u), uidOf(cur), u.GetUID())
		case beforeSwitch && !sameContent(src, cur):
			if err := k.replaceFromSource(ctx, src, u.GetUID()); err != nil {
				return fmt.Errorf("updating %s %s in aim-apiserver's etcd: %w", k.Kind, describe(u), err)
			}
			updated++
		default:
			same++
		}
		if n := created + updated + same; n%200 == 0 {
			m.logf("  copied %d of %d", n, len(objects))
		}
	}
	removed := 0
	for uid, u := range gone {
		k, err := m.store.kindOf(&u)
		if err != nil {
			return err
		}
		ok, err := k.remove(ctx, u.GetNamespace(), u.GetName(), uid)
		if err != nil {
			return err
		}
		if ok {
			removed++
		}
	}
	m.logf("aim-apiserver's etcd: %d objects created, %d updated, %d already equal, %d removed (deleted from the CRDs since the last run), in %s",
		created, updated, same, removed, m.now().Sub(start).Round(time.Millisecond))
	return nil
}

// previousUIDs are the objects an earlier run copied that the CRDs no longer have.
func previousUIDs(prev *Backup, now []unstructured.Unstructured) map[types.UID]unstructured.Unstructured {
	if prev == nil {
		return nil
	}
	current := map[types.UID]bool{}
	for _, u := range now {
		current[u.GetUID()] = true
	}
	gone := map[types.UID]unstructured.Unstructured{}
	for _, u := range prev.Objects {
		if !current[u.GetUID()] {
			gone[u.GetUID()] = u
		}
	}
	return gone
}

// stripFinalizers takes the finalizers off the CRD objects, recording them in the backup first: a CRD whose
// objects keep finalizers never finishes deleting, and after the switch nothing can reach them.
func (m *migrator) stripFinalizers(ctx context.Context, b *Backup) error {
	var todo []*unstructured.Unstructured
	for i := range b.Objects {
		if u := &b.Objects[i]; len(u.GetFinalizers()) > 0 {
			b.StrippedFinalizers[u.GetUID()] = union(b.StrippedFinalizers[u.GetUID()], u.GetFinalizers())
			todo = append(todo, u)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if _, err := writeBackup(m.o.BackupDir, b); err != nil {
		return err
	}
	for _, u := range todo {
		k, err := m.store.kindOf(u)
		if err != nil {
			return err
		}
		patch := fmt.Appendf(nil, `{"metadata":{"finalizers":null,"uid":%q}}`, u.GetUID())
		_, err = m.c.dynamic.Resource(k.GVR()).Namespace(u.GetNamespace()).Patch(ctx, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("taking the finalizers off %s %s: %w", u.GetKind(), describe(u), err)
		}
	}
	m.logf("took the finalizers off %d CRD objects (their copies keep them)", len(todo))
	return nil
}

// verifyServed lists every kind through kube-apiserver, now from aim-apiserver, and checks that each object is
// served with its UID: a list per kind, not a request per object, because the freeze lasts until this passes.
func (m *migrator) verifyServed(ctx context.Context, objects []unstructured.Unstructured) error {
	byKind := map[*kindStore][]*unstructured.Unstructured{}
	for i := range objects {
		k, err := m.store.kindOf(&objects[i])
		if err != nil {
			return err
		}
		byKind[k] = append(byKind[k], &objects[i])
	}
	var wrong []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, m.o.Timeout, true, func(ctx context.Context) (bool, error) {
		wrong = wrong[:0]
		for k, want := range byKind {
			served, err := m.c.list(ctx, k.GVR())
			if err != nil {
				wrong = append(wrong, err.Error())
				continue
			}
			uids := make(map[string]types.UID, len(served))
			for _, s := range served {
				uids[s.GetNamespace()+"/"+s.GetName()] = s.GetUID()
			}
			for _, u := range want {
				// Missing can only mean the copy is missing here (404 would be final for the garbage collector).
				switch got, ok := uids[u.GetNamespace()+"/"+u.GetName()]; {
				case !ok:
					wrong = append(wrong, fmt.Sprintf("%s %s: not served", k.Kind, describe(u)))
				case got != u.GetUID():
					wrong = append(wrong, fmt.Sprintf("%s %s: served with uid %s, want %s", k.Kind, describe(u), got, u.GetUID()))
				}
			}
		}
		return len(wrong) == 0, nil
	})
	if err != nil && len(wrong) > 0 {
		return fmt.Errorf("aim-apiserver does not serve every object as the CRDs did; the CRDs stay:\n  %s", strings.Join(wrong, "\n  "))
	}
	if err != nil {
		return err
	}
	m.logf("all %d objects are served by aim-apiserver with their UIDs", len(objects))
	return nil
}

// endCRDWatches changes every CRD's spec, which makes kube-apiserver tear down the CRD's storage and end the
// watches still open on it (it waits for short requests only). Their clients reconnect to aim-apiserver. Only
// then may the CRDs go: deleting them deletes their objects, and a watcher of the old storage would see that.
func (m *migrator) endCRDWatches(ctx context.Context, crds []unstructured.Unstructured) error {
	for _, crd := range crds {
		err := m.untilCRDGone(ctx, crd.GetName(), func(ctx context.Context, cur *unstructured.Unstructured) (bool, error) {
			versions, _, _ := unstructured.NestedSlice(cur.Object, "spec", "versions")
			for i := range versions {
				v := versions[i].(map[string]any)
				v["deprecated"] = true
				v["deprecationWarning"] = fmt.Sprintf("aim.eai.amd.com is served by aim-apiserver; this CRD is being removed (%s)", m.now().UTC().Format(time.RFC3339))
			}
			if err := unstructured.SetNestedSlice(cur.Object, versions, "spec", "versions"); err != nil {
				return false, err
			}
			_, err := m.c.dynamic.Resource(crdGVR).Update(ctx, cur, metav1.UpdateOptions{})
			return err == nil, nil
		})
		if err != nil {
			return fmt.Errorf("changing CRD %s to end the watches on its storage: %w", crd.GetName(), err)
		}
	}
	// kube-apiserver waits a second for in-flight requests before it tears the storage down.
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(5 * time.Second):
	}
	m.logf("ended the watches on the CRDs' storage")
	return nil
}

// untilCRDGone reads the CRD name every second until step is done with it or the CRD is gone; a failed read is
// tried again, until --timeout.
func (m *migrator) untilCRDGone(ctx context.Context, name string, step func(context.Context, *unstructured.Unstructured) (bool, error)) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, m.o.Timeout, true, func(ctx context.Context) (bool, error) {
		cur, err := m.c.dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case err != nil:
			return false, nil
		}
		return step(ctx, cur)
	})
}

// deleteCRDs deletes the CRDs and waits until they are gone.
func (m *migrator) deleteCRDs(ctx context.Context, crds []unstructured.Unstructured) error {
	for _, crd := range crds {
		err := m.c.dynamic.Resource(crdGVR).Delete(ctx, crd.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptrUID(crd.GetUID())}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting CRD %s: %w", crd.GetName(), err)
		}
	}
	for _, crd := range crds {
		var why string
		var nudged time.Time
		err := m.untilCRDGone(ctx, crd.GetName(), func(ctx context.Context, cur *unstructured.Unstructured) (bool, error) {
			why = condition(cur, "Terminating")
			// kube-apiserver's CRD finalizer cannot list the objects while the CRD's storage starts again after
			// endCRDWatches ("storage is (re)initializing"), and retries with a backoff that grows past a minute.
			// A change of the CRD's metadata queues it at once.
			if strings.Contains(why, "InstanceDeletionFailed") && time.Since(nudged) > 5*time.Second {
				nudged = time.Now()
				patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, annotationRetry, nudged.UTC().Format(time.RFC3339))
				if _, err := m.c.dynamic.Resource(crdGVR).Patch(ctx, crd.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
					m.logf("  CRD %s: %s; asked kube-apiserver to try again", crd.GetName(), why)
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s is still there after %s (%s): %w", crd.GetName(), m.o.Timeout, why, err)
		}
	}
	m.logf("deleted %d CRDs", len(crds))
	return nil
}

// sameContent says whether the stored object already carries the source's metadata and spec.
func sameContent(src, cur runtime.Object) bool {
	a, _ := meta.Accessor(src)
	b, _ := meta.Accessor(cur)
	return apiequality.Semantic.DeepEqual(a.GetLabels(), b.GetLabels()) &&
		apiequality.Semantic.DeepEqual(a.GetAnnotations(), b.GetAnnotations()) &&
		apiequality.Semantic.DeepEqual(a.GetFinalizers(), b.GetFinalizers()) &&
		apiequality.Semantic.DeepEqual(a.GetOwnerReferences(), b.GetOwnerReferences()) &&
		apiequality.Semantic.DeepEqual(a.GetDeletionTimestamp(), b.GetDeletionTimestamp()) &&
		a.GetGeneration() == b.GetGeneration() &&
		apiequality.Semantic.DeepEqual(specOf(src), specOf(cur))
}

func specOf(obj runtime.Object) any {
	return reflect.ValueOf(obj).Elem().FieldByName("Spec").Interface()
}

func uidOf(obj runtime.Object) types.UID {
	m, _ := meta.Accessor(obj)
	return m.GetUID()
}

func ptrUID(uid types.UID) *types.UID { return &uid }

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func hasCRD(crds []unstructured.Unstructured, plural string) bool {
	return slices.ContainsFunc(crds, func(crd unstructured.Unstructured) bool {
		p, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		return p == plural
	})
}

// condition is "reason: message" of a condition of an object's status.
func condition(obj *unstructured.Unstructured, typ string) string {
	if c := findCondition(obj, typ); c != nil {
		return fmt.Sprintf("%s %v: %v", typ, c["reason"], c["message"])
	}
	return "no " + typ + " condition"
}

// findCondition is the status condition of type typ of an object read through the dynamic client, or nil.
func findCondition(obj *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conds {
		if c, ok := raw.(map[string]any); ok && c["type"] == typ {
			return c
		}
	}
	return nil
}

func describeAPIService(as *unstructured.Unstructured) string {
	ns, _, _ := unstructured.NestedString(as.Object, "spec", "service", "namespace")
	name, _, _ := unstructured.NestedString(as.Object, "spec", "service", "name")
	target := "local (served by kube-apiserver: the CRDs)"
	if name != "" {
		target = "Service " + ns + "/" + name
	}
	if l := as.GetLabels()[automanagedLabel]; l != "" {
		target += ", auto-registered for the CRDs (" + automanagedLabel + "=" + l + ")"
	}
	return target
}
