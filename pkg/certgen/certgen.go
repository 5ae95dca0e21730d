// Package certgen issues the certificates aim-apiserver keeps in Secrets itself (its serving certificate, the
// bundled etcd's CA and the certificates it signs) and reads them back. Keys are ECDSA P-256, as cert-manager's
// and kubeadm's defaults are for new certificates.
package certgen

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"
)

// Request describes a certificate to issue.
type Request struct {
	CommonName string
	// Hosts are DNS names or IP addresses; the certificate is valid for each.
	Hosts []string
	// Usages are the extended key usages (server, client).
	Usages []x509.ExtKeyUsage
	// CA makes a certificate that signs others.
	CA bool
	// NotBefore and NotAfter bound the validity. NotBefore is moved a minute back: clocks of the nodes that
	// verify the certificate may be behind.
	NotBefore, NotAfter time.Time
}

// Issuer is a CA certificate with its key.
type Issuer struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// Issue makes a new key and a certificate for it, signed by issuer, or by the new key itself when issuer is nil,
// and returns both PEM encoded.
func Issue(req Request, issuer *Issuer) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("generating a serial number: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: req.CommonName, Organization: []string{"aim-apiserver"}},
		NotBefore:             req.NotBefore.Add(-time.Minute),
		NotAfter:              req.NotAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           req.Usages,
		BasicConstraintsValid: true,
		IsCA:                  req.CA,
	}
	if req.CA {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	for _, h := range req.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	parent, signer := tmpl, crypto.Signer(key)
	if issuer != nil {
		parent, signer = issuer.Cert, issuer.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the certificate %q: %w", req.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// ParseIssuer reads a CA certificate and its key.
func ParseIssuer(certPEM, keyPEM []byte) (*Issuer, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("the key (%T) cannot sign", pair.PrivateKey)
	}
	if !pair.Leaf.IsCA {
		return nil, fmt.Errorf("%q is not a CA certificate", pair.Leaf.Subject.CommonName)
	}
	return &Issuer{Cert: pair.Leaf, Key: signer}, nil
}

// RenewalTime is when a certificate is due for renewal: once less than a third of its validity is left.
func RenewalTime(c *x509.Certificate) time.Time {
	return c.NotAfter.Add(-c.NotAfter.Sub(c.NotBefore) / 3)
}

// ParseBundle returns the certificates of a PEM bundle, skipping what does not parse.
func ParseBundle(data []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return out
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

// Contains says whether certs holds c.
func Contains(certs []*x509.Certificate, c *x509.Certificate) bool {
	return slices.ContainsFunc(certs, c.Equal)
}

// EncodeBundle is the PEM encoding of certs.
func EncodeBundle(certs ...*x509.Certificate) []byte {
	var out []byte
	for _, c := range certs {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	return out
}
