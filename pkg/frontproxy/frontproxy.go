// Package frontproxy authenticates the requests kube-apiserver's aggregator proxies to aim-apiserver (the
// front proxy: a client certificate of the request-header CA, and the user in X-Remote-* headers) without
// verifying the same certificate again on every request.
//
// k8s.io/apiserver's request-header authenticator verifies the proxy's certificate chain on each request. The
// aggregator sends every request of every user over a few long-lived connections with one certificate, so the
// same signature check ran per request (6% of aim-apiserver's CPU in a profile of creates through the
// aggregator). Here a successful verification is remembered for that exact chain, against that exact CA
// bundle, for at most a minute and never past the certificates' expiry. Everything else about the
// authentication is k8s.io/apiserver's: the same headers, allowed names, and the delegating authenticator
// behind it for every request that is not the front proxy's.
package frontproxy

import (
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/request/union"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
)

const (
	// rememberFor bounds how long a verified chain is trusted without another check.
	rememberFor = time.Minute
	// maxRemembered bounds the memory: a front proxy has one certificate, a rotation briefly two.
	maxRemembered = 16
)

// Authenticator tries the front proxy first (cfg, as k8s.io/apiserver's delegating authentication built it),
// with verified chains remembered, then next (that delegating authenticator, unchanged) for every request the
// front proxy's check does not authenticate.
func Authenticator(cfg *authenticatorfactory.RequestHeaderConfig, next authenticator.Request) authenticator.Request {
	return frontProxyFirst(newVerifier(cfg, time.Now), next)
}

// frontProxyFirst adds system:authenticated to the front proxy's users, as the delegating authenticator does.
func frontProxyFirst(v *verifier, next authenticator.Request) authenticator.Request {
	return union.New(group.NewAuthenticatedGroupAdder(v), next)
}

// verifier checks that a request comes from the front proxy, then reads the user from its headers.
type verifier struct {
	verifyOptions func() (x509.VerifyOptions, bool)
	allowedNames  headerrequest.StringSliceProvider
	userHeaders   headerrequest.StringSliceProvider
	// header reads the user from the headers. checked is k8s.io/apiserver's verifier in front of it: the
	// chain, the allowed names, then header.
	header, checked authenticator.Request
	now             func() time.Time

	mu       sync.Mutex
	verified map[[sha256.Size]byte]verifiedChain
}

// verifiedChain is a chain that verified against roots, trusted until until.
type verifiedChain struct {
	roots *x509.CertPool
	until time.Time
}

var _ authenticator.Request = &verifier{}

func newVerifier(cfg *authenticatorfactory.RequestHeaderConfig, now func() time.Time) *verifier {
	header := headerrequest.NewDynamic(cfg.UsernameHeaders, cfg.UIDHeaders, cfg.GroupHeaders, cfg.ExtraHeaderPrefixes)
	return &verifier{
		verifyOptions: cfg.CAContentProvider.VerifyOptions,
		allowedNames:  cfg.AllowedClientNames,
		userHeaders:   cfg.UsernameHeaders,
		header:        header,
		checked:       x509request.NewDynamicCAVerifier(cfg.CAContentProvider.VerifyOptions, header, cfg.AllowedClientNames),
		now:           now,
		verified:      map[[sha256.Size]byte]verifiedChain{},
	}
}

// AuthenticateRequest answers as k8s.io/apiserver's verifier does, and is that verifier unless the chain
// verified recently against the same CA bundle: then only the allowed names and the headers are read.
func (v *verifier) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 || !hasAny(req.Header, v.userHeaders.Value()) {
		// Not the front proxy's request (it always names a user): the delegating authenticator decides.
		return nil, false, nil
	}
	opts, ok := v.verifyOptions()
	if !ok {
		return nil, false, nil
	}
	certs := req.TLS.PeerCertificates
	key := chainKey(certs)
	if !v.remembered(key, opts.Roots) {
		// The roots were read before the verifier reads them: after a rotation in between, the remembered
		// pool is the older one, and the next request verifies again.
		resp, ok, err := v.checked.AuthenticateRequest(req)
		if ok && err == nil {
			v.remember(key, opts.Roots, certs)
		}
		return resp, ok, err
	}
	// The allowed names can change without the CA bundle.
	if err := allowedName(certs[0].Subject, v.allowedNames.Value()); err != nil {
		return nil, false, err
	}
	return v.header.AuthenticateRequest(req)
}

func (v *verifier) remembered(key [sha256.Size]byte, roots *x509.CertPool) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.verified[key]
	return ok && c.roots == roots && v.now().Before(c.until)
}

func (v *verifier) remember(key [sha256.Size]byte, roots *x509.CertPool, certs []*x509.Certificate) {
	until := v.now().Add(rememberFor)
	for _, c := range certs {
		if c.NotAfter.Before(until) {
			until = c.NotAfter
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.verified) >= maxRemembered {
		clear(v.verified)
	}
	v.verified[key] = verifiedChain{roots: roots, until: until}
}

// chainKey identifies the exact certificates a client sent.
func chainKey(certs []*x509.Certificate) [sha256.Size]byte {
	h := sha256.New()
	for _, c := range certs {
		h.Write(c.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// allowedName is the rule of k8s.io/apiserver's verifier (which does not export it): any common name when the
// list is empty, else one of the list.
func allowedName(subject pkix.Name, allowed []string) error {
	if len(allowed) == 0 || slices.Contains(allowed, subject.CommonName) {
		return nil
	}
	return fmt.Errorf("x509: subject with cn=%s is not in the allowed list", subject.CommonName)
}

func hasAny(h http.Header, names []string) bool {
	for _, n := range names {
		if h.Get(n) != "" {
			return true
		}
	}
	return false
}
