//go:build e2e

package e2e

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
)

// egress plays public services (Docker Hub, ghcr.io, GitHub's API) for the harness's aim-apiserver, which reaches
// them through the HTTPS_PROXY hack/local-up.sh gives it and trusts the harness's egress CA (SSL_CERT_DIR): the
// test listens on that proxy's address and answers each CONNECT with a TLS server that presents, for the host the
// client names, a certificate of that CA, as a TLS-inspecting corporate proxy does. The shipped binary runs
// unchanged, with its public URLs; only the network around it is played.
type egress struct {
	hosts map[string]http.Handler

	mu   sync.Mutex
	seen []egressRequest
}

// egressRequest is one request a played host answered.
type egressRequest struct {
	Host, Path, Query, Authorization string
}

// startEgress serves hosts (by name, without port) until the test ends.
func startEgress(t *testing.T, hosts map[string]http.Handler) *egress {
	t.Helper()
	h := harness(t)
	proxy, err := url.Parse(h.getenv("HTTPS_PROXY"))
	if err != nil || proxy.Host == "" {
		t.Fatalf("the harness's aim-apiserver has no HTTPS_PROXY (%q): bring the harness up with this tree's hack/local-up.sh", h.getenv("HTTPS_PROXY"))
	}
	caPEM, err := os.ReadFile(filepath.Join(localDir, "pki", "egress-ca.crt"))
	must(t, err)
	keyPEM, err := os.ReadFile(filepath.Join(localDir, "pki", "egress-ca.key"))
	must(t, err)
	ca, err := certgen.ParseIssuer(caPEM, keyPEM)
	must(t, err)
	e := &egress{hosts: hosts}

	var certs sync.Map // host -> *tls.Certificate
	tlsListener, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if c, ok := certs.Load(hello.ServerName); ok {
			return c.(*tls.Certificate), nil
		}
		c, err := leafFor(hello.ServerName, ca)
		if err != nil {
			return nil, err
		}
		certs.Store(hello.ServerName, c)
		return c, nil
	}}
	go func() { _ = srv.Serve(tls.NewListener(tlsListener, cfg)) }()
	t.Cleanup(func() { _ = srv.Close() })

	proxyListener, err := net.Listen("tcp", proxy.Host)
	must(t, err)
	t.Cleanup(func() { _ = proxyListener.Close() })
	go func() {
		for {
			conn, err := proxyListener.Accept()
			if err != nil {
				return
			}
			go tunnel(conn, tlsListener.Addr().String())
		}
	}()
	return e
}

// tunnel answers one proxy connection: a CONNECT is joined to the TLS server; anything else is refused, as the
// harness proxies only HTTPS.
func tunnel(client net.Conn, to string) {
	defer func() { _ = client.Close() }()
	br := bufio.NewReader(client)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		_, _ = io.WriteString(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	server, err := net.Dial("tcp", to)
	if err != nil {
		_, _ = io.WriteString(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer func() { _ = server.Close() }()
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, br); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
}

// leafFor is a serving certificate for host, signed by the egress CA.
func leafFor(host string, ca *certgen.Issuer) (*tls.Certificate, error) {
	certPEM, keyPEM, err := certgen.Issue(certgen.Request{CommonName: host, Hosts: []string{host},
		Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, NotBefore: time.Now(), NotAfter: time.Now().Add(24 * time.Hour)}, ca)
	if err != nil {
		return nil, err
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	return &c, err
}

// ServeHTTP hands a request to its host's handler and records it.
func (e *egress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	e.mu.Lock()
	e.seen = append(e.seen, egressRequest{Host: host, Path: r.URL.Path, Query: r.URL.RawQuery, Authorization: scheme})
	e.mu.Unlock()
	if h, ok := e.hosts[host]; ok {
		h.ServeHTTP(w, r)
		return
	}
	http.Error(w, "no such host is played here: "+host, http.StatusBadGateway)
}

// requests are the requests a host answered so far.
func (e *egress) requests(host string) []egressRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []egressRequest
	for _, r := range e.seen {
		if r.Host == host {
			out = append(out, r)
		}
	}
	return out
}
