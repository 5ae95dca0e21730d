// Package framework starts aim-apiserver for tests: in-process in local mode on an embedded etcd, exactly as
// `aim-apiserver --local` runs, with clients built from the kubeconfig it writes.
package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aim-apiserver/aim-apiserver/pkg/cmd/server"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
)

// Server is a running in-process aim-apiserver.
type Server struct {
	DataDir    string
	Kubeconfig string
	Config     *rest.Config
	Client     versioned.Interface
	Dynamic    dynamic.Interface

	cancel context.CancelFunc
	done   chan error
}

// StartLocal starts a server on dataDir and waits until it is ready. The server stops when the test ends,
// or earlier with Stop.
func StartLocal(t testing.TB, dataDir string) *Server {
	t.Helper()
	s, err := Start(dataDir)
	if err != nil {
		t.Fatalf("starting aim-apiserver: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Start starts a server on dataDir and waits until it is ready; the caller must Stop it. For TestMain, where
// there is no testing.TB.
func Start(dataDir string) (*Server, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on loopback: %w", err)
	}
	o := server.NewOptions(io.Discard)
	o.Local.Enabled = true
	o.Local.DataDir = dataDir
	o.Local.UnsafeNoFsync = true
	o.RecommendedOptions.SecureServing.Listener = listener
	o.RecommendedOptions.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port
	if err := o.Complete(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dataDir, "kubeconfig")
	_ = os.Remove(kubeconfig) // a stale one from an earlier run must not be mistaken for readiness

	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{DataDir: dataDir, Kubeconfig: kubeconfig, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- o.Run(ctx) }()
	if err := s.waitReady(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) waitReady() error {
	var lastErr error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 60*time.Second, true,
		func(ctx context.Context) (bool, error) {
			select {
			case err := <-s.done:
				s.done <- err
				return false, fmt.Errorf("server exited while starting: %w", err)
			default:
			}
			if s.Config == nil {
				cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
				if err != nil {
					lastErr = err
					return false, nil
				}
				cfg.QPS, cfg.Burst = -1, 0
				s.Config = cfg
			}
			rc, err := rest.UnversionedRESTClientFor(withNegotiation(s.Config))
			if err != nil {
				return false, err
			}
			body, err := rc.Get().AbsPath("/readyz").DoRaw(ctx)
			if err != nil {
				lastErr = fmt.Errorf("%w: %s", err, body)
				return false, nil
			}
			return true, nil
		})
	if err != nil {
		return fmt.Errorf("server not ready (last error: %v): %w", lastErr, err)
	}
	if s.Client, err = versioned.NewForConfig(s.Config); err != nil {
		return err
	}
	s.Dynamic, err = dynamic.NewForConfig(s.Config)
	return err
}

// Stop stops the server and its etcd and waits until both are down; a later StartLocal on the same data dir
// sees everything that was stored.
func (s *Server) Stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(os.Stderr, "aim-apiserver exited with: %v\n", err)
		}
	case <-time.After(90 * time.Second):
		fmt.Fprintln(os.Stderr, "aim-apiserver did not stop within 90s")
	}
}

// RawClient is an HTTP client that presents the admin certificate, for requests the typed clients cannot send.
func (s *Server) RawClient(t testing.TB) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(s.Config)
	if err != nil {
		t.Fatalf("building HTTP client: %v", err)
	}
	return c
}

func withNegotiation(c *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(c)
	cfg.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	return cfg
}
