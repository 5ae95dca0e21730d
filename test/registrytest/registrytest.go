// Package registrytest holds helpers for tests that serve an OCI registry in-process.
package registrytest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// BasicAuth passes requests with the user's basic credentials to next and answers the others 401 with a Basic
// challenge, as a registry that wants a login does.
func BasicAuth(user, pass string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Counter counts the requests a registry received, by a key of each.
type Counter struct {
	mu sync.Mutex
	n  map[string]int
}

// Counting passes every request to next and counts it in the returned Counter under key(r); a request whose key
// is "" is not counted.
func Counting(next http.Handler, key func(r *http.Request) string) (http.Handler, *Counter) {
	c := &Counter{n: map[string]int{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := key(r); k != "" {
			c.mu.Lock()
			c.n[k]++
			c.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	}), c
}

// Get is the number of requests counted under key.
func (c *Counter) Get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// Reset forgets every count.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.n)
}

// PushLabelled writes an image without layers whose config carries labels, as an AIM image carries its
// metadata, to ref (host/repository:tag; plain HTTP for a loopback host), with opts for the transport and
// credentials.
func PushLabelled(t testing.TB, ref string, labels map[string]string, opts ...remote.Option) {
	t.Helper()
	img, err := mutate.Config(empty.Image, v1.Config{Labels: labels})
	if err != nil {
		t.Fatal(err)
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(tag, img, opts...); err != nil {
		t.Fatal(err)
	}
}

// ECRAPI serves the one call of Amazon ECR's API that registry clients make, GetAuthorizationToken, answering
// with the token for the user "AWS" and registry (an ECR host), as ECR does; point the AWS SDK at it with
// AWS_ENDPOINT_URL_ECR. It returns the server's URL and the number of tokens handed out so far.
func ECRAPI(t testing.TB, registry, token string) (string, *atomic.Int32) {
	t.Helper()
	var tokens atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if target := r.Header.Get("X-Amz-Target"); !strings.HasSuffix(target, ".GetAuthorizationToken") {
			http.Error(w, "unexpected call "+target, http.StatusBadRequest)
			return
		}
		tokens.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		fmt.Fprintf(w, `{"authorizationData":[{"authorizationToken":%q,"expiresAt":%d,"proxyEndpoint":"https://%s"}]}`,
			base64.StdEncoding.EncodeToString([]byte("AWS:"+token)), time.Now().Add(time.Hour).Unix(), registry)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &tokens
}
