package localmode

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/cert"
)

func TestEnsurePKI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	p, err := EnsurePKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	cas, err := cert.CertsFromFile(p.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	leafs, err := cert.CertsFromFile(p.ClientCertFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf := leafs[0]
	if leaf.Subject.CommonName != AdminUser || len(leaf.Subject.Organization) != 1 || leaf.Subject.Organization[0] != AdminGroup {
		t.Errorf("client subject %v", leaf.Subject)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cas[0])
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate does not verify against the CA for client auth: %v", err)
	}
	if fi, err := os.Stat(p.ClientKeyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("client key permissions: %v %v", fi.Mode(), err)
	}

	// A second call reuses the files, so kubeconfigs written before a restart keep working.
	before, _ := os.ReadFile(p.ClientCertFile)
	if _, err := EnsurePKI(dir); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(p.ClientCertFile)
	if string(before) != string(after) {
		t.Error("EnsurePKI replaced an existing certificate")
	}

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := WriteKubeconfig(kubeconfig, "https://127.0.0.1:8443", p.CAFile, p); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:8443" || len(cfg.CertData) == 0 || len(cfg.KeyData) == 0 || len(cfg.CAData) == 0 {
		t.Errorf("kubeconfig incomplete: host %q", cfg.Host)
	}
}

func TestEnsureEtcdPKI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "etcd-pki")
	p, err := EnsureEtcdPKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	cas, err := cert.CertsFromFile(p.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cas[0])
	server, err := cert.CertsFromFile(p.ServerCertFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		if _, err := server[0].Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
			t.Errorf("server certificate for 127.0.0.1, usage %v: %v", usage, err)
		}
	}
	client, err := cert.CertsFromFile(p.ClientCertFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client[0].Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	for _, f := range []string{p.ServerKeyFile, p.ClientKeyFile} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v", f, fi.Mode(), err)
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "ca.key" {
			t.Error("the CA key is kept: anyone who reads it can make a client certificate")
		}
	}
	before, _ := os.ReadFile(p.ClientCertFile)
	if _, err := EnsureEtcdPKI(dir); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(p.ClientCertFile); string(before) != string(after) {
		t.Error("a second call replaced the certificates")
	}
}
