// Package authgate keeps aim-apiserver from answering requests before it can authenticate them.
//
// With delegated authentication the CA bundles that verify kube-apiserver's front-proxy certificate and
// clients' certificates come from the ConfigMap kube-system/extension-apiserver-authentication, loaded by
// informers that start only once the server listens. For the first fraction of a second every request then
// authenticates as system:anonymous and is refused with 403, which clients treat as final. The gate answers
// 503 with Retry-After instead (clients, and kube-apiserver's aggregator, retry it) until the bundles the
// cluster publishes are loaded, and /readyz says so.
package authgate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Bundles are the CA bundles a server authenticates with, and which of them must be loaded before it serves.
type Bundles struct {
	// RequestHeader verifies the front-proxy client certificate of kube-apiserver's aggregator; nil when not
	// configured.
	RequestHeader dynamiccertificates.CAContentProvider
	// All is the union of every client CA the TLS listener accepts (the request-header CA among them).
	All dynamiccertificates.CAContentProvider
	// WantClientCA says a client CA besides the request-header CA is expected in All.
	WantClientCA bool
}

// Loaded reports whether every expected bundle has content. All is the concatenation of its members' bundles,
// so it holds a client CA exactly when it is longer than the request-header bundle alone.
func (b Bundles) Loaded() bool {
	requestHeader := 0
	if b.RequestHeader != nil {
		if _, ok := b.RequestHeader.VerifyOptions(); !ok {
			return false
		}
		requestHeader = len(bytes.TrimSpace(b.RequestHeader.CurrentCABundleContent()))
	}
	if b.WantClientCA {
		if b.All == nil || len(bytes.TrimSpace(b.All.CurrentCABundleContent())) <= requestHeader {
			return false
		}
	}
	return true
}

// Gate serves requests once the bundles are loaded; until then it answers 503 with Retry-After.
type Gate struct {
	bundles Bundles
	open    atomic.Bool
}

// New returns a gate over bundles.
func New(b Bundles) *Gate { return &Gate{bundles: b} }

// Open reports whether requests are served. Once open, the gate stays open: a later rotation of a bundle
// must not make the server unavailable.
func (g *Gate) Open() bool {
	if g.open.Load() {
		return true
	}
	if g.bundles.Loaded() {
		g.open.Store(true)
		klog.InfoS("Client CA bundles loaded; serving requests")
		return true
	}
	return false
}

// WithGate wraps the handler chain. Health endpoints pass, so that probes see /readyz fail for the right
// reason rather than a 503 of the gate.
func (g *Gate) WithGate(handler http.Handler, s runtime.NegotiatedSerializer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.Open() || healthPath(r.URL.Path) {
			handler.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", "1")
		err := apierrors.NewServiceUnavailable("aim-apiserver is loading the CA bundles that authenticate clients; retry shortly")
		responsewriters.ErrorNegotiated(err, s, schema.GroupVersion{}, w, r)
	})
}

// ReadyzCheck fails until the gate is open.
func (g *Gate) ReadyzCheck() healthz.HealthChecker {
	return healthz.NamedCheck("authentication-ca-bundles", func(*http.Request) error {
		if !g.Open() {
			return errors.New("the client CA bundles of extension-apiserver-authentication are not loaded yet")
		}
		return nil
	})
}

func healthPath(p string) bool {
	for _, h := range []string{"/healthz", "/livez", "/readyz"} {
		if p == h || strings.HasPrefix(p, h+"/") {
			return true
		}
	}
	return false
}

// configMapName is where kube-apiserver publishes the CAs that extension servers authenticate with.
const configMapName = "extension-apiserver-authentication"

// ClusterPublishesClientCA reads extension-apiserver-authentication once to learn whether kube-apiserver
// publishes a client CA (it does when it runs with --client-ca-file); the request-header CA is required by
// delegated authentication anyway.
func ClusterPublishesClientCA(ctx context.Context, client kubernetes.Interface) (bool, error) {
	cm, err := client.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, configMapName, metav1.GetOptions{})
	if err != nil {
		return false, fmt.Errorf("reading kube-system/extension-apiserver-authentication: %w", err)
	}
	return strings.TrimSpace(cm.Data["client-ca-file"]) != "", nil
}
