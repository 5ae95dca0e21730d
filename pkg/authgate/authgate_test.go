package authgate

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes/scheme"
)

// bundle is a CA provider whose content can be loaded later, as the ConfigMap-based ones are.
type bundle struct {
	dynamiccertificates.Notifier
	content []byte
}

func (b *bundle) Name() string                   { return "test" }
func (b *bundle) CurrentCABundleContent() []byte { return b.content }
func (b *bundle) VerifyOptions() (x509.VerifyOptions, bool) {
	return x509.VerifyOptions{}, len(b.content) > 0
}

func TestLoaded(t *testing.T) {
	rh, client := &bundle{}, &bundle{}
	all := func() []byte { return append(append([]byte{}, client.content...), rh.content...) }
	union := &unionLike{all: all}
	b := Bundles{RequestHeader: rh, All: union, WantClientCA: true}
	if b.Loaded() {
		t.Fatal("loaded with nothing loaded")
	}
	rh.content = []byte("RH")
	if b.Loaded() {
		t.Fatal("loaded without the client CA")
	}
	client.content = []byte("CLIENT\n")
	if !b.Loaded() {
		t.Fatal("not loaded with both bundles")
	}
	if !(Bundles{RequestHeader: rh, All: union}).Loaded() {
		t.Fatal("a cluster without a client CA must not wait for one")
	}
	if !(Bundles{}).Loaded() {
		t.Fatal("nothing to wait for (local mode) must be loaded")
	}
}

type unionLike struct {
	dynamiccertificates.Notifier
	all func() []byte
}

func (u *unionLike) Name() string                   { return "union" }
func (u *unionLike) CurrentCABundleContent() []byte { return u.all() }
func (u *unionLike) VerifyOptions() (x509.VerifyOptions, bool) {
	return x509.VerifyOptions{}, len(u.all()) > 0
}

func TestGateAnswers503UntilLoaded(t *testing.T) {
	rh := &bundle{}
	g := New(Bundles{RequestHeader: rh})
	served := 0
	h := g.WithGate(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }),
		serializer.NewCodecFactory(scheme.Scheme).WithoutConversion())
	get := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}
	w := get("/apis/aim.eai.amd.com/v1alpha1/aimservices")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || served != 0 {
		t.Fatalf("before loading: %d, Retry-After %q, served %d", w.Code, w.Header().Get("Retry-After"), served)
	}
	if get("/readyz").Code != http.StatusOK || get("/livez/ping").Code != http.StatusOK || served != 2 {
		t.Fatalf("health endpoints must pass the gate (served %d)", served)
	}
	if g.ReadyzCheck().Check(nil) == nil {
		t.Error("readyz check passes before loading")
	}
	rh.content = []byte("RH")
	if w := get("/apis/aim.eai.amd.com/v1alpha1/aimservices"); w.Code != http.StatusOK || served != 3 {
		t.Fatalf("after loading: %d", w.Code)
	}
	// A later rotation that empties a bundle for a moment does not close the gate again.
	rh.content = nil
	if w := get("/apis"); w.Code != http.StatusOK || g.ReadyzCheck().Check(nil) != nil {
		t.Fatalf("gate closed again: %d", w.Code)
	}
}
