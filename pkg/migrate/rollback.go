package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// rollback gives the group back to aim-engine's CRDs with the same UIDs.
//
// Before the switch it undoes the copy: the CRD objects get their finalizers back, the copies leave
// aim-apiserver's etcd (nothing has read them through the API), the freeze ends.
//
// After the switch aim-apiserver holds the truth, including what changed since the migration: the CRDs are
// created again from the backup, every object aim-apiserver serves now is written into the CRDs' storage in
// kube-apiserver's etcd with its UID (the API would give it a new one), and only then does the APIService go
// back to the CRD auto-registration. aim-apiserver's objects stay in its etcd: a watch still open on
// aim-apiserver must not see them deleted.
func (m *migrator) rollback(ctx context.Context) error {
	st, err := m.observe(ctx)
	if err != nil {
		return err
	}
	if st.backup == nil {
		return fmt.Errorf("nothing to roll back: no backup in %s", m.o.BackupDir)
	}
	if err := m.confirm(fmt.Sprintf("about to roll back to the CRDs from the backup of %s", st.backup.Taken.Format(time.RFC3339))); err != nil {
		return err
	}
	if !st.switched {
		return m.rollbackBeforeSwitch(ctx, st)
	}
	return m.rollbackAfterSwitch(ctx, st)
}

func (m *migrator) rollbackBeforeSwitch(ctx context.Context, st *state) error {
	if len(st.crds) == 0 {
		return errors.New("the APIService does not point at aim-apiserver and no CRD of aim.eai.amd.com exists: nothing to roll back to")
	}
	m.logf("the switch did not happen: giving the CRD objects their finalizers back and removing the copies")
	restored := 0
	for uid, finalizers := range st.backup.StrippedFinalizers {
		u := findUID(st.backup.Objects, uid)
		if u == nil {
			continue
		}
		k, err := m.store.kindOf(u)
		if err != nil {
			return err
		}
		cur, err := m.c.dynamic.Resource(k.GVR()).Namespace(u.GetNamespace()).Get(ctx, u.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) || err == nil && cur.GetUID() != uid {
			continue
		}
		if err != nil {
			return err
		}
		cur.SetFinalizers(union(cur.GetFinalizers(), finalizers))
		if _, err := m.c.dynamic.Resource(k.GVR()).Namespace(u.GetNamespace()).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("giving %s %s its finalizers back: %w", k.Kind, describe(u), err)
		}
		restored++
	}
	removed := 0
	for i := range st.backup.Objects {
		u := &st.backup.Objects[i]
		k, err := m.store.kindOf(u)
		if err != nil {
			return err
		}
		ok, err := k.remove(ctx, u.GetNamespace(), u.GetName(), u.GetUID())
		if err != nil {
			return err
		}
		if ok {
			removed++
		}
	}
	st.backup.StrippedFinalizers = nil
	if _, err := writeBackup(m.o.BackupDir, st.backup); err != nil {
		return err
	}
	if err := m.c.unfreeze(ctx); err != nil {
		return err
	}
	m.logf("rolled back: %d objects got their finalizers back, %d copies removed from aim-apiserver's etcd, writes to the CRDs allowed again",
		restored, removed)
	return nil
}

func (m *migrator) rollbackAfterSwitch(ctx context.Context, st *state) error {
	var resources []string
	for _, k := range m.store.kinds {
		resources = append(resources, k.Resource)
	}
	crdStore, err := newCRDStore(m.o.KubeEtcd, resources)
	if err != nil {
		return err
	}
	defer crdStore.close()

	// What aim-apiserver serves now, written down before anything changes.
	var current []unstructured.Unstructured
	for _, k := range m.store.kinds {
		items, err := m.c.list(ctx, k.GVR())
		if err != nil {
			return fmt.Errorf("reading aim-apiserver's objects: %w", err)
		}
		for i := range items {
			items[i].SetAPIVersion(k.GVR().GroupVersion().String())
			items[i].SetKind(k.Kind)
		}
		current = append(current, items...)
	}
	saved := &Backup{Taken: m.now(), APIService: st.apiService, CRDs: st.backup.CRDs, Objects: current}
	path, err := writeBackup(m.o.BackupDir+"/rollback", saved)
	if err != nil {
		return err
	}
	m.logf("read %d objects from aim-apiserver (saved to %s)", len(current), path)

	// An object of a namespace that no longer exists could never be reached (nor deleted, its finalizers
	// never removed) through the CRDs: it would keep its CRD from ever being deleted again.
	namespaces, err := m.c.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing namespaces: %w", err)
	}
	exists := map[string]bool{"": true}
	for _, ns := range namespaces.Items {
		exists[ns.Name] = true
	}
	kept := current[:0]
	for _, u := range current {
		if !exists[u.GetNamespace()] {
			m.logf("  skipping %s %s: namespace %s does not exist", u.GetKind(), describe(&u), u.GetNamespace())
			continue
		}
		kept = append(kept, u)
	}
	current = kept

	if err := m.recreateCRDs(ctx, st.backup.CRDs); err != nil {
		return err
	}
	for i := range current {
		u := &current[i]
		k, err := m.store.kindOf(u)
		if err != nil {
			return err
		}
		if err := crdStore.put(ctx, k.Resource, u); err != nil {
			return fmt.Errorf("writing %s %s into the CRDs' storage: %w", k.Kind, describe(u), err)
		}
	}
	m.logf("wrote %d objects into the CRDs' storage with their UIDs", len(current))

	m.logf("returning APIService %s to the CRDs", apiServiceName)
	if err := m.c.returnAPIService(ctx); err != nil {
		return err
	}
	if err := m.waitLocal(ctx); err != nil {
		return err
	}
	if err := m.waitCRDOpenAPI(ctx); err != nil {
		return err
	}
	if err := m.verifyServed(ctx, current); err != nil {
		return err
	}
	if err := m.c.unfreeze(ctx); err != nil {
		return err
	}
	if err := m.stopAPIServer(ctx); err != nil {
		return err
	}
	m.logf("rolled back: the CRDs serve aim.eai.amd.com with every object's UID. Scale aim-engine up again; " +
		"aim-apiserver's etcd still holds the objects (uninstall aim-apiserver once aim-engine runs).")
	return nil
}

// stopAPIServer scales aim-apiserver's Deployment (named like its Service, as the chart and artifacts/deploy name
// it) to zero: its controller would otherwise keep reconciling the copies in its etcd, writing the same
// InferenceServices, routes and caches as aim-engine.
func (m *migrator) stopAPIServer(ctx context.Context) error {
	ns, name, _ := splitRef(m.o.Service)
	was, found, err := m.c.stopDeployment(ctx, ns, name)
	switch {
	case err != nil:
		return fmt.Errorf("stopping aim-apiserver's controller (scale Deployment %s to zero yourself): %w", m.o.Service, err)
	case !found:
		m.logf("no Deployment %s: stop aim-apiserver's controller yourself, or it keeps reconciling the copies in its etcd", m.o.Service)
	case was > 0:
		m.logf("scaled Deployment %s from %d replicas to 0: its controller would keep reconciling the copies in its etcd "+
			"beside aim-engine (a GitOps tool that manages it must be told, or it scales it up again)", m.o.Service, was)
	}
	return nil
}

// recreateCRDs creates the CRDs of the backup that are missing and waits until they are Established.
func (m *migrator) recreateCRDs(ctx context.Context, crds []unstructured.Unstructured) error {
	for _, crd := range crds {
		fresh := &unstructured.Unstructured{Object: map[string]any{"apiVersion": crd.GetAPIVersion(), "kind": crd.GetKind(), "spec": crd.Object["spec"]}}
		fresh.SetName(crd.GetName())
		fresh.SetLabels(crd.GetLabels())
		fresh.SetAnnotations(crd.GetAnnotations())
		err := wait.PollUntilContextTimeout(ctx, time.Second, m.o.Timeout, true, func(ctx context.Context) (bool, error) {
			cur, err := m.c.dynamic.Resource(crdGVR).Get(ctx, crd.GetName(), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				_, err = m.c.dynamic.Resource(crdGVR).Create(ctx, fresh, metav1.CreateOptions{})
				return false, ignoreAlreadyExists(err)
			case err != nil:
				return false, nil
			case cur.GetDeletionTimestamp() != nil:
				return false, nil // an interrupted migration is still deleting it
			}
			c := findCondition(cur, "Established")
			return c != nil && c["status"] == "True", nil
		})
		if err != nil {
			return fmt.Errorf("CRD %s is not Established after %s: %w", crd.GetName(), m.o.Timeout, err)
		}
	}
	m.logf("%d CRDs are Established", len(crds))
	return nil
}

// waitLocal waits until the auto-registration owns the APIService again and it is Available.
func (m *migrator) waitLocal(ctx context.Context) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, m.o.Timeout, true, func(ctx context.Context) (bool, error) {
		as, err := m.c.apiService(ctx)
		if err != nil || as == nil {
			return false, nil
		}
		last = describeAPIService(as)
		svc, _, _ := unstructured.NestedMap(as.Object, "spec", "service")
		return svc == nil && strings.Contains(last, automanagedLabel), nil
	})
	if err != nil {
		return fmt.Errorf("APIService %s did not return to the CRDs (%s): %w", apiServiceName, last, err)
	}
	return m.c.waitAvailable(ctx, m.o.Timeout)
}

// waitCRDOpenAPI waits for kube-apiserver to serve its OpenAPI documents from the CRDs again. kube-aggregator
// keeps the document it fetched from aim-apiserver after the APIService became local again (its OpenAPI
// controller does not re-queue an updated APIService, see ensureOpenAPI) until its next periodic fetch, up to a
// minute, and beside the CRDs' document the v2 merge fails: kubectl apply of any object fails validation
// meanwhile. When that lasts longer than openAPIWait, the APIService is deleted, which drops the copy;
// kube-apiserver's auto-registration creates it again for the CRDs at once. The CRDs' objects stay served
// throughout: a local APIService only routes discovery, and kube-apiserver's CRD handler serves the paths
// without it (6,691 reads of a custom resource across such a deletion, none failed).
func (m *migrator) waitCRDOpenAPI(ctx context.Context) error {
	start := m.now()
	served := func(ctx context.Context) (bool, error) { return m.c.crdOpenAPIServed(ctx), nil }
	if wait.PollUntilContextTimeout(ctx, time.Second, openAPIWait, true, served) != nil {
		as, err := m.c.apiService(ctx)
		if err != nil {
			return err
		}
		if as != nil {
			if err := m.c.deleteAPIService(ctx, as); err != nil {
				return fmt.Errorf("for kube-apiserver to register it again: %w", err)
			}
		}
		m.logf("kube-apiserver still served aim-apiserver's OpenAPI beside the CRDs' after %s (kubectl apply fails "+
			"validation meanwhile): deleted APIService %s, which it registers again for the CRDs", openAPIWait, apiServiceName)
		if err := m.waitLocal(ctx); err != nil {
			return err
		}
		if err := wait.PollUntilContextTimeout(ctx, time.Second, m.o.Timeout, true, served); err != nil {
			return fmt.Errorf("kube-apiserver does not serve the CRDs' OpenAPI documents (kubectl apply fails "+
				"validation until it does; kubectl --validate=false meanwhile): %w", err)
		}
	}
	m.logf("kube-apiserver serves the CRDs' OpenAPI (after %s)", m.now().Sub(start).Round(time.Millisecond))
	return nil
}

func findUID(objects []unstructured.Unstructured, uid types.UID) *unstructured.Unstructured {
	for i := range objects {
		if objects[i].GetUID() == uid {
			return &objects[i]
		}
	}
	return nil
}

func ignoreAlreadyExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
