//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/aim-apiserver/aim-apiserver/test/framework"
)

var etcdBin = filepath.Join(root, "_output", "bin", "etcd")

// etcdCerts runs `aim-apiserver etcd certs` as the init container does, with the admin's kubeconfig, for an etcd
// on loopback.
func etcdCerts(namespace, clientDir string) (string, error) {
	out, err := exec.Command(migrateBin, "etcd", "certs", "--kubeconfig", adminKC, "--namespace", namespace,
		"--server-hosts=localhost,127.0.0.1", "--peer-hosts=127.0.0.1", "--client-dir", clientDir, "--timeout=20s").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("aim-apiserver etcd certs: %v\n%s", err, out)
	}
	return string(out), nil
}

// secretFiles writes the Secret's tls.crt, tls.key and ca.crt into a directory.
func secretFiles(t *testing.T, kube kubernetes.Interface, namespace, name string) string {
	t.Helper()
	s, err := kube.CoreV1().Secrets(namespace).Get(context.Background(), name, metav1.GetOptions{})
	must(t, err)
	dir := t.TempDir()
	for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
		must(t, os.WriteFile(filepath.Join(dir, k), s.Data[k], 0o600))
	}
	return dir
}

// TestEtcdCertsServeARealEtcd: the Secrets etcd-certs creates are what a TLS-only etcd needs. A real etcd serves
// clients and peers with the server and peer Secrets and admits the client certificate the command wrote into its
// directory, and refuses one of another run's CA. A second run writes nothing; two runs at once converge on one CA.
func TestEtcdCertsServeARealEtcd(t *testing.T) {
	_, kube := adminClients(t)
	ctx := context.Background()
	ns := namespace(t, "e2e-etcd-certs")

	// Two at once, as two replicas' init containers start.
	dirs := []string{t.TempDir(), t.TempDir()}
	errs := make(chan error, 2)
	for _, d := range dirs {
		go func() {
			_, err := etcdCerts(ns, d)
			errs <- err
		}()
	}
	for range dirs {
		must(t, <-errs)
	}
	ca0, err := os.ReadFile(filepath.Join(dirs[0], "ca.crt"))
	must(t, err)
	ca1, err := os.ReadFile(filepath.Join(dirs[1], "ca.crt"))
	must(t, err)
	if string(ca0) != string(ca1) {
		t.Fatal("two concurrent runs ended with different CAs")
	}
	versions := func() string {
		list, err := kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=aim-apiserver"})
		must(t, err)
		var v []string
		for _, s := range list.Items {
			v = append(v, s.Name+"@"+s.ResourceVersion)
		}
		return strings.Join(v, " ")
	}
	before := versions()
	if n := len(strings.Fields(before)); n != 4 {
		t.Fatalf("Secrets made: %s", before)
	}
	out, err := etcdCerts(ns, dirs[0])
	must(t, err)
	contains(t, "second run", out, "are current")
	if after := versions(); after != before {
		t.Errorf("a second run wrote Secrets:\nbefore %s\nafter  %s", before, after)
	}

	server := secretFiles(t, kube, ns, "aim-etcd-server-tls")
	peer := secretFiles(t, kube, ns, "aim-etcd-peer-tls")
	clientPort, peerPort := framework.FreePort(t), framework.FreePort(t)
	clientURL := "https://127.0.0.1:" + strconv.Itoa(clientPort)
	peerURL := "https://127.0.0.1:" + strconv.Itoa(peerPort)
	dataDir := t.TempDir()
	log, err := os.Create(filepath.Join(dataDir, "etcd.log"))
	must(t, err)
	etcd := exec.Command(etcdBin, "--name", "m0", "--data-dir", filepath.Join(dataDir, "data"),
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL, "--initial-cluster", "m0="+peerURL,
		"--client-cert-auth", "--trusted-ca-file", filepath.Join(server, "ca.crt"),
		"--cert-file", filepath.Join(server, "tls.crt"), "--key-file", filepath.Join(server, "tls.key"),
		"--peer-client-cert-auth", "--peer-trusted-ca-file", filepath.Join(peer, "ca.crt"),
		"--peer-cert-file", filepath.Join(peer, "tls.crt"), "--peer-key-file", filepath.Join(peer, "tls.key"))
	etcd.Stdout, etcd.Stderr = log, log
	must(t, etcd.Start())
	t.Cleanup(func() {
		_ = etcd.Process.Kill()
		_ = etcd.Wait()
		if t.Failed() {
			data, _ := os.ReadFile(log.Name())
			t.Logf("etcd log:\n%s", data)
		}
	})

	dial := func(certDir string) (*clientv3.Client, error) {
		pair, err := tls.LoadX509KeyPair(filepath.Join(certDir, "tls.crt"), filepath.Join(certDir, "tls.key"))
		if err != nil {
			return nil, err
		}
		roots := x509.NewCertPool()
		if ca, err := os.ReadFile(filepath.Join(server, "ca.crt")); err != nil || !roots.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("reading the CA: %v", err)
		}
		return clientv3.New(clientv3.Config{Endpoints: []string{clientURL}, DialTimeout: 5 * time.Second,
			TLS: &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12}})
	}
	c, err := dial(dirs[0])
	must(t, err)
	defer c.Close()
	eventually(t, 30*time.Second, "etcd serves the client certificate etcd-certs wrote", func() error {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if _, err := c.Put(cctx, "/e2e/etcd-certs", "ok"); err != nil {
			return err
		}
		r, err := c.Get(cctx, "/e2e/etcd-certs")
		if err != nil || len(r.Kvs) != 1 || string(r.Kvs[0].Value) != "ok" {
			return fmt.Errorf("get: %v %v", r, err)
		}
		return nil
	})

	// A client certificate of another CA (another namespace's run) is refused.
	otherDir := t.TempDir()
	_, err = etcdCerts(namespace(t, "e2e-etcd-certs-other"), otherDir)
	must(t, err)
	other, err := dial(otherDir)
	must(t, err)
	defer other.Close()
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := other.Get(cctx, "/e2e/etcd-certs"); err == nil {
		t.Error("etcd admitted a client certificate of another CA")
	}
}
