// Package trust holds the certificate authorities aim-apiserver trusts for its outbound HTTPS (registries and
// their mirrors), loaded as Go's crypto/x509 loads the system roots on Linux, and loaded again when their files
// change. crypto/x509 reads them once per process: a private CA added to the chart's extraCACertificates
// ConfigMap, which the kubelet updates in the mounted volume, would be trusted only after a restart, while
// `check-registry`, a new process, already showed it trusted.
package trust

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote"
	"k8s.io/klog/v2"
)

// certFiles and certDirs are where crypto/x509 looks for the system roots on Linux when SSL_CERT_FILE and
// SSL_CERT_DIR are unset (crypto/x509/root_linux.go).
var (
	certFiles = []string{
		"/etc/ssl/certs/ca-certificates.crt",
		"/etc/pki/tls/certs/ca-bundle.crt",
		"/etc/ssl/ca-bundle.pem",
		"/etc/pki/tls/cacert.pem",
		"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
		"/etc/ssl/cert.pem",
	}
	certDirs = []string{"/etc/ssl/certs", "/etc/pki/tls/certs"}
)

// Roots are the certificate authorities trusted now.
type Roots struct {
	Pool *x509.CertPool
	// From are the file and the directories certificates were read from; empty when none held any, and Pool is
	// the bundle built into the binary (golang.org/x/crypto/x509roots/fallback, which cmd/apiserver imports).
	From []string
}

// sources are the bundle files and directories crypto/x509 would read: SSL_CERT_FILE or the system bundles (the
// first that exists is read), and the directories of SSL_CERT_DIR (colon-separated) or the system ones.
func sources() (files, dirs []string) {
	files, dirs = certFiles, certDirs
	if f := os.Getenv("SSL_CERT_FILE"); f != "" {
		files = []string{f}
	}
	if d := os.Getenv("SSL_CERT_DIR"); d != "" {
		dirs = strings.Split(d, ":")
	}
	return files, dirs
}

// Load reads the roots as crypto/x509 reads them at its first use: the first bundle file that exists, and every
// file of the directories but the symbolic links to another file of the same directory (the hashed names of
// /etc/ssl/certs); with none, the bundle built into the binary.
func Load() (Roots, error) {
	files, dirs := sources()
	pool := x509.NewCertPool()
	var from []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if pool.AppendCertsFromPEM(data) {
			from = append(from, f)
		}
		break
	}
	for _, d := range dirs {
		found := false
		for _, path := range dirFiles(d) {
			if data, err := os.ReadFile(path); err == nil && pool.AppendCertsFromPEM(data) {
				found = true
			}
		}
		if found {
			from = append(from, d+"/")
		}
	}
	if len(from) > 0 {
		return Roots{Pool: pool, From: from}, nil
	}
	fallback, err := x509.SystemCertPool()
	if err != nil {
		return Roots{}, fmt.Errorf("loading the trusted certificate authorities: %w", err)
	}
	return Roots{Pool: fallback}, nil
}

// dirFiles are the files of a certificate directory crypto/x509 reads: a symbolic link whose target has no
// slash (a hashed name for another file there, or a ConfigMap volume's ..data) is read through that file.
func dirFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			if target, err := os.Readlink(path); err == nil && !strings.Contains(target, "/") {
				continue
			}
		}
		out = append(out, path)
	}
	return out
}

// stamp identifies the contents of the roots' files, and of extra files: it changes when a file is written, or
// replaced as the kubelet replaces a volume's files (a new directory behind the ..data link).
func stamp(extra []string) string {
	files, dirs := sources()
	paths := append(append([]string(nil), files...), extra...)
	for _, d := range dirs {
		paths = append(paths, d)
		paths = append(paths, dirFiles(d)...)
	}
	var b strings.Builder
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(&b, "%s -\n", p)
			continue
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
	}
	return b.String()
}

// DefaultRecheck is how often a Transport looks at its files.
const DefaultRecheck = 10 * time.Second

// Transport is an http.RoundTripper like go-containerregistry's default (proxy from the environment, HTTP/2) whose TLS
// trusts the Roots as they are now: it looks at their files (and Files) at most every Recheck, and when they
// changed, carries the next requests on a new transport made with the roots loaded again. If loading fails
// then, the previous transport stays in use.
type Transport struct {
	// TLS makes the TLS configuration from the roots; nil trusts the roots alone.
	TLS func(roots *x509.CertPool) (*tls.Config, error)
	// Files are what TLS reads besides the roots (a mirror's caFile, its client certificate).
	Files   []string
	Recheck time.Duration

	mu      sync.Mutex
	checked time.Time
	stamp   string
	current *http.Transport
}

// NewTransport is a Transport that rechecks every DefaultRecheck.
func NewTransport(tlsFor func(roots *x509.CertPool) (*tls.Config, error), files ...string) *Transport {
	return &Transport{TLS: tlsFor, Files: files, Recheck: DefaultRecheck}
}

// Check builds the transport now, reading the roots and Files: an error names what cannot be read.
func (t *Transport) Check() error {
	_, err := t.transport()
	return err
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt, err := t.transport()
	if err != nil {
		return nil, err
	}
	return rt.RoundTrip(req)
}

func (t *Transport) transport() (*http.Transport, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if t.current != nil && now.Sub(t.checked) < t.Recheck {
		return t.current, nil
	}
	t.checked = now
	s := stamp(t.Files)
	if t.current != nil && s == t.stamp {
		return t.current, nil
	}
	next, err := t.build()
	switch {
	case err != nil && t.current == nil:
		return nil, err
	case err != nil:
		klog.ErrorS(err, "Trusted certificate authorities not reloaded; the previous ones stay in use")
		t.stamp = s
		return t.current, nil
	}
	if t.current != nil {
		klog.InfoS("Trusted certificate authorities reloaded: their files changed")
		t.current.CloseIdleConnections()
	}
	t.stamp, t.current = s, next
	return next, nil
}

func (t *Transport) build() (*http.Transport, error) {
	roots, err := Load()
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots.Pool}
	if t.TLS != nil {
		if cfg, err = t.TLS(roots.Pool); err != nil {
			return nil, err
		}
	}
	// go-containerregistry's default transport: these carry registry requests.
	next := remote.DefaultTransport.(*http.Transport).Clone()
	next.TLSClientConfig = cfg
	return next, nil
}
