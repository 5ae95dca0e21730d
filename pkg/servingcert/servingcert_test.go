package servingcert

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
)

const apiServiceName = "v1alpha1.aim.eai.amd.com"

var secretName = types.NamespacedName{Namespace: "aim-system", Name: "aim-apiserver-serving-cert"}

type counter struct{ n int }

func (c *counter) Enqueue() { c.n++ }

type world struct {
	kube     *fake.Clientset
	dyn      *dynamicfake.FakeDynamicClient
	p        *Provider
	listener *counter
}

func newWorld(t *testing.T, hosts ...string) *world {
	t.Helper()
	if len(hosts) == 0 {
		hosts = []string{"aim-apiserver.aim-system.svc"}
	}
	apiService := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": apiServiceName},
		"spec": map[string]any{"group": "aim.eai.amd.com", "version": "v1alpha1",
			"service": map[string]any{"name": "aim-apiserver", "namespace": "aim-system", "port": int64(443)}},
	}}
	w := &world{kube: fake.NewClientset(), listener: &counter{}}
	w.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{APIServiceGVR: "APIServiceList"}, apiService)
	w.p = New(Options{Secret: secretName, APIService: apiServiceName, Hosts: hosts, Validity: 90 * 24 * time.Hour}, w.kube, w.dyn)
	w.p.AddListener(w.listener)
	return w
}

func (w *world) secret(t *testing.T) *corev1.Secret {
	t.Helper()
	s, err := w.kube.CoreV1().Secrets(secretName.Namespace).Get(context.Background(), secretName.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (w *world) caBundle(t *testing.T) []byte {
	t.Helper()
	svc, err := w.dyn.Resource(APIServiceGVR).Get(context.Background(), apiServiceName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b64, _, _ := unstructured.NestedString(svc.Object, "spec", "caBundle")
	out, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (w *world) writes() int {
	n := 0
	for _, a := range append(w.kube.Actions(), w.dyn.Actions()...) {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			n++
		}
	}
	return n
}

// served returns the served certificate after checking that it verifies against the APIService's caBundle for
// every host, as kube-apiserver's aggregator verifies it.
func (w *world) served(t *testing.T, hosts ...string) *x509.Certificate {
	t.Helper()
	cert, key := w.p.CurrentCertKeyContent()
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		t.Fatalf("served pair: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(w.caBundle(t)) {
		t.Fatal("the APIService's caBundle holds no certificate")
	}
	for _, h := range hosts {
		if _, err := pair.Leaf.Verify(x509.VerifyOptions{DNSName: h, Roots: roots, CurrentTime: w.p.now()}); err != nil {
			t.Errorf("served certificate does not verify for %s with the caBundle: %v", h, err)
		}
	}
	return pair.Leaf
}

func TestCreatesTheSecretInjectsAndServes(t *testing.T) {
	w := newWorld(t)
	if err := w.p.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := w.secret(t)
	if s.Type != corev1.SecretTypeTLS || len(s.Data[KeyCert]) == 0 || len(s.Data[KeyKey]) == 0 {
		t.Fatalf("secret %v", s)
	}
	if string(w.caBundle(t)) != string(s.Data[KeyBundle]) {
		t.Error("caBundle is not the Secret's ca.crt")
	}
	leaf := w.served(t, "aim-apiserver.aim-system.svc")
	if got := leaf.NotAfter.Sub(leaf.NotBefore); got < 90*24*time.Hour {
		t.Errorf("validity %s", got)
	}
	if w.listener.n != 1 {
		t.Errorf("listeners told %d times, want 1", w.listener.n)
	}

	// Unchanged: no write, no notification.
	before := w.writes()
	if err := w.p.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w.writes() != before || w.listener.n != 1 {
		t.Errorf("a sync of an unchanged Secret wrote %d times and notified %d times", w.writes()-before, w.listener.n)
	}
}

// TestServesAnotherReplicasSecret: a replica that finds a valid Secret serves it and writes nothing to it.
func TestServesAnotherReplicasSecret(t *testing.T) {
	first := newWorld(t)
	if err := first.p.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := New(first.p.opts, first.kube, first.dyn)
	first.kube.ClearActions()
	if err := second.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, a := range first.kube.Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("second replica sent %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
	c1, _ := first.p.CurrentCertKeyContent()
	c2, _ := second.CurrentCertKeyContent()
	if string(c1) != string(c2) {
		t.Error("replicas serve different certificates")
	}
}

// TestDeletedSecretIsReplaced: a new certificate, and the one served until then stays in the bundle, so that
// replicas which have not reloaded yet stay trusted.
func TestDeletedSecretIsReplaced(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	old := w.served(t)
	if err := w.kube.CoreV1().Secrets(secretName.Namespace).Delete(ctx, secretName.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	now := w.served(t, "aim-apiserver.aim-system.svc")
	if now.Equal(old) {
		t.Fatal("the same certificate is served after the Secret was deleted")
	}
	bundle := certgen.ParseBundle(w.caBundle(t))
	if len(bundle) != 2 || !certgen.Contains(bundle, old) || !certgen.Contains(bundle, now) {
		t.Errorf("caBundle holds %d certificates; want the new and the previous one", len(bundle))
	}
	if w.listener.n != 2 {
		t.Errorf("listeners told %d times, want 2", w.listener.n)
	}
}

// TestRenewsBeforeExpiry: with a third of the validity left the certificate is renewed; certificates that
// expired leave the bundle.
func TestRenewsBeforeExpiry(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	start := time.Now()
	w.p.now = func() time.Time { return start }
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	first := w.served(t)

	w.p.now = func() time.Time { return start.Add(59 * 24 * time.Hour) }
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !w.served(t).Equal(first) {
		t.Fatal("renewed with more than a third of the validity left")
	}
	w.p.now = func() time.Time { return start.Add(61 * 24 * time.Hour) }
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	second := w.served(t, "aim-apiserver.aim-system.svc")
	if second.Equal(first) {
		t.Fatal("not renewed with less than a third of the validity left")
	}
	if b := certgen.ParseBundle(w.caBundle(t)); len(b) != 2 || !certgen.Contains(b, first) {
		t.Errorf("bundle after renewal holds %d certificates, want the new and the old", len(b))
	}
	// Past the first one's expiry, the next renewal drops it.
	w.p.now = func() time.Time { return start.Add(122 * 24 * time.Hour) }
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if b := certgen.ParseBundle(w.caBundle(t)); len(b) != 2 || certgen.Contains(b, first) {
		t.Errorf("bundle still holds the expired certificate (%d certificates)", len(b))
	}
}

func TestNewHostsMakeANewCertificate(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	w.p.opts.Hosts = []string{"aim-apiserver.aim-system.svc", "aim-apiserver.aim-system.svc.cluster.local", "127.0.0.1"}
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	w.served(t, w.p.opts.Hosts...)
}

// TestServesOnlyWhatTheAPIServiceTrusts: if the caBundle cannot be set, the new certificate is not served.
func TestServesOnlyWhatTheAPIServiceTrusts(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	before, _ := w.p.CurrentCertKeyContent()
	w.dyn.PrependReactor("patch", "apiservices", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("forbidden")
	})
	if err := w.kube.CoreV1().Secrets(secretName.Namespace).Delete(ctx, secretName.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.p.Sync(ctx); err == nil {
		t.Fatal("no error although the caBundle could not be set")
	}
	if after, _ := w.p.CurrentCertKeyContent(); string(after) != string(before) {
		t.Error("a certificate the APIService does not trust yet is served")
	}
}

func TestNoAPIServiceYet(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if err := w.dyn.Resource(APIServiceGVR).Delete(ctx, apiServiceName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.p.Sync(ctx); err != nil {
		t.Fatalf("sync without the APIService: %v", err)
	}
	if cert, _ := w.p.CurrentCertKeyContent(); len(cert) == 0 {
		t.Error("nothing served")
	}
}

// TestBrokenSecretIsReplaced: a Secret whose key does not match its certificate is rewritten, not served.
func TestBrokenSecretIsReplaced(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	if _, err := w.kube.CoreV1().Secrets(secretName.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secretName.Name, Namespace: secretName.Namespace},
		Data:       map[string][]byte{KeyCert: []byte("garbage"), KeyKey: []byte("garbage")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	w.served(t, "aim-apiserver.aim-system.svc")
}

// TestLeavesALocalAPIServiceAlone: while aim-engine's CRDs serve the group, the APIService has no Service and
// belongs to kube-aggregator; nothing is written to it.
func TestLeavesALocalAPIServiceAlone(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	svc, err := w.dyn.Resource(APIServiceGVR).Get(ctx, apiServiceName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unstructured.RemoveNestedField(svc.Object, "spec", "service")
	if _, err := w.dyn.Resource(APIServiceGVR).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.dyn.ClearActions()
	if err := w.p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range w.dyn.Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("%s of the APIService of aim-engine's CRDs", a.GetVerb())
		}
	}
	if cert, _ := w.p.CurrentCertKeyContent(); len(cert) == 0 {
		t.Error("nothing served")
	}
}
