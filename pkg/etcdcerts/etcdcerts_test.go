package etcdcerts

import (
	"context"
	"crypto/x509"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
)

const ns = "aim-system"

func testOptions() Options {
	o := DefaultOptions(ns)
	o.Server.Hosts = []string{"aim-etcd-client.aim-system.svc", "*.aim-etcd.aim-system.svc", "localhost", "127.0.0.1"}
	o.Peer.Hosts = []string{"*.aim-etcd.aim-system.svc"}
	o.Validity = 30 * 24 * time.Hour
	return o
}

// world is a fake cluster with a clock and a count of the writes to Secrets.
type world struct {
	kube   *fake.Clientset
	e      *Ensurer
	now    time.Time
	writes []string
}

func newWorld(t *testing.T, opts Options, objs ...runtime.Object) *world {
	t.Helper()
	w := &world{kube: fake.NewClientset(objs...), now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	w.kube.PrependReactor("*", "secrets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() == "create" || a.GetVerb() == "update" {
			obj := a.(clienttesting.CreateAction).GetObject().(*corev1.Secret)
			w.writes = append(w.writes, a.GetVerb()+" "+obj.Name)
		}
		return false, nil, nil
	})
	w.e = New(opts, w.kube.CoreV1())
	w.e.now = func() time.Time { return w.now }
	return w
}

func (w *world) secret(t *testing.T, name string) *corev1.Secret {
	t.Helper()
	s, err := w.kube.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (w *world) ensure(t *testing.T) map[string][]byte {
	t.Helper()
	client, err := w.e.Ensure(context.Background())
	if err != nil {
		t.Fatalf("Ensure: %v", err)
	}
	return client
}

// verify checks that the leaf's certificate chains to the CA Secret's for its usages and names its hosts.
func verify(t *testing.T, w *world, l Leaf) *x509.Certificate {
	t.Helper()
	ca := certgen.ParseBundle(w.secret(t, w.e.opts.CASecret).Data[KeyCert])[0]
	s := w.secret(t, l.Secret)
	if s.Type != corev1.SecretTypeTLS {
		t.Errorf("%s: type %s", l.Secret, s.Type)
	}
	if got := certgen.ParseBundle(s.Data[KeyCA]); len(got) != 1 || !got[0].Equal(ca) {
		t.Errorf("%s: ca.crt is not the CA", l.Secret)
	}
	cert := certgen.ParseBundle(s.Data[KeyCert])[0]
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	for _, u := range l.Usages {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{u}, CurrentTime: w.now}); err != nil {
			t.Errorf("%s: does not verify for usage %v: %v", l.Secret, u, err)
		}
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(l.Hosts)), slices.Sorted(slices.Values(hostsOf(cert)))); diff != "" {
		t.Errorf("%s: hosts (-want +got):\n%s", l.Secret, diff)
	}
	return cert
}

func TestEnsureCreatesOnceAndThenWritesNothing(t *testing.T) {
	opts := testOptions()
	w := newWorld(t, opts)
	client := w.ensure(t)
	want := []string{"create aim-etcd-ca", "create aim-etcd-server-tls", "create aim-etcd-peer-tls", "create aim-apiserver-etcd-client"}
	if diff := cmp.Diff(want, w.writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	for _, l := range []Leaf{opts.Server, opts.Peer, opts.Client} {
		verify(t, w, l)
	}
	if cmp.Diff(client, w.secret(t, opts.Client.Secret).Data) != "" {
		t.Error("Ensure did not return the client Secret's data")
	}
	ca := certgen.ParseBundle(w.secret(t, opts.CASecret).Data[KeyCert])[0]
	if !ca.IsCA || ca.NotAfter.Sub(w.now) < 2*opts.Validity-time.Minute {
		t.Errorf("CA: IsCA %v, valid until %s", ca.IsCA, ca.NotAfter)
	}

	w.writes = nil
	w.now = w.now.Add(opts.Validity / 2)
	w.ensure(t)
	if len(w.writes) != 0 {
		t.Errorf("a second Ensure wrote %v", w.writes)
	}
}

// A new member name (more replicas) or a certificate due for renewal is re-signed by the same CA; the others stay.
func TestEnsureResignsWithTheSameCA(t *testing.T) {
	opts := testOptions()
	w := newWorld(t, opts)
	w.ensure(t)
	caBefore := w.secret(t, opts.CASecret).Data[KeyCert]
	serverBefore := w.secret(t, opts.Server.Secret).Data[KeyCert]

	opts.Peer.Hosts = append(opts.Peer.Hosts, "*.aim-etcd.aim-system.svc.cluster.local")
	w.e.opts = opts
	w.writes = nil
	w.ensure(t)
	if diff := cmp.Diff([]string{"update aim-etcd-peer-tls"}, w.writes); diff != "" {
		t.Errorf("writes after a peer host was added (-want +got):\n%s", diff)
	}
	verify(t, w, opts.Peer)

	w.now = w.now.Add(opts.Validity*2/3 + time.Hour)
	w.writes = nil
	w.ensure(t)
	if len(w.writes) != 3 {
		t.Errorf("writes when every certificate is due: %v", w.writes)
	}
	for _, l := range []Leaf{opts.Server, opts.Peer, opts.Client} {
		if cert := verify(t, w, l); cert.NotAfter.Before(w.now.Add(opts.Validity - time.Hour)) {
			t.Errorf("%s: renewed certificate ends %s", l.Secret, cert.NotAfter)
		}
	}
	if string(w.secret(t, opts.CASecret).Data[KeyCert]) != string(caBefore) {
		t.Error("the CA changed")
	}
	if string(w.secret(t, opts.Server.Secret).Data[KeyCert]) == string(serverBefore) {
		t.Error("the server certificate was not renewed")
	}
}

// Two replicas start at once: the one that loses the race to create the CA signs with the winner's.
func TestEnsureConvergesWhenRacing(t *testing.T) {
	opts := testOptions()
	other := newWorld(t, opts)
	other.ensure(t)
	winnersCA := other.secret(t, opts.CASecret)

	w := newWorld(t, opts)
	raced := false
	w.kube.PrependReactor("create", "secrets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		s := a.(clienttesting.CreateAction).GetObject().(*corev1.Secret)
		if s.Name != opts.CASecret || raced {
			return false, nil, nil
		}
		raced = true
		if err := w.kube.Tracker().Add(winnersCA.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewAlreadyExists(corev1.Resource("secrets"), s.Name)
	})
	w.ensure(t)
	if !raced {
		t.Fatal("the race was not played")
	}
	if string(w.secret(t, opts.CASecret).Data[KeyCert]) != string(winnersCA.Data[KeyCert]) {
		t.Error("the CA is not the winner's")
	}
	for _, l := range []Leaf{opts.Server, opts.Peer, opts.Client} {
		verify(t, w, l)
	}
}

// The other replica writes the CA, then the server and client Secrets, while this one reads: a run that read the
// CA before the leaves saw leaves without their CA and refused the "inconsistent" set (CI, once). The leaves are
// read first, so what this run sees is a consistent snapshot of the other's progress.
func TestEnsureReadsWhileTheOtherWrites(t *testing.T) {
	opts := testOptions()
	other := newWorld(t, opts)
	other.ensure(t)
	w := newWorld(t, opts)
	played := false
	w.kube.PrependReactor("get", "secrets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if played || a.(clienttesting.GetAction).GetName() != opts.Server.Secret {
			return false, nil, nil
		}
		// The other replica, just before this one reads the server Secret: CA first, then two of the three leaves.
		played = true
		for _, name := range []string{opts.CASecret, opts.Server.Secret, opts.Client.Secret} {
			if err := w.kube.Tracker().Add(other.secret(t, name).DeepCopy()); err != nil {
				t.Fatal(err)
			}
		}
		return false, nil, nil
	})
	w.ensure(t)
	if !played {
		t.Fatal("the race was not played")
	}
	for _, l := range []Leaf{opts.Server, opts.Peer, opts.Client} {
		verify(t, w, l)
	}
}

// Secrets of an earlier chart (etcd.certs.mode=generate) or made by hand have no CA Secret: used as they are when
// they belong together, never replaced piecemeal.
func TestEnsureWithoutCASecret(t *testing.T) {
	opts := testOptions()
	made := newWorld(t, opts)
	made.ensure(t)
	leaves := func(names ...string) []runtime.Object {
		var out []runtime.Object
		for _, n := range names {
			s := made.secret(t, n)
			s.ResourceVersion = ""
			out = append(out, s)
		}
		return out
	}

	w := newWorld(t, opts, leaves(opts.Server.Secret, opts.Peer.Secret, opts.Client.Secret)...)
	client := w.ensure(t)
	if len(w.writes) != 0 {
		t.Errorf("adopting wrote %v", w.writes)
	}
	if string(client[KeyCert]) != string(made.secret(t, opts.Client.Secret).Data[KeyCert]) {
		t.Error("the adopted client certificate was not returned")
	}

	w = newWorld(t, opts, leaves(opts.Server.Secret, opts.Client.Secret)...)
	_, err := w.e.Ensure(context.Background())
	if !errors.Is(err, ErrInconsistent) || !strings.Contains(err.Error(), "aim-etcd-peer-tls") {
		t.Errorf("a partial set without a CA: %v", err)
	}
	if len(w.writes) != 0 {
		t.Errorf("a partial set without a CA wrote %v", w.writes)
	}
}

// A certificate of another CA next to the CA Secret is not replaced: members using it would be cut off.
func TestEnsureRefusesACertificateOfAnotherCA(t *testing.T) {
	opts := testOptions()
	first := newWorld(t, opts)
	first.ensure(t)
	second := newWorld(t, opts)
	second.ensure(t)

	foreign := second.secret(t, opts.Peer.Secret)
	foreign.ResourceVersion = ""
	ca := first.secret(t, opts.CASecret)
	ca.ResourceVersion = ""
	w := newWorld(t, opts, ca, foreign)
	_, err := w.e.Ensure(context.Background())
	if !errors.Is(err, ErrInconsistent) || !strings.Contains(err.Error(), opts.Peer.Secret) {
		t.Errorf("a peer certificate of another CA: %v", err)
	}
	if slices.Contains(w.writes, "update "+opts.Peer.Secret) {
		t.Error("the foreign peer certificate was replaced")
	}
}
