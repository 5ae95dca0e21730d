//go:build e2e

// Package e2e drives aim-apiserver through a real kube-apiserver (hack/local-up.sh) with the pinned kubectl.
package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

var (
	root       = filepath.Join("..", "..")
	kubectlBin = filepath.Join(root, "_output", "bin", "kubectl")
	localDir   = harnessdir.Local(root)
	adminKC    = filepath.Join(localDir, "kubeconfig")
	samplesDir = filepath.Join(root, "artifacts", "samples")
)

func TestMain(m *testing.M) {
	for _, f := range []string{kubectlBin, adminKC} {
		if _, err := os.Stat(f); err != nil {
			fmt.Fprintf(os.Stderr, "e2e needs a running local control plane (hack/local-up.sh): %v\n", err)
			os.Exit(1)
		}
	}
	serverLog := filepath.Join(localDir, "logs", "aim-apiserver.log")
	var from int64 // what earlier runs against a kept-up harness (KEEP_UP=1) wrote is theirs
	if fi, err := os.Stat(serverLog); err == nil {
		from = fi.Size()
	}
	code := m.Run()
	if err := noServerBugs(serverLog, from); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// serverBugs are lines of aim-apiserver's log that only a bug of its own writes, whatever a test does: a
// recovered panic (of the controller's reconcile, a request handler or apimachinery's HandleCrash), which fails
// no request a test sees, only the work behind it, again at each retry; and a status the controller derived that
// the API's own status validation refuses.
var serverBugs = []func(line string) bool{
	func(l string) bool {
		return strings.Contains(l, "reconcile panicked") || strings.Contains(l, "apiserver panic'd") || strings.Contains(l, "Observed a panic")
	},
	func(l string) bool {
		return strings.Contains(l, "writing the status of") && strings.Contains(l, " is invalid: ")
	},
}

// noServerBugs fails the suite when the harness's aim-apiserver logged one of serverBugs while it ran, from
// offset from of its log on (restarts append to the same log), naming the first ones.
func noServerBugs(log string, from int64) error {
	data, err := os.ReadFile(log)
	if err != nil {
		return fmt.Errorf("reading aim-apiserver's log: %w", err)
	}
	var found []string
	for _, line := range strings.Split(string(data[min(from, int64(len(data))):]), "\n") {
		if slices.ContainsFunc(serverBugs, func(bug func(string) bool) bool { return bug(line) }) {
			found = append(found, strings.TrimSpace(line))
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("aim-apiserver logged %d panics or refused statuses of its own during the suite (%s); the first:\n  %s",
		len(found), log, strings.Join(found[:min(len(found), 5)], "\n  "))
}

// kubectl runs the pinned kubectl as a user (a kubeconfig).
type kubectl struct {
	t          *testing.T
	kubeconfig string
}

func admin(t *testing.T) kubectl { return kubectl{t: t, kubeconfig: adminKC} }

func (k kubectl) run(stdin string, args ...string) (string, error) {
	cmd := exec.Command(kubectlBin, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (k kubectl) must(args ...string) string {
	k.t.Helper()
	out, err := k.run("", args...)
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (k kubectl) apply(manifest string, args ...string) (string, error) {
	return k.run(manifest, append([]string{"apply", "-f", "-"}, args...)...)
}

func (k kubectl) mustApply(manifest string, args ...string) string {
	k.t.Helper()
	out, err := k.apply(manifest, args...)
	if err != nil {
		k.t.Fatalf("kubectl apply: %v\n%s\n---\n%s", err, out, manifest)
	}
	return out
}

// eventually retries check until it returns nil or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %s: %v", what, timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// consistently checks, for the whole period, that check keeps holding: what a negative assertion waits on
// instead of a bare sleep, so that a violation at any moment of the period fails the test, at once.
func consistently(t *testing.T, period time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(period)
	for {
		if err := check(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// namespace creates a namespace for the test, unique to this run, and deletes it afterwards.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	k := admin(t)
	name := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000)
	k.must("create", "namespace", name)
	eventually(t, 30*time.Second, "default service account in "+name, func() error {
		_, err := k.run("", "get", "serviceaccount", "default", "-n", name)
		return err
	})
	t.Cleanup(func() { _, _ = k.run("", "delete", "namespace", name, "--wait=false") })
	return name
}

func contains(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s: output lacks %q:\n%s", what, w, out)
		}
	}
}

// userKubeconfig writes a kubeconfig for a user with a client certificate signed by the cluster CA.
func userKubeconfig(t *testing.T, user string) string {
	t.Helper()
	caCert, caKey := loadCA(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: user},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, key.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, user+".crt"), filepath.Join(dir, user+".key")
	must(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	must(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))

	kc := filepath.Join(dir, "kubeconfig")
	server := strings.TrimSpace(admin(t).must("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"))
	k := kubectl{t: t, kubeconfig: kc}
	k.must("config", "set-cluster", "local", "--server", server, "--certificate-authority", filepath.Join(localDir, "pki", "ca.crt"), "--embed-certs")
	k.must("config", "set-credentials", user, "--client-certificate", certFile, "--client-key", keyFile, "--embed-certs")
	k.must("config", "set-context", "local", "--cluster", "local", "--user", user)
	k.must("config", "use-context", "local")
	return kc
}

func loadCA(t *testing.T) (*x509.Certificate, any) {
	t.Helper()
	certPEM, err := os.ReadFile(filepath.Join(localDir, "pki", "ca.crt"))
	must(t, err)
	keyPEM, err := os.ReadFile(filepath.Join(localDir, "pki", "ca.key"))
	must(t, err)
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		t.Fatal("cannot decode the local cluster CA")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	must(t, err)
	key, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		key, err = x509.ParseECPrivateKey(kb.Bytes)
	}
	must(t, err)
	return cert, key
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// objectJSON waits for an object to exist and returns it as JSON.
func objectJSON(t *testing.T, timeout time.Duration, kind, name, namespace string) string {
	t.Helper()
	var out string
	eventually(t, timeout, kind+" "+name, func() error {
		var err error
		out, err = admin(t).run("", "get", kind, name, "-n", namespace, "-o", "json")
		return err
	})
	return out
}

// namespace and returns its name.
func onlyOne(t *testing.T, timeout time.Duration, kind, namespace string, selector ...string) string {
	t.Helper()
	var name string
	eventually(t, timeout, "one "+kind, func() error {
		args := []string{"get", kind, "-n", namespace, "-o", "name"}
		if len(selector) > 0 {
			args = append(args, "-l", selector[0])
		}
		out := strings.Fields(admin(t).must(args...))
		if len(out) != 1 {
			return fmt.Errorf("%s: %v", kind, out)
		}
		name = out[0][strings.Index(out[0], "/")+1:]
		return nil
	})
	return name
}

// noneLeft waits until no objects of the kinds remain in a namespace.
func noneLeft(t *testing.T, timeout time.Duration, kinds, namespace string) {
	t.Helper()
	eventually(t, timeout, kinds+" gone", func() error {
		if out := strings.TrimSpace(admin(t).must("get", kinds, "-n", namespace, "-o", "name")); out != "" {
			return fmt.Errorf("left: %q", out)
		}
		return nil
	})
}

// jsonpathSet waits until a jsonpath of an object reads something, and returns it.
func jsonpathSet(t *testing.T, timeout time.Duration, args ...string) string {
	t.Helper()
	var out string
	eventually(t, timeout, strings.Join(args, " ")+" set", func() error {
		var err error
		if out, err = admin(t).run("", append([]string{"get"}, args...)...); err != nil || out == "" {
			return fmt.Errorf("%v: %q", err, out)
		}
		return nil
	})
	return out
}

// jsonpathEquals waits until a jsonpath of an object reads want.
func jsonpathEquals(t *testing.T, timeout time.Duration, want string, args ...string) {
	t.Helper()
	k := admin(t)
	eventually(t, timeout, strings.Join(args, " ")+" = "+want, func() error {
		out, err := k.run("", append([]string{"get"}, args...)...)
		if err != nil || out != want {
			return fmt.Errorf("%v: %q", err, out)
		}
		return nil
	})
}

// loopbackRegistry serves handler (an in-process registry) on 127.0.0.1, which the harness's aim-apiserver may
// contact, until the test ends, and returns its host:port.
func loopbackRegistry(t *testing.T, handler http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(handler)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}
