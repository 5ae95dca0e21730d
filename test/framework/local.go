package framework

import (
	"net"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// FreePort is a loopback TCP port nothing listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// WaitForLocalMode waits until an aim-apiserver in local mode, started as a process, has written its kubeconfig
// (at path) and answers /readyz, and returns that kubeconfig's client configuration. logs says what the process
// printed, for the failure message.
func WaitForLocalMode(t testing.TB, path string, timeout time.Duration, logs func() string) *rest.Config {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cfg, err := clientcmd.BuildConfigFromFlags("", path); err == nil {
			if client, err := rest.HTTPClientFor(cfg); err == nil {
				if resp, err := client.Get(cfg.Host + "/readyz"); err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						return cfg
					}
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("aim-apiserver --local did not become ready within %s:\n%s", timeout, logs())
	return nil
}
