package etcdmaintenance

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aim-apiserver/aim-apiserver/test/s3server"
)

const testAccessKey = "AKIDAIMTEST"

// startS3 serves an S3 API with one bucket, admitting testAccessKey, and points the AWS SDK's default credential
// chain at that key, with nothing of the machine's AWS configuration.
func startS3(t *testing.T, bucket string) *s3server.Server {
	t.Helper()
	s3 := s3server.Start(t, bucket, testAccessKey, false)
	home := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": testAccessKey, "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "",
		"AWS_CONFIG_FILE": filepath.Join(home, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
	} {
		t.Setenv(k, v)
	}
	return s3
}

// TestSnapshotsInABucket: snapshots copied to an S3-compatible bucket under a prefix, the bucket pruned to keep,
// the newest downloaded and read back with the objects it was taken with.
func TestSnapshotsInABucket(t *testing.T) {
	cfg := startEtcd(t)
	c := newClient(t, cfg)
	endpoint := startS3(t, "backups").URL
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bucket, err := NewBucket(ctx, BucketConfig{Name: "backups", Prefix: "aim/prod/", Endpoint: endpoint, PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := bucket.URL(), "s3://backups/aim/prod/"; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}

	var last *Saved
	var want map[string]string
	for i := range 3 {
		if _, err := c.Put(ctx, prefix+"aimservices/ns/svc", "value "+string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
		want = state(t, c)
		last, err = Save(ctx, cfg, t.TempDir(), prefix, 0, time.Date(2026, 11, 26, 10, i, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		removed, err := last.CopyTo(ctx, bucket, 2)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 && !cmp.Equal(removed, []string{"aim-etcd-20261126T100000Z.db"}) {
			t.Errorf("the third copy removed %v, want the oldest snapshot", removed)
		}
	}
	names, err := bucket.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"aim-etcd-20261126T100100Z.db", "aim-etcd-20261126T100200Z.db"}, names); diff != "" {
		t.Errorf("snapshots in the bucket (-want +got):\n%s", diff)
	}

	dir := t.TempDir()
	path, err := bucket.Download(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, filepath.Base(last.Path)) {
		t.Errorf("downloaded the newest into %s, want %s", path, filepath.Join(dir, filepath.Base(last.Path)))
	}
	content, err := Read(path, prefix)
	if err != nil {
		t.Fatalf("the downloaded snapshot does not read: %v", err)
	}
	got := map[string]string{}
	for _, kv := range content.KVs {
		got[string(kv.Key)] = string(kv.Value)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects of the downloaded snapshot (-want +got):\n%s", diff)
	}

	if _, err := bucket.Download(ctx, "../../etc/passwd", dir); err == nil || !strings.Contains(err.Error(), "not the name of a snapshot") {
		t.Errorf("downloading a path: %v, want a refusal", err)
	}
	if _, err := bucket.Download(ctx, "aim-etcd-20261126T100000Z.db", dir); err == nil || !strings.Contains(err.Error(), "s3://backups/aim/prod/") {
		t.Errorf("downloading a pruned snapshot: %v, want an error naming the bucket", err)
	}
}

// TestBucketRefusesCredentials: an error that says which bucket refused and why, and no snapshot claimed saved.
func TestBucketRefusesCredentials(t *testing.T) {
	s3 := startS3(t, "backups")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDSOMEONEELSE")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bucket, err := NewBucket(ctx, BucketConfig{Name: "backups", Endpoint: s3.URL, PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bucket.Snapshots(ctx)
	if err == nil || !strings.Contains(err.Error(), "s3://backups/") || !strings.Contains(err.Error(), "InvalidAccessKeyId") {
		t.Errorf("listing with a key the bucket refuses: %v, want an error naming the bucket and the refusal", err)
	}
	if s3.Requests.Load() == 0 {
		t.Error("no request reached the S3 server")
	}
}
