package frontproxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// ca is a test certificate authority.
type ca struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newCA(t *testing.T, name string) *ca {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &ca{cert: cert, key: key, pool: pool}
}

func (c *ca) client(t *testing.T, cn string, notAfter time.Time) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: notAfter, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &key.PublicKey, c.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert
}

// caProvider is a CA bundle that can change, as the request-header CA of kube-system's ConfigMap does.
type caProvider struct {
	dynamiccertificates.Notifier
	pool *x509.CertPool
}

func (p *caProvider) Name() string                   { return "test" }
func (p *caProvider) CurrentCABundleContent() []byte { return nil }
func (p *caProvider) VerifyOptions() (x509.VerifyOptions, bool) {
	return x509.VerifyOptions{Roots: p.pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, true
}

// fallback stands for the delegating authenticator: it authenticates everyone as "next".
type fallback struct{ calls int }

func (f *fallback) AuthenticateRequest(*http.Request) (*authenticator.Response, bool, error) {
	f.calls++
	return &authenticator.Response{User: &user.DefaultInfo{Name: "next"}}, true, nil
}

type fixture struct {
	provider *caProvider
	next     *fallback
	v        *verifier
	auth     authenticator.Request
	now      time.Time
	checks   int
}

func newFixture(t *testing.T, proxyCA *ca) *fixture {
	f := &fixture{provider: &caProvider{pool: proxyCA.pool}, next: &fallback{}, now: time.Now()}
	cfg := &authenticatorfactory.RequestHeaderConfig{
		UsernameHeaders:     headerrequest.StaticStringSlice{"X-Remote-User"},
		UIDHeaders:          headerrequest.StaticStringSlice{"X-Remote-Uid"},
		GroupHeaders:        headerrequest.StaticStringSlice{"X-Remote-Group"},
		ExtraHeaderPrefixes: headerrequest.StaticStringSlice{"X-Remote-Extra-"},
		CAContentProvider:   f.provider,
		AllowedClientNames:  headerrequest.StaticStringSlice{"front-proxy-client"},
	}
	f.v = newVerifier(cfg, func() time.Time { return f.now })
	checked := f.v.checked
	f.v.checked = authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		f.checks++
		return checked.AuthenticateRequest(r)
	})
	f.auth = frontProxyFirst(f.v, f.next)
	return f
}

func (f *fixture) request(cert *x509.Certificate, headers map[string]string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/apis", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	return r
}

func (f *fixture) user(t *testing.T, r *http.Request) user.Info {
	t.Helper()
	resp, ok, err := f.auth.AuthenticateRequest(r)
	if err != nil || !ok {
		t.Fatalf("not authenticated: %v", err)
	}
	return resp.User
}

var alice = map[string]string{"X-Remote-User": "alice", "X-Remote-Group": "team-a", "X-Remote-Extra-Scope": "x"}

func TestFrontProxyCertificateIsVerifiedOnce(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	f := newFixture(t, proxyCA)
	proxy := proxyCA.client(t, "front-proxy-client", time.Now().Add(time.Hour))
	for range 3 {
		r := f.request(proxy, alice)
		u := f.user(t, r)
		if u.GetName() != "alice" || !slices.Contains(u.GetGroups(), "team-a") || !slices.Contains(u.GetGroups(), user.AllAuthenticated) ||
			!slices.Equal(u.GetExtra()["scope"], []string{"x"}) {
			t.Fatalf("user %+v", u)
		}
		if r.Header.Get("X-Remote-User") != "" {
			t.Error("the identity headers were not cleared")
		}
	}
	if f.checks != 1 || f.next.calls != 0 {
		t.Errorf("%d verifications and %d fallbacks for 3 requests, want 1 and 0", f.checks, f.next.calls)
	}

	// After a minute the chain is verified again.
	f.now = f.now.Add(rememberFor + time.Second)
	f.user(t, f.request(proxy, alice))
	if f.checks != 2 {
		t.Errorf("%d verifications after the minute, want 2", f.checks)
	}
}

func TestACertificateIsNotTrustedPastItsExpiry(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	f := newFixture(t, proxyCA)
	proxy := proxyCA.client(t, "front-proxy-client", time.Now().Add(20*time.Second))
	f.user(t, f.request(proxy, alice))
	f.now = f.now.Add(30 * time.Second) // expired, but inside the minute
	if u := f.user(t, f.request(proxy, alice)); f.checks != 2 {
		t.Errorf("expired certificate served from memory as %s (%d verifications)", u.GetName(), f.checks)
	}
}

func TestANewCABundleVerifiesAgain(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	f := newFixture(t, proxyCA)
	proxy := proxyCA.client(t, "front-proxy-client", time.Now().Add(time.Hour))
	f.user(t, f.request(proxy, alice))

	// The CA is rotated: the old proxy certificate no longer authenticates as the front proxy.
	f.provider.pool = newCA(t, "rotated-ca").pool
	if u := f.user(t, f.request(proxy, alice)); u.GetName() != "next" || f.checks != 2 {
		t.Errorf("after rotation: user %s after %d verifications, want the fallback after 2", u.GetName(), f.checks)
	}
}

func TestOtherClientsAreLeftToTheDelegatingAuthenticator(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	f := newFixture(t, proxyCA)
	for name, r := range map[string]*http.Request{
		"no identity headers":         f.request(proxyCA.client(t, "front-proxy-client", time.Now().Add(time.Hour)), nil),
		"a certificate of another CA": f.request(newCA(t, "client-ca").client(t, "front-proxy-client", time.Now().Add(time.Hour)), alice),
		"a name not allowed":          f.request(proxyCA.client(t, "mallory", time.Now().Add(time.Hour)), alice),
	} {
		before := f.next.calls
		if u := f.user(t, r); u.GetName() != "next" || f.next.calls != before+1 {
			t.Errorf("%s: authenticated as %s", name, u.GetName())
		}
	}
	plain := httptest.NewRequest(http.MethodGet, "/apis", nil)
	plain.Header.Set("X-Remote-User", "alice")
	if u := f.user(t, plain); u.GetName() != "next" {
		t.Errorf("a request without TLS authenticated as %s", u.GetName())
	}
}

// TestAuthenticatorUsesTheFrontProxyFirst checks the exported constructor end to end, with real verification.
func TestAuthenticatorUsesTheFrontProxyFirst(t *testing.T) {
	proxyCA := newCA(t, "front-proxy-ca")
	f := newFixture(t, proxyCA)
	cfg := &authenticatorfactory.RequestHeaderConfig{
		UsernameHeaders: headerrequest.StaticStringSlice{"X-Remote-User"}, UIDHeaders: headerrequest.StaticStringSlice{},
		GroupHeaders: headerrequest.StaticStringSlice{}, ExtraHeaderPrefixes: headerrequest.StaticStringSlice{},
		CAContentProvider: f.provider, AllowedClientNames: headerrequest.StaticStringSlice{},
	}
	auth := Authenticator(cfg, f.next)
	resp, ok, err := auth.AuthenticateRequest(f.request(proxyCA.client(t, "any-proxy", time.Now().Add(time.Hour)), alice))
	if err != nil || !ok || resp.User.GetName() != "alice" || f.next.calls != 0 {
		t.Errorf("front proxy request: %v %v %+v, %d fallbacks", err, ok, resp, f.next.calls)
	}
}
