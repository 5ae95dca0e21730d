// Package localmode prepares what local mode needs besides etcd: a client CA, an admin client certificate in
// group system:masters, and a kubeconfig that points kubectl at the server.
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
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const (
	caValidity     = 10 * 365 * 24 * time.Hour
	clientValidity = 365 * 24 * time.Hour
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
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, fmt.Errorf("generating CA key: %w", err)
	}
	caCert, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "aim-apiserver-local-client-ca"}, caKey)
	if err != nil {
		return p, fmt.Errorf("generating client CA: %w", err)
	}
	clientKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return p, fmt.Errorf("generating client key: %w", err)
	}
	clientDER, err := signClientCert(caCert, caKey, clientKey.Public(),
		pkix.Name{CommonName: AdminUser, Organization: []string{AdminGroup}})
	if err != nil {
		return p, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(clientKey)
	if err != nil {
		return p, fmt.Errorf("encoding client key: %w", err)
	}
	caPEM, err := cert.EncodeCertificates(caCert)
	if err != nil {
		return p, fmt.Errorf("encoding client CA: %w", err)
	}
	if err := writeFile(p.CAFile, caPEM, 0o644); err != nil {
		return p, err
	}
	if err := writeFile(p.ClientKeyFile, keyPEM, 0o600); err != nil {
		return p, err
	}
	leaf, err := x509.ParseCertificate(clientDER)
	if err != nil {
		return p, fmt.Errorf("parsing client certificate: %w", err)
	}
	leafPEM, err := cert.EncodeCertificates(leaf)
	if err != nil {
		return p, fmt.Errorf("encoding client certificate: %w", err)
	}
	return p, writeFile(p.ClientCertFile, leafPEM, 0o644)
}

func signClientCert(ca *x509.Certificate, caKey crypto.Signer, pub crypto.PublicKey, subject pkix.Name) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("generating serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(clientValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing client certificate: %w", err)
	}
	return der, nil
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
