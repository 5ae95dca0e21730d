package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	aimscheme "github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned/scheme"
)

const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
	mergePatch    = "application/merge-patch+json"
)

// apiPath is one way to reach AIMServices over HTTP: through kube-apiserver's aggregator, to the CRD twin, or
// to aim-apiserver directly. The harness's admin path, whose base is kube-apiserver's address, sends the
// requests that are not measured.
type apiPath struct {
	name string
	// base is the URL of the group version, e.g. https://127.0.0.1:16443/apis/aim.eai.amd.com/v1alpha1.
	base   string
	group  string
	client *http.Client
	// protobuf says whether the path serves AIM objects in protobuf (the CRD twin cannot).
	protobuf bool
	// etcdPrefix is where the path's server stores AIMServices.
	etcdPrefix string
}

// httpError is a response other than the one expected.
type httpError struct {
	code int
	body string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.body) }

// anySuccess, as the wanted status of a request, accepts every 2xx.
const anySuccess = 0

// do sends one request and reads the whole answer; the duration is the time until the last byte arrived.
func (p *apiPath) do(ctx context.Context, method, url, contentType, accept string, body []byte, want int) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", accept)
	start := time.Now()
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s %s: %w", p.name, method, url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s %s: %w", p.name, method, url, err)
	}
	if (want == anySuccess && resp.StatusCode/100 != 2) || (want != anySuccess && resp.StatusCode != want) {
		return nil, 0, fmt.Errorf("%s %s %s: %w", p.name, method, url, &httpError{resp.StatusCode, strings.TrimSpace(string(out[:min(len(out), 300)]))})
	}
	return out, took, nil
}

func (p *apiPath) collection(ns string) string { return p.base + "/namespaces/" + ns + "/aimservices" }

func (p *apiPath) create(ctx context.Context, ns string, body []byte) (time.Duration, error) {
	_, took, err := p.do(ctx, http.MethodPost, p.collection(ns), mediaJSON, mediaJSON, body, http.StatusCreated)
	return took, err
}

func (p *apiPath) patch(ctx context.Context, ns, name, subresource string, body []byte) (time.Duration, error) {
	url := p.collection(ns) + "/" + name
	if subresource != "" {
		url += "/" + subresource
	}
	_, took, err := p.do(ctx, http.MethodPatch, url, mergePatch, mediaJSON, body, http.StatusOK)
	return took, err
}

// list reads a collection with the query (without "?") in the media type; it returns the bytes received.
func (p *apiPath) list(ctx context.Context, ns, query, accept string) (int, time.Duration, error) {
	url := p.collection(ns)
	if query != "" {
		url += "?" + query
	}
	out, took, err := p.do(ctx, http.MethodGet, url, "", accept, nil, http.StatusOK)
	return len(out), took, err
}

// listPaged reads a collection in pages of limit objects, following continue tokens; the duration covers all
// pages.
func (p *apiPath) listPaged(ctx context.Context, ns string, limit int, accept string) (time.Duration, int, error) {
	var total time.Duration
	token := ""
	for pages := 1; ; pages++ {
		url := fmt.Sprintf("%s?limit=%d", p.collection(ns), limit)
		if token != "" {
			url += "&continue=" + neturl.QueryEscape(token)
		}
		out, took, err := p.do(ctx, http.MethodGet, url, "", accept, nil, http.StatusOK)
		if err != nil {
			return 0, 0, err
		}
		total += took
		meta, err := listMeta(out)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: reading a page: %w", p.name, err)
		}
		if token = meta.Continue; token == "" {
			return total, pages, nil
		}
	}
}

// deleteAll removes the namespace's AIMServices and waits until none is left.
func (p *apiPath) deleteAll(ctx context.Context, ns string) error {
	if _, _, err := p.do(ctx, http.MethodDelete, p.collection(ns), "", mediaJSON, nil, http.StatusOK); err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		out, _, err := p.do(ctx, http.MethodGet, p.collection(ns)+"?limit=1", "", mediaJSON, nil, http.StatusOK)
		if err != nil {
			return err
		}
		if !bytes.Contains(out, []byte(`"name":`)) {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("%s: AIMServices of %s still there after 5 minutes", p.name, ns)
}

// etcdBytes is the total size of the values under the path's keys of a namespace, and how many there are.
func etcdBytes(ctx context.Context, c *clientv3.Client, prefix string) (int, int, error) {
	resp, err := c.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return 0, 0, fmt.Errorf("reading %s from etcd: %w", prefix, err)
	}
	size := 0
	for _, kv := range resp.Kvs {
		size += len(kv.Value)
	}
	return size, len(resp.Kvs), nil
}

// listMeta is a list's metadata: decoded from JSON (where CRD lists put it after the items) or protobuf.
func listMeta(list []byte) (metav1.ListMeta, error) {
	if bytes.HasPrefix(list, []byte("{")) {
		var l struct {
			Metadata metav1.ListMeta `json:"metadata"`
		}
		err := json.Unmarshal(list, &l)
		return l.Metadata, err
	}
	obj, _, err := aimscheme.Codecs.UniversalDeserializer().Decode(list, nil, nil)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	l, ok := obj.(metav1.ListInterface)
	if !ok {
		return metav1.ListMeta{}, fmt.Errorf("%T is not a list", obj)
	}
	return metav1.ListMeta{ResourceVersion: l.GetResourceVersion(), Continue: l.GetContinue()}, nil
}
