package migrate

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// aim-engine is installed with Helm, and its chart can hold AIM objects (an AIMClusterModelSource, an
// AIMClusterRuntimeConfig). After the switch those objects live in aim-apiserver, and `helm uninstall` of the old
// release would still delete them, and with a model source every AIMClusterModel it created. Helm keeps a resource
// on uninstall when the release's own record of it carries helm.sh/resource-policy: keep (the live object's
// annotation counts on upgrade only), so the migration adds the annotation to both: to the records of the
// releases (Secrets of Helm's default storage driver) and to the objects it copies. The chart's user roles
// (engineroles.go) are kept the same way, in the records.
const (
	helmKeepAnnotation = "helm.sh/resource-policy"
	helmKeep           = "keep"
	// helmOwnerLabel marks the Secrets in which Helm stores its releases.
	helmOwnerLabel = "owner=helm"
)

// helmRelease is one stored revision of a release that holds AIM objects or aim-engine's user roles.
type helmRelease struct {
	secret  *corev1.Secret
	name    string
	version int
	// release is the decoded record; only its manifest is changed.
	release map[string]any
	// objects are the objects of the manifest to keep, as kind/namespace/name.
	objects []string
}

// helmReleases finds the stored releases whose manifests hold objects of the AIM group or aim-engine's user
// roles; namespaced says which AIM kinds live in namespaces (a manifest may leave the namespace to the
// release's).
func (c *cluster) helmReleases(ctx context.Context, namespaced func(kind string) bool) ([]*helmRelease, error) {
	list, err := c.kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{LabelSelector: helmOwnerLabel})
	if err != nil {
		return nil, fmt.Errorf("listing Helm's release Secrets: %w", err)
	}
	var out []*helmRelease
	for i := range list.Items {
		s := &list.Items[i]
		rel, err := decodeHelmRelease(s.Data["release"])
		if err != nil {
			// Not ours to judge: a record this code cannot read is left as it is, and said so.
			return nil, fmt.Errorf("reading Helm release Secret %s/%s: %w", s.Namespace, s.Name, err)
		}
		manifest, _ := rel["manifest"].(string)
		objects := heldObjectsOf(manifest, s.Namespace, rel, namespaced)
		if len(objects) == 0 {
			continue
		}
		name, _ := rel["name"].(string)
		version, _ := rel["version"].(float64)
		out = append(out, &helmRelease{secret: s, name: name, version: int(version), release: rel, objects: objects})
	}
	return out, nil
}

// keepHeldObjects marks the objects of the release's manifest to keep with helm.sh/resource-policy: keep and
// stores the record; it reports whether anything changed.
func (c *cluster) keepHeldObjects(ctx context.Context, r *helmRelease) (bool, error) {
	manifest, _ := r.release["manifest"].(string)
	kept, changed, err := keepInManifest(manifest)
	if err != nil || !changed {
		return false, err
	}
	r.release["manifest"] = kept
	data, err := encodeHelmRelease(r.release)
	if err != nil {
		return false, err
	}
	s := r.secret.DeepCopy()
	s.Data["release"] = data
	if _, err := c.kube.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		return false, fmt.Errorf("updating Helm release Secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	return true, nil
}

// manifestDocs splits a release manifest as Helm does: documents separated by lines "---".
func manifestDocs(manifest string) []string {
	return strings.Split(manifest, "\n---")
}

// heldObjectsOf lists the objects of a manifest to keep as kind/namespace/name (the release's namespace for
// namespaced AIM objects without one).
func heldObjectsOf(manifest, releaseNamespace string, rel map[string]any, namespaced func(kind string) bool) []string {
	if ns, ok := rel["namespace"].(string); ok && ns != "" {
		releaseNamespace = ns
	}
	var out []string
	for _, doc := range manifestDocs(manifest) {
		u, ok := heldDoc(doc)
		if !ok {
			continue
		}
		ns := u.GetNamespace()
		if ns == "" && u.GroupVersionKind().Group == aim.GroupName && namespaced(u.GetKind()) {
			ns = releaseNamespace
		}
		out = append(out, u.GetKind()+"/"+ns+"/"+u.GetName())
	}
	return out
}

// heldDoc parses a manifest document that the migration keeps: an object of the AIM group, or one of
// aim-engine's user roles.
func heldDoc(doc string) (*unstructured.Unstructured, bool) {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
		return nil, false
	}
	u := &unstructured.Unstructured{Object: obj}
	if u.GroupVersionKind().Group != aim.GroupName && !isEngineUserRole(u.GetAPIVersion(), u.GetKind(), u.GetName()) {
		return nil, false
	}
	return u, true
}

// keepInManifest adds the keep annotation to every document to keep of a manifest that lacks it. Other documents,
// and the comment lines (# Source: ...) Helm names documents by, stay as they are.
func keepInManifest(manifest string) (string, bool, error) {
	docs := manifestDocs(manifest)
	changed := false
	for i, doc := range docs {
		u, ok := heldDoc(doc)
		if !ok || u.GetAnnotations()[helmKeepAnnotation] == helmKeep {
			continue
		}
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[helmKeepAnnotation] = helmKeep
		u.SetAnnotations(annotations)
		body, err := yaml.Marshal(u.Object)
		if err != nil {
			return "", false, err
		}
		var comments []string
		for _, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") || (strings.TrimSpace(line) == "" && len(comments) == 0) {
				comments = append(comments, line)
				continue
			}
			break
		}
		docs[i] = strings.Join(append(comments, strings.TrimSuffix(string(body), "\n")), "\n") + "\n"
		changed = true
	}
	return strings.Join(docs, "\n---"), changed, nil
}

// decodeHelmRelease reads Helm's storage format: base64 of (usually gzipped) JSON.
func decodeHelmRelease(data []byte) (map[string]any, error) {
	raw, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		r, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		if raw, err = io.ReadAll(r); err != nil {
			return nil, err
		}
	}
	var rel map[string]any
	if err := json.Unmarshal(raw, &rel); err != nil {
		return nil, err
	}
	return rel, nil
}

// encodeHelmRelease writes Helm's storage format, gzipped as Helm writes it.
func encodeHelmRelease(rel map[string]any) ([]byte, error) {
	raw, err := json.Marshal(rel)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return []byte(base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

// protectHelmOwned marks the objects Helm releases hold so that neither `helm uninstall` nor `helm upgrade` of
// those releases deletes them after the switch: in the release records, and on the objects about to be copied.
func (m *migrator) protectHelmOwned(ctx context.Context, objects []unstructured.Unstructured) error {
	releases, err := m.c.helmReleases(ctx, func(kind string) bool {
		for _, k := range m.store.kinds {
			if k.Kind == kind {
				return k.NamespaceScoped()
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	held := map[string]string{}
	for _, r := range releases {
		for _, o := range r.objects {
			held[o] = fmt.Sprintf("%s/%s", r.secret.Namespace, r.name)
		}
	}
	for i := range objects {
		u := &objects[i]
		release, ok := held[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()]
		if !ok {
			continue
		}
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		if annotations[helmKeepAnnotation] != helmKeep {
			annotations[helmKeepAnnotation] = helmKeep
			u.SetAnnotations(annotations)
			m.logf("  %s is held by Helm release %s: annotated %s=%s", describe(u), release, helmKeepAnnotation, helmKeep)
		}
	}
	if m.o.DryRun {
		for _, r := range releases {
			m.logf("  Helm release %s/%s (revision %d) holds %v: --dry-run, its record is left as it is", r.secret.Namespace, r.name, r.version, r.objects)
		}
		return nil
	}
	for _, r := range releases {
		changed, err := m.c.keepHeldObjects(ctx, r)
		if err != nil {
			return err
		}
		if changed {
			m.logf("  Helm release %s/%s (revision %d): marked %v %s=%s in its record, so that helm uninstall and "+
				"helm upgrade of it keep them", r.secret.Namespace, r.name, r.version, r.objects, helmKeepAnnotation, helmKeep)
		}
	}
	return nil
}
