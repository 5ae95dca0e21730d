package trust

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
	"github.com/aim-apiserver/aim-apiserver/test/imagefs"
)

// privateCA is a CA and a TLS server on loopback whose certificate it signed.
func privateCA(t *testing.T, name string) (caPEM []byte, srv *httptest.Server) {
	t.Helper()
	now := time.Now()
	caPEM, caKey, err := certgen.Issue(certgen.Request{CommonName: name, CA: true, NotBefore: now, NotAfter: now.Add(time.Hour)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := certgen.ParseIssuer(caPEM, caKey)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := certgen.Issue(certgen.Request{CommonName: "registry", Hosts: []string{"127.0.0.1"},
		Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, NotBefore: now, NotAfter: now.Add(time.Hour)}, issuer)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return caPEM, srv
}

func get(tr http.RoundTripper, url string) error {
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// TestTransportFollowsAMountedCA: a CA the kubelet adds to the mounted volume of SSL_CERT_DIR (the chart's
// extraCACertificates) is trusted by the next request after a recheck, without a restart; replaced by another,
// it is trusted no more.
func TestTransportFollowsAMountedCA(t *testing.T) {
	bundle := filepath.Join(t.TempDir(), "ca-certificates.crt")
	if err := os.WriteFile(bundle, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv("SSL_CERT_FILE", bundle)
	t.Setenv("SSL_CERT_DIR", dir)
	firstCA, first := privateCA(t, "first private CA")
	secondCA, second := privateCA(t, "second private CA")

	tr := &Transport{} // Recheck 0: the files are looked at before every request
	if err := get(tr, first.URL); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("before the CA is mounted: %v, want an unknown authority", err)
	}
	imagefs.MountLikeKubelet(t, dir, map[string][]byte{"private-ca.crt": firstCA}, 0o644, 0)
	if err := get(tr, first.URL); err != nil {
		t.Fatalf("with the CA mounted: %v", err)
	}
	roots, err := Load()
	if err != nil || !slices.Equal(roots.From, []string{dir + "/"}) {
		t.Errorf("roots from %v (%v), want the directory only (the bundle file is empty)", roots.From, err)
	}

	// The ConfigMap is edited: another CA under another key.
	imagefs.MountLikeKubelet(t, dir, map[string][]byte{"other-ca.crt": secondCA}, 0o644, 0)
	if err := get(tr, second.URL); err != nil {
		t.Errorf("with the second CA mounted: %v", err)
	}
	if err := get(tr, first.URL); err == nil {
		t.Error("the first CA is still trusted after the volume dropped it")
	}

	// Between rechecks the transport in use stays: a change shows at the next recheck only.
	slow := &Transport{Recheck: time.Hour}
	if err := get(slow, second.URL); err != nil {
		t.Fatal(err)
	}
	imagefs.MountLikeKubelet(t, dir, map[string][]byte{"private-ca.crt": firstCA}, 0o644, 0)
	if err := get(slow, first.URL); err == nil {
		t.Error("the files were read again before the recheck was due")
	}
}

// TestLoadReadsAsCryptoX509: the first bundle file that exists, then every file of the directories, not the
// links to another file of the same directory; with no certificate anywhere, the fallback bundle.
func TestLoadReadsAsCryptoX509(t *testing.T) {
	caPEM, _ := privateCA(t, "bundle CA")
	dirCA, _ := privateCA(t, "directory CA")
	tmp := t.TempDir()
	bundle, dir := filepath.Join(tmp, "bundle.pem"), filepath.Join(tmp, "certs")
	if err := os.WriteFile(bundle, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dir.pem"), dirCA, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir.pem", filepath.Join(dir, "1234abcd.0")); err != nil { // a hashed name
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", bundle)
	t.Setenv("SSL_CERT_DIR", dir+":"+filepath.Join(tmp, "missing"))
	if got := dirFiles(dir); !slices.Equal(got, []string{filepath.Join(dir, "dir.pem")}) {
		t.Errorf("directory files %v, want the file without its hashed link", got)
	}
	roots, err := Load()
	if err != nil || !slices.Equal(roots.From, []string{bundle, dir + "/"}) {
		t.Fatalf("roots from %v (%v)", roots.From, err)
	}
	//nolint:staticcheck // Subjects lists a pool built here.
	if n := len(roots.Pool.Subjects()); n != 2 {
		t.Errorf("%d certificate authorities, want the bundle's and the directory's", n)
	}

	t.Setenv("SSL_CERT_FILE", filepath.Join(tmp, "none.pem"))
	t.Setenv("SSL_CERT_DIR", filepath.Join(tmp, "missing"))
	if roots, err := Load(); err != nil || len(roots.From) != 0 || roots.Pool == nil {
		t.Errorf("without certificates: from %v, pool %v (%v); want the fallback pool", roots.From, roots.Pool, err)
	}
}
