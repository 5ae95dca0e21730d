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
