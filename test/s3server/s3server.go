// Package s3server serves an S3 API on loopback for tests of what reads and writes buckets.
package s3server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is an S3 API on loopback (gofakes3, in memory) with one bucket. It admits only requests signed with
// AccessKey, as a real service refuses a wrong key: it checks the key a request is signed with, not the signature.
type Server struct {
	*httptest.Server
	AccessKey string
	// Requests counts the requests that reached it, admitted or not.
	Requests atomic.Int64
}

// Start serves an S3 API with the bucket, over TLS with httptest's certificate (Server.Certificate) when tls is set.
func Start(t testing.TB, bucket, accessKey string, tls bool) *Server {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	api := gofakes3.New(backend).Server()
	s := &Server{AccessKey: accessKey}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if !strings.Contains(r.Header.Get("Authorization"), "Credential="+accessKey+"/") {
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code>` +
				`<Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`))
			return
		}
		api.ServeHTTP(w, r)
	}))
	if tls {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s
}
