// Package localmode prepares what local mode needs besides etcd itself: a client CA, an admin client
// certificate in group system:masters and a kubeconfig that points kubectl at the server; and the PKI of the
// embedded etcd, so that only aim-apiserver can reach its store.
package localmode

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const (
	leafValidity = 365 * 24 * time.Hour
	// AdminUser is the user name of the generated client certificate.
	AdminUser = "aim-admin"
	// AdminGroup makes the admin certificate pass the server's privileged-group authorizer.
	AdminGroup = "system:masters"
)

// PKI are the files of the local client PKI.
type PKI struct {
	CAFile, ClientCertFile, ClientKeyFile string
}

// EnsurePKI creates the client CA and admin certificate under dir, or reuses them when present, so that a
// restart keeps working kubeconfigs.
func EnsurePKI(dir string) (PKI, error) {
	p := PKI{
		CAFile:         filepath.Join(dir, "client-ca.crt"),
		ClientCertFile: filepath.Join(dir, "admin.crt"),
		ClientKeyFile:  filepath.Join(dir, "admin.key"),
	}
	if allExist(p.CAFile, p.ClientCertFile, p.ClientKeyFile) {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, fmt.Errorf("creating PKI directory: %w", err)
	}
	ca, err := newCA("aim-apiserver-local-client-ca")
	if err != nil {
		return p, err
	}
	if err := writeFile(p.CAFile, ca.certPEM, 0o644); err != nil {
		return p, err
	}
	return p, ca.issue(p.ClientCertFile, p.ClientKeyFile, leafSpec{
		subject: pkix.Name{CommonName: AdminUser, Organization: []string{AdminGroup}},
		usages:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// EtcdPKI are the files of the embedded etcd's PKI: its CA, a certificate etcd serves its client and peer
// listeners with (and presents to itself as a peer), and the client certificate aim-apiserver connects with.
// etcd admits only clients with a certificate of this CA, and the CA key is not kept, so no other
// certificate can be made for it.
type EtcdPKI struct {
	CAFile, ServerCertFile, ServerKeyFile, ClientCertFile, ClientKeyFile string
}

// EnsureEtcdPKI creates the embedded etcd's PKI under dir (mode 0700), or reuses it when complete.
func EnsureEtcdPKI(dir string) (EtcdPKI, error) {
	p := EtcdPKI{
		CAFile:         filepath.Join(dir, "ca.crt"),
		ServerCertFile: filepath.Join(dir, "server.crt"),
		ServerKeyFile:  filepath.Join(dir, "server.key"),
		ClientCertFile: filepath.Join(dir, "client.crt"),
		ClientKeyFile:  filepath.Join(dir, "client.key"),
	}
	if allExist(p.CAFile, p.ServerCertFile, p.ServerKeyFile, p.ClientCertFile, p.ClientKeyFile) {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, fmt.Errorf("creating etcd PKI directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return p, fmt.Errorf("restricting etcd PKI directory: %w", err)
	}
	ca, err := newCA("aim-apiserver-local-etcd-ca")
	if err != nil {
		return p, err
	}
	if err := writeFile(p.CAFile, ca.certPEM, 0o644); err != nil {
		return p, err
	}
	if err := ca.issue(p.ServerCertFile, p.ServerKeyFile, leafSpec{
		subject: pkix.Name{CommonName: "aim-apiserver-local-etcd"},
		// Client auth too: the single member is its own peer.
		usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		ips:    []net.IP{net.IPv4(127, 0, 0, 1)}, dnsNames: []string{"localhost"},
	}); err != nil {
		return p, err
	}
	return p, ca.issue(p.ClientCertFile, p.ClientKeyFile, leafSpec{
		subject: pkix.Name{CommonName: "aim-apiserver"},
		usages:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// authority is a CA held in memory while it issues certificates.
type authority struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
}

// newCA makes a self-signed CA (client-go's: valid for ten years).
func newCA(commonName string) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating CA key: %w", err)
	}
	c, err := cert.NewSelfSignedCACert(cert.Config{CommonName: commonName}, key)
	if err != nil {
		return nil, fmt.Errorf("generating CA %s: %w", commonName, err)
	}
	certPEM, err := cert.EncodeCertificates(c)
	if err != nil {
		return nil, fmt.Errorf("encoding CA %s: %w", commonName, err)
	}
	return &authority{cert: c, key: key, certPEM: certPEM}, nil
}

// leafSpec is what a certificate is for.
type leafSpec struct {
	subject  pkix.Name
	usages   []x509.ExtKeyUsage
	ips      []net.IP
	dnsNames []string
}

// issue writes a new key (mode 0600) and a certificate for it signed by the CA.
func (a *authority) issue(certFile, keyFile string, spec leafSpec) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating key for %s: %w", spec.subject.CommonName, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return fmt.Errorf("generating serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      spec.subject,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  spec.usages,
		IPAddresses:  spec.ips,
		DNSNames:     spec.dnsNames,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		return fmt.Errorf("signing certificate for %s: %w", spec.subject.CommonName, err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return fmt.Errorf("encoding key for %s: %w", spec.subject.CommonName, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return fmt.Errorf("parsing certificate for %s: %w", spec.subject.CommonName, err)
	}
	certPEM, err := cert.EncodeCertificates(leaf)
	if err != nil {
		return fmt.Errorf("encoding certificate for %s: %w", spec.subject.CommonName, err)
	}
	if err := writeFile(keyFile, keyPEM, 0o600); err != nil {
		return err
	}
	return writeFile(certFile, certPEM, 0o644)
}

func allExist(paths ...string) bool {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
