package etcdmaintenance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
	"github.com/aim-apiserver/aim-apiserver/pkg/embeddedetcd"
)

const prefix = "/registry/aim.eai.amd.com/"

// startEtcd runs a real etcd (embedded, TLS) and returns a client configuration for it.
func startEtcd(t *testing.T) clientv3.Config {
	t.Helper()
	dir := t.TempDir()
	now := time.Now()
	caPEM, caKey, err := certgen.Issue(certgen.Request{CommonName: "ca", CA: true, NotBefore: now, NotAfter: now.Add(time.Hour)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := certgen.ParseIssuer(caPEM, caKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := certgen.Issue(certgen.Request{CommonName: "etcd", Hosts: []string{"127.0.0.1", "localhost"},
		Usages:    []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		NotBefore: now, NotAfter: now.Add(time.Hour)}, ca)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"ca.crt": caPEM, "tls.crt": cert, "tls.key": key}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := embeddedetcd.Start(ctx, embeddedetcd.Options{Dir: filepath.Join(dir, "data"), UnsafeNoFsync: true,
		CAFile: filepath.Join(dir, "ca.crt"), CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	return clientv3.Config{Endpoints: []string{srv.ClientURL()}, DialTimeout: 10 * time.Second,
		TLS: &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: roots, MinVersion: tls.VersionTLS12}}
}

func newClient(t *testing.T, cfg clientv3.Config) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// state is every key and value under prefix.
func state(t *testing.T, c *clientv3.Client) map[string]string {
	t.Helper()
	resp, err := c.Get(context.Background(), prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = string(kv.Value)
	}
	return out
}

func put(t *testing.T, c *clientv3.Client, key, value string, opts ...clientv3.OpOption) {
	t.Helper()
	if _, err := c.Put(context.Background(), key, value, opts...); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotAndRestore: a snapshot holds the latest value of every AIM key (not deleted ones, not other
// prefixes), old snapshots are pruned to the count, a damaged file is refused, and a restore writes back the
// missing keys byte for byte, leaves keys that exist alone, skips leased keys, and moves the revision forward.
func TestSnapshotAndRestore(t *testing.T) {
	ctx := context.Background()
	cfg := startEtcd(t)
	c := newClient(t, cfg)
	for i := range 20 {
		put(t, c, fmt.Sprintf("%saimservices/team/svc-%02d", prefix, i), fmt.Sprintf("value-%d", i))
	}
	put(t, c, prefix+"aimservices/team/svc-00", "updated") // an older revision of it stays in the database
	put(t, c, "/registry/pods/team/p", "not ours")
	if _, err := c.Delete(ctx, prefix+"aimservices/team/svc-19"); err != nil {
		t.Fatal(err)
	}
	lease, err := c.Grant(ctx, 600)
	if err != nil {
		t.Fatal(err)
	}
	put(t, c, prefix+"events/team/e", "short-lived", clientv3.WithLease(lease.ID))
	want := state(t, c)

	dir := t.TempDir()
	var saved []*Saved
	for i := range 3 {
		s, err := Save(ctx, cfg, dir, prefix, 2, time.Date(2026, 11, 26, 10, i, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, s)
	}
	if saved[2].Objects != len(want) || saved[2].Revision == 0 || saved[2].Size == 0 {
		t.Errorf("saved %+v, want %d objects", saved[2], len(want))
	}
	if diff := cmp.Diff([]string{saved[0].Path}, saved[2].Removed); diff != "" {
		t.Errorf("pruned (-want +got):\n%s", diff)
	}
	files, err := Snapshots(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{saved[1].Path, saved[2].Path}, files); diff != "" {
		t.Errorf("snapshots kept (-want +got):\n%s", diff)
	}

	content, err := Read(saved[2].Path, prefix)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range content.KVs {
		got[string(kv.Key)] = string(kv.Value)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("snapshot content (-live +snapshot):\n%s", diff)
	}

	damaged := filepath.Join(t.TempDir(), "damaged.db")
	data, err := os.ReadFile(saved[2].Path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(damaged, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(damaged, prefix); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged snapshot: %v", err)
	}

	// The store is lost but for one object, which was changed since.
	if _, err := c.Delete(ctx, prefix, clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	put(t, c, prefix+"aimservices/team/svc-05", "changed since")
	before, err := c.Get(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	dry, err := Restore(ctx, c, content, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(state(t, c)) != 1 {
		t.Error("a dry run wrote")
	}
	r, err := Restore(ctx, c, content, false)
	if err != nil {
		t.Fatal(err)
	}
	wantRestored := &Restored{Written: len(want) - 2, Differ: []string{prefix + "aimservices/team/svc-05"}, Leased: 1}
	if diff := cmp.Diff(wantRestored, r); diff != "" {
		t.Errorf("restore (-want +got):\n%s", diff)
	}
	if dry.Written != r.Written {
		t.Errorf("dry run would write %d, the restore wrote %d", dry.Written, r.Written)
	}
	after := state(t, c)
	delete(want, prefix+"events/team/e")
	want[prefix+"aimservices/team/svc-05"] = "changed since"
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("restored state (-want +got):\n%s", diff)
	}
	now, err := c.Get(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	if now.Header.Revision <= before.Header.Revision || now.Header.Revision <= content.Revision {
		t.Errorf("revision went from %d to %d (snapshot %d): it must only go forward", before.Header.Revision, now.Header.Revision, content.Revision)
	}
	again, err := Restore(ctx, c, content, false)
	if err != nil {
		t.Fatal(err)
	}
	if again.Written != 0 || again.Unchanged != len(want)-1 {
		t.Errorf("a second restore: %+v", again)
	}

	// Into a new, empty etcd (moving the store): every AIM key with its stored value, nothing else.
	fresh := newClient(t, startEtcd(t))
	moved, err := Restore(ctx, fresh, content, false)
	if err != nil {
		t.Fatal(err)
	}
	wantMoved := map[string]string{}
	for _, kv := range content.KVs {
		if kv.Lease == 0 {
			wantMoved[string(kv.Key)] = string(kv.Value)
		}
	}
	if diff := cmp.Diff(wantMoved, state(t, fresh)); diff != "" || moved.Written != len(wantMoved) {
		t.Errorf("restored into an empty etcd: written %d (-want +got):\n%s", moved.Written, diff)
	}
	if other, err := fresh.Get(ctx, "/registry/pods/", clientv3.WithPrefix()); err != nil || len(other.Kvs) != 0 {
		t.Errorf("keys outside the prefix were restored: %v %v", other, err)
	}
}

// TestDefragment: a member with enough free space is defragmented and its file shrinks; below the thresholds it is
// skipped.
func TestDefragment(t *testing.T) {
	ctx := context.Background()
	cfg := startEtcd(t)
	c := newClient(t, cfg)
	big := strings.Repeat("x", 64*1024)
	for i := range 200 {
		put(t, c, fmt.Sprintf("%sblob/%d", prefix, i), big)
	}
	resp, err := c.Delete(ctx, prefix+"blob/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	// The pages compaction freed count as free once no read transaction holds them: later writes and commits
	// (every 100ms) release them.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		put(t, c, prefix+"tick", time.Now().String())
		st, err := c.Status(ctx, cfg.Endpoints[0])
		if err != nil {
			t.Fatal(err)
		}
		if st.DbSize-st.DbSizeInUse > 10<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("compaction freed nothing: size %d, in use %d", st.DbSize, st.DbSizeInUse)
		}
	}

	plan, err := Defragment(ctx, c, 1<<40, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 1 || !plan[0].Skipped || !plan[0].Leader {
		t.Fatalf("below the threshold: %+v", plan)
	}
	plan, err = Defragment(ctx, c, 1<<20, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if plan[0].Skipped || plan[0].SizeAfter >= plan[0].Size || plan[0].Size < 10<<20 {
		t.Errorf("defragmentation: %+v", plan[0])
	}
	if !slices.ContainsFunc(plan, func(m MemberDefrag) bool { return m.Endpoint == cfg.Endpoints[0] }) {
		t.Errorf("members %+v do not include %s", plan, cfg.Endpoints[0])
	}
}
