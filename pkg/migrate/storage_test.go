package migrate

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/client-go/util/cert"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	"github.com/aim-apiserver/aim-apiserver/pkg/embeddedetcd"
	"github.com/aim-apiserver/aim-apiserver/pkg/localmode"
)

// startStore runs a real etcd and opens aim-apiserver's storage on it.
func startStore(t *testing.T) *aimStore {
	t.Helper()
	s, _ := startStoreWith(t, "")
	return s
}

// startStoreWith opens the storage with an encryption configuration (the server's --encryption-provider-config;
// empty: none), and returns a client of the etcd too.
func startStoreWith(t *testing.T, encryptionConfig string) (*aimStore, *clientv3.Client) {
	t.Helper()
	dir := t.TempDir()
	pki, err := localmode.EnsureEtcdPKI(filepath.Join(dir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	etcd, err := embeddedetcd.Start(ctx, embeddedetcd.Options{Dir: filepath.Join(dir, "etcd"), CAFile: pki.CAFile,
		CertFile: pki.ServerCertFile, KeyFile: pki.ServerKeyFile, UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(etcd.Close)
	o := NewOptions(&bytes.Buffer{})
	tr := &o.Etcd.StorageConfig.Transport
	tr.ServerList, tr.TrustedCAFile, tr.CertFile, tr.KeyFile = []string{etcd.ClientURL()}, pki.CAFile, pki.ClientCertFile, pki.ClientKeyFile
	if encryptionConfig != "" {
		o.Etcd.EncryptionProviderConfigFilepath = filepath.Join(dir, "encryption.yaml")
		if err := os.WriteFile(o.Etcd.EncryptionProviderConfigFilepath, []byte(encryptionConfig), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := newAIMStore(ctx, o.Etcd, o.StorageCompression)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	pair, err := tls.LoadX509KeyPair(pki.ClientCertFile, pki.ClientKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	roots, err := cert.NewPool(pki.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd.ClientURL()}, DialTimeout: 10 * time.Second,
		TLS: &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return s, c
}

// TestCopyWritesEncryptedAsTheServer: with the server's encryption configuration the copy is stored encrypted
// (secretbox, the configuration's first provider) and reads back; without it the value would be written in
// the clear, which a server that lists no identity provider could not read.
func TestCopyWritesEncryptedAsTheServer(t *testing.T) {
	const config = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["*.aim.eai.amd.com"]
    providers:
      - secretbox:
          keys:
            - name: key1
              secret: MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=
      - identity: {}
`
	for name, tc := range map[string]struct {
		config string
		prefix string
	}{
		"encrypted": {config, "k8s:enc:secretbox:v1:key1:"},
		// zstd's magic number: compressed, not encrypted.
		"plain": {"", "\x28\xb5\x2f\xfd"},
	} {
		t.Run(name, func(t *testing.T) {
			s, c := startStoreWith(t, tc.config)
			m := &migrator{o: &Options{Out: &bytes.Buffer{}}, store: s, now: time.Now}
			src := crdObject(t, crdModel)
			if err := m.copy(context.Background(), []unstructured.Unstructured{src}, true, nil); err != nil {
				t.Fatal(err)
			}
			resp, err := c.Get(context.Background(), "/registry/aim.eai.amd.com/aim.eai.amd.com/aimmodels/team/qwen")
			if err != nil || len(resp.Kvs) != 1 {
				t.Fatalf("stored value: %v %v", resp, err)
			}
			stored := resp.Kvs[0].Value
			if !bytes.HasPrefix(stored, []byte(tc.prefix)) {
				t.Errorf("stored value starts %q, want %q", stored[:min(len(stored), 26)], tc.prefix)
			}
			if bytes.Contains(stored, []byte("registry.example/aim/qwen")) {
				t.Error("the image reference is readable in etcd")
			}
			k, _ := s.kindOf(&src)
			got, err := k.Store.Get(genericapirequest.WithNamespace(context.Background(), "team"), "qwen", &metav1.GetOptions{})
			if err != nil || got.(*aim.AIMModel).UID != src.GetUID() {
				t.Errorf("read back: %v %v", got, err)
			}
		})
	}
}

// crdObject is an object as the CRDs serve it.
func crdObject(t *testing.T, doc string) unstructured.Unstructured {
	t.Helper()
	var u unstructured.Unstructured
	if err := json.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const crdModel = `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMModel",
 "metadata":{"name":"qwen","namespace":"team","uid":"6f1c2d3e-0000-4000-8000-000000000001","resourceVersion":"4711",
  "generation":7,"creationTimestamp":"2026-01-02T03:04:05Z","labels":{"team":"a"},"annotations":{"note":"kept"},
  "finalizers":["aim.eai.amd.com/cleanup"],
  "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"6f1c2d3e-0000-4000-8000-0000000000ff"}]},
 "spec":{"image":"registry.example/aim/qwen:1.0"},
 "status":{"status":"Ready","observedGeneration":7,"conditions":[{"type":"Ready","status":"True","reason":"AllComponentsReady",
  "message":"ready","lastTransitionTime":"2026-01-02T03:05:00Z"}]}}`

// TestCopyKeepsWhatTheCRDsHad: a copied object reads back through the registry (as the API serves it) with
// the CRD object's UID, creation time, generation, labels, annotations, finalizers, owners, spec and status.
func TestCopyKeepsWhatTheCRDsHad(t *testing.T) {
	s := startStore(t)
	out := &bytes.Buffer{}
	m := &migrator{o: &Options{Out: out}, store: s, now: time.Now}
	src := crdObject(t, crdModel)
	if err := m.copy(context.Background(), []unstructured.Unstructured{src}, true, nil); err != nil {
		t.Fatal(err)
	}
	k, _ := s.kindOf(&src)
	got, err := k.Store.Get(genericapirequest.WithNamespace(context.Background(), "team"), "qwen", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mdl := got.(*aim.AIMModel)
	want := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if mdl.UID != src.GetUID() || !mdl.CreationTimestamp.Time.Equal(want) || mdl.Generation != 7 ||
		mdl.Labels["team"] != "a" || mdl.Annotations["note"] != "kept" || len(mdl.Finalizers) != 1 ||
		len(mdl.OwnerReferences) != 1 || mdl.OwnerReferences[0].Name != "owner" ||
		mdl.Spec.Image != "registry.example/aim/qwen:1.0" || mdl.Status.Status != aim.AIMStatusReady ||
		mdl.Status.ObservedGeneration != 7 || len(mdl.Status.Conditions) != 1 {
		t.Errorf("copied object differs: %+v", mdl)
	}

	// Run again with a changed label: the copy follows the CRDs, the status the controller wrote stays.
	key, err := k.key(context.Background(), "team", "qwen")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Store.Storage.GuaranteedUpdate(context.Background(), key, k.Store.New(), false, nil,
		storage.SimpleUpdate(func(obj runtime.Object) (runtime.Object, error) {
			obj.(*aim.AIMModel).Status.Status = aim.AIMStatusDegraded
			return obj, nil
		}), false, nil); err != nil {
		t.Fatal(err)
	}
	src.SetLabels(map[string]string{"team": "b"})
	if err := m.copy(context.Background(), []unstructured.Unstructured{src}, true, nil); err != nil {
		t.Fatal(err)
	}
	got, _ = k.Store.Get(genericapirequest.WithNamespace(context.Background(), "team"), "qwen", &metav1.GetOptions{})
	if mdl := got.(*aim.AIMModel); mdl.Labels["team"] != "b" || mdl.Status.Status != aim.AIMStatusDegraded || mdl.UID != src.GetUID() {
		t.Errorf("second run: labels %v status %s uid %s", mdl.Labels, mdl.Status.Status, mdl.UID)
	}
	if !strings.Contains(out.String(), "0 objects created, 1 updated") {
		t.Errorf("progress: %s", out)
	}

	// An object of the same name with another UID is a conflict, never overwritten.
	other := src.DeepCopy()
	other.SetUID("6f1c2d3e-0000-4000-8000-000000000002")
	err = m.copy(context.Background(), []unstructured.Unstructured{*other}, true, nil)
	if err == nil || !strings.Contains(err.Error(), string(src.GetUID())) || !strings.Contains(err.Error(), string(other.GetUID())) {
		t.Errorf("conflict: %v", err)
	}

	// A copy of an object deleted from the CRDs since the last run goes; one of another UID stays.
	if err := m.copy(context.Background(), nil, true, map[types.UID]unstructured.Unstructured{other.GetUID(): *other}); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := k.get(context.Background(), "team", "qwen"); !found {
		t.Error("removing another UID's copy removed this one")
	}
	if err := m.copy(context.Background(), nil, true, map[types.UID]unstructured.Unstructured{src.GetUID(): src}); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := k.get(context.Background(), "team", "qwen"); found {
		t.Error("the copy of a deleted object stayed")
	}
}

// TestCheckNamesTheField: what aim-apiserver would reject is reported with its field, a value that does not
// decode too.
func TestCheckNamesTheField(t *testing.T) {
	s := startStore(t)
	m := &migrator{o: &Options{Out: &bytes.Buffer{}}, store: s, now: time.Now}
	objects := []unstructured.Unstructured{
		crdObject(t, crdModel),
		crdObject(t, `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMService","metadata":{"name":"chat","namespace":"team","uid":"u1"},
			"spec":{"model":{"name":"qwen"},"replicas":-1}}`),
		crdObject(t, `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMModel","metadata":{"name":"sized","namespace":"team","uid":"u2"},
			"spec":{"image":"x:1","modelSources":[{"modelId":"org/m","sourceUri":"hf://org/m","size":"lots"}]}}`),
	}
	invalid, err := m.check(context.Background(), objects)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, inv := range invalid {
		got[inv.Kind+" "+inv.Name] = inv.Errors.ToAggregate().Error()
	}
	if len(got) != 2 || !strings.Contains(got["AIMService team/chat"], "spec.replicas") ||
		!strings.Contains(got["AIMModel team/sized"], "spec.modelSources[0].size") {
		t.Errorf("invalid objects: %v", got)
	}
}

// TestRemoveOrphans: objects of a namespace that no longer exists leave aim-apiserver's etcd (only reported with
// --dry-run); objects of existing namespaces and cluster-scoped ones stay.
func TestRemoveOrphans(t *testing.T) {
	s := startStore(t)
	out := &bytes.Buffer{}
	m := &migrator{o: &Options{Out: out}, store: s, now: time.Now}
	kept := crdObject(t, crdModel)
	orphan := crdObject(t, strings.ReplaceAll(crdModel, `"namespace":"team"`, `"namespace":"gone"`))
	orphan.SetUID("6f1c2d3e-0000-4000-8000-000000000003")
	cluster := crdObject(t, `{"apiVersion":"aim.eai.amd.com/v1alpha1","kind":"AIMClusterRuntimeConfig","metadata":{"name":"c","uid":"u-c"},"spec":{}}`)
	ctx := context.Background()
	if err := m.copy(ctx, []unstructured.Unstructured{kept, orphan, cluster}, true, nil); err != nil {
		t.Fatal(err)
	}
	exists := func(_ context.Context, ns string) (bool, error) { return ns == "team", nil }
	k, _ := s.kindOf(&kept)
	present := func() []string {
		var names []string
		for _, u := range []unstructured.Unstructured{kept, orphan, cluster} {
			kk, _ := s.kindOf(&u)
			if _, found, _ := kk.get(ctx, u.GetNamespace(), u.GetName()); found {
				names = append(names, u.GetNamespace()+"/"+u.GetName())
			}
		}
		return names
	}

	if err := m.removeOrphans(ctx, exists, true); err != nil {
		t.Fatal(err)
	}
	if got := present(); len(got) != 3 || !strings.Contains(out.String(), "AIMModel gone/qwen: its namespace no longer exists; would be removed") {
		t.Errorf("dry run: present %v, output:\n%s", got, out)
	}
	if err := m.removeOrphans(ctx, exists, false); err != nil {
		t.Fatal(err)
	}
	if got := present(); strings.Join(got, " ") != "team/qwen /c" {
		t.Errorf("after removing orphans: %v", got)
	}
	if _, found, _ := k.get(ctx, "gone", "qwen"); found || !strings.Contains(out.String(), "removed 1 objects of deleted namespaces") {
		t.Errorf("the orphan stayed, or was not reported:\n%s", out)
	}
}
