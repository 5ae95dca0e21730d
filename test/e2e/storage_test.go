//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/util/cert"

	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

// harnessEtcd connects to the etcd aim-apiserver stores in, with aim-apiserver's own client certificate.
func harnessEtcd(t *testing.T) *clientv3.Client {
	t.Helper()
	return harness(t).etcd(t)
}

// etcd connects to the server's etcd with its flags (which stay known after the process exits).
func (h *harnessServer) etcd(t *testing.T) *clientv3.Client {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(harnessdir.Flag(h.Args, "--etcd-certfile"), harnessdir.Flag(h.Args, "--etcd-keyfile"))
	must(t, err)
	pool, err := cert.NewPool(harnessdir.Flag(h.Args, "--etcd-cafile"))
	must(t, err)
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{harnessdir.Flag(h.Args, "--etcd-servers")}, DialTimeout: 10 * time.Second,
		TLS: &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}})
	must(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// storedBytes is the value of an AIM object's etcd key.
func storedBytes(t *testing.T, c *clientv3.Client, resource, ns, name string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, fmt.Sprintf("/registry/aim.eai.amd.com/aim.eai.amd.com/%s/%s/%s", resource, ns, name))
	must(t, err)
	if len(resp.Kvs) != 1 {
		t.Fatalf("etcd key of %s %s/%s: %d values", resource, ns, name, len(resp.Kvs))
	}
	return resp.Kvs[0].Value
}

// protobufMagic starts every object Kubernetes stores in protobuf; zstdMagic every zstd frame.
var (
	protobufMagic = []byte("k8s\x00")
	zstdMagic     = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// decompressed is a stored value without its zstd compression (--storage-compression); it fails the test
// unless the value was compressed.
func decompressed(t *testing.T, stored []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(stored, zstdMagic) {
		t.Fatalf("stored value %q is not compressed", stored[:min(len(stored), 64)])
	}
	dec, err := zstd.NewReader(nil)
	must(t, err)
	defer dec.Close()
	out, err := dec.DecodeAll(stored, nil)
	must(t, err)
	return out
}

// TestStorageIsProtobuf: AIM objects are stored in protobuf, compressed; an object the previous release stored
// as JSON is read as it was, served to kubectl, and stored in compressed protobuf from its next update on (no
// migration step).
func TestStorageIsProtobuf(t *testing.T) {
	k := admin(t)
	ns := namespace(t, "storage")
	etcd := harnessEtcd(t)
	k.mustApply(`
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMService
metadata: {name: fresh, namespace: ` + ns + `}
spec: {model: {name: qwen}, replicas: 2}
---
apiVersion: aim.eai.amd.com/v1alpha1
kind: AIMService
metadata: {name: legacy, namespace: ` + ns + `}
spec: {model: {name: qwen}, replicas: 3, env: [{name: MODE, value: json}]}
`)
	if got := decompressed(t, storedBytes(t, etcd, "aimservices", ns, "fresh")); !bytes.HasPrefix(got, protobufMagic) {
		t.Fatalf("a new object is stored as %q, want protobuf", got[:min(len(got), 64)])
	}

	// What the previous release stored: the v1alpha1 object in JSON, without a resourceVersion.
	var obj map[string]any
	must(t, json.Unmarshal([]byte(k.must("get", "aimservice", "legacy", "-n", ns, "-o", "json")), &obj))
	delete(obj["metadata"].(map[string]any), "resourceVersion")
	legacy, err := json.Marshal(obj)
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = etcd.Put(ctx, fmt.Sprintf("/registry/aim.eai.amd.com/aim.eai.amd.com/aimservices/%s/legacy", ns), string(legacy))
	must(t, err)

	jsonpathEquals(t, 30*time.Second, "3 json", "aimservice", "legacy", "-n", ns, "-o", `jsonpath={.spec.replicas} {.spec.env[0].value}`)
	contains(t, "kubectl get -o yaml of the JSON-stored object", k.must("get", "aimsvc", "legacy", "-n", ns, "-o", "yaml"),
		"name: legacy", "replicas: 3", "value: json")
	if got := storedBytes(t, etcd, "aimservices", ns, "legacy"); !bytes.HasPrefix(got, []byte("{")) {
		t.Fatalf("reading rewrote the object: %q", got[:min(len(got), 64)])
	}
	k.must("label", "aimservice", "legacy", "-n", ns, "updated=yes")
	got := storedBytes(t, etcd, "aimservices", ns, "legacy")
	if plain := decompressed(t, got); !bytes.HasPrefix(plain, protobufMagic) {
		t.Fatalf("after an update the object is stored as %q, want protobuf", plain[:min(len(plain), 64)])
	}
	jsonpathEquals(t, 30*time.Second, "3 json yes", "aimservice", "legacy", "-n", ns, "-o",
		`jsonpath={.spec.replicas} {.spec.env[0].value} {.metadata.labels.updated}`)
	if len(got) >= len(legacy) {
		t.Errorf("compressed protobuf %d bytes, JSON %d bytes: it should be smaller", len(got), len(legacy))
	}
}
