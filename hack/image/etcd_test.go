//go:build image

package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
	"github.com/aim-apiserver/aim-apiserver/pkg/embeddedetcd"
	"github.com/aim-apiserver/aim-apiserver/test/imagefs"
	"github.com/aim-apiserver/aim-apiserver/test/s3server"
)

// chartCronJob is the container of a CronJob of the chart rendered with its default values and helmArgs.
func chartCronJob(t *testing.T, name string, helmArgs ...string) corev1.Container {
	t.Helper()
	args := append([]string{"template", "aim-apiserver", filepath.Join("..", "..", "artifacts", "charts", "aim-apiserver"),
		"--namespace", "aim-system", "--show-only", "templates/etcd/maintenance.yaml"}, helmArgs...)
	out, err := exec.Command(env(t, "HELM"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	for _, doc := range strings.Split(string(out), "\n---") {
		var cj batchv1.CronJob
		if err := yaml.Unmarshal([]byte(doc), &cj); err == nil && cj.Kind == "CronJob" && cj.Name == name {
			return cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0]
		}
	}
	t.Fatalf("the chart renders no CronJob %s:\n%s", name, out)
	return corev1.Container{}
}

// chartCronJobArgs are the args of a CronJob of the chart rendered with its default values.
func chartCronJobArgs(t *testing.T, name string) []string {
	return chartCronJob(t, name).Args
}

// containerEnv is the environment the kubelet gives a container: its env, with secretKeyRef values from secrets.
func containerEnv(t *testing.T, c corev1.Container, secrets map[string]map[string]string) []string {
	t.Helper()
	var out []string
	for _, e := range c.Env {
		v := e.Value
		if ref := e.ValueFrom; ref != nil {
			if ref.SecretKeyRef == nil {
				t.Fatalf("env %s: only secretKeyRef is resolved here", e.Name)
			}
			var ok bool
			if v, ok = secrets[ref.SecretKeyRef.Name][ref.SecretKeyRef.Key]; !ok {
				t.Fatalf("env %s: no key %s in Secret %s", e.Name, ref.SecretKeyRef.Key, ref.SecretKeyRef.Name)
			}
		}
		out = append(out, e.Name+"="+v)
	}
	return out
}

// etcdPKI writes a CA and a certificate that serves 127.0.0.1 and authenticates clients into dir, as the etcd
// certs init container's Secrets hold them (tls.crt, tls.key, ca.crt).
func etcdPKI(t *testing.T, dir string) {
	t.Helper()
	now := time.Now()
	caPEM, caKey, err := certgen.Issue(certgen.Request{CommonName: "aim-etcd-ca", CA: true, NotBefore: now, NotAfter: now.Add(time.Hour)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := certgen.ParseIssuer(caPEM, caKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := certgen.Issue(certgen.Request{CommonName: "aim-etcd", Hosts: []string{"127.0.0.1", "localhost"},
		Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, NotBefore: now, NotAfter: now.Add(time.Hour)}, ca)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"ca.crt": caPEM, "tls.crt": cert, "tls.key": key} {
		// 0444 as the kubelet's Secret volume with the chart's defaultMode and fsGroup lets the image's user read it.
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImageEtcdMaintenance: the chart's snapshot and defrag CronJobs, run as they ship: their args from the chart,
// the image's binary chrooted into the image's file system as its user, the client certificate mounted where the
// chart mounts it and a volume for the snapshots. A snapshot of a real etcd is written and kept, restored by the
// image's binary into a new, empty etcd with every key, and the defragmentation reaches the member.
// startImageEtcd runs an etcd on loopback with the certificates of pki (etcdPKI) and returns its URL and a client.
func startImageEtcd(t *testing.T, pki string) (string, *clientv3.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := embeddedetcd.Start(ctx, embeddedetcd.Options{Dir: filepath.Join(t.TempDir(), "etcd"), UnsafeNoFsync: true,
		CAFile: filepath.Join(pki, "ca.crt"), CertFile: filepath.Join(pki, "tls.crt"), KeyFile: filepath.Join(pki, "tls.key")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	tlsConfig, err := transport.TLSInfo{CertFile: filepath.Join(pki, "tls.crt"), KeyFile: filepath.Join(pki, "tls.key"),
		TrustedCAFile: filepath.Join(pki, "ca.crt")}.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.ClientURL()}, DialTimeout: 10 * time.Second, TLS: tlsConfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return srv.ClientURL(), c
}

// restoreInImage runs docs/operations.md's restore Job's command (with extra args) in the image against the etcd
// at target and checks that it wrote the keys back.
func restoreInImage(t *testing.T, root imagefs.FS, environ []string, target string, c *clientv3.Client, keys int, extra ...string) {
	t.Helper()
	args := append([]string{"etcd", "restore", "--dir=/var/lib/aim-etcd-snapshots", "--etcd-servers=" + target,
		"--etcd-cafile=/var/run/aim-apiserver/etcd-client/ca.crt", "--etcd-certfile=/var/run/aim-apiserver/etcd-client/tls.crt",
		"--etcd-keyfile=/var/run/aim-apiserver/etcd-client/tls.key"}, extra...)
	if out, err := inImage(t, root, environ, args...); err != nil || !strings.Contains(out, fmt.Sprintf("written %d, present already 0", keys)) {
		t.Fatalf("restore (docs/operations.md's Job) %v in the image: %v\n%s", extra, err, out)
	}
	resp, err := c.Get(context.Background(), "/registry/aim.eai.amd.com/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != int64(keys) {
		t.Errorf("the new etcd holds %v keys after the restore %v: %v", resp, extra, err)
	}
}

// writableDir makes dir, writable by the image's user as an emptyDir or a volume with the chart's fsGroup is.
func writableDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
}

// withEtcd are the chart's args pointed at an etcd on loopback instead of the in-cluster Service.
func withEtcd(args []string, url string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "--etcd-servers=") {
			a = "--etcd-servers=" + url
		}
		out = append(out, a)
	}
	return out
}

func TestImageEtcdMaintenance(t *testing.T) {
	root := rootFS(t)
	// The chart mounts the client Secret at /var/run/aim-apiserver/etcd-client and the PVC at
	// /var/lib/aim-etcd-snapshots (writable through fsGroup).
	pki := root.Path("var", "run", "aim-apiserver", "etcd-client")
	etcdPKI(t, pki)
	snapshots := root.Path("var", "lib", "aim-etcd-snapshots")
	writableDir(t, snapshots)
	ctx := context.Background()

	source, sc := startImageEtcd(t, pki)
	for i := range 5 {
		if _, err := sc.Put(ctx, fmt.Sprintf("/registry/aim.eai.amd.com/aim.eai.amd.com/aimmodels/team/m%d", i), "value"); err != nil {
			t.Fatal(err)
		}
	}
	out, err := inImage(t, root, nil, withEtcd(chartCronJobArgs(t, "aim-etcd-snapshot"), source)...)
	if err != nil || !strings.Contains(out, "saved /var/lib/aim-etcd-snapshots/aim-etcd-") || !strings.Contains(out, "5 keys under /registry/aim.eai.amd.com") {
		t.Fatalf("the snapshot CronJob's command in the image: %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(snapshots, "aim-etcd-*.db"))
	if err != nil || len(files) != 1 {
		t.Fatalf("snapshots on the volume: %v %v", files, err)
	}

	target, tc := startImageEtcd(t, pki)
	restoreInImage(t, root, nil, target, tc, 5)

	if out, err := inImage(t, root, nil, withEtcd(chartCronJobArgs(t, "aim-etcd-defrag"), source)...); err != nil || !strings.Contains(out, "skipped") {
		t.Errorf("the defrag CronJob's command in the image: %v\n%s", err, out)
	}
}

// TestImageEtcdSnapshotsInABucket: the chart's snapshot CronJob with a bucket only (no volume), run by the image's
// binary with the environment and mounts the chart gives it: the keys from the credentials Secret, an S3 service
// over TLS whose certificate only the CA in extraCACertificates signs; then docs/operations.md's restore from the
// bucket into an empty etcd.
func TestImageEtcdSnapshotsInABucket(t *testing.T) {
	root := rootFS(t)
	pki := root.Path("var", "run", "aim-apiserver", "etcd-client")
	etcdPKI(t, pki)
	scratch := root.Path("var", "lib", "aim-etcd-snapshots")
	writableDir(t, scratch)
	s3 := s3server.Start(t, "aim-backups", "AKIDIMAGETEST", true)
	cas := root.Path("etc", "aim-apiserver", "ca-certificates")
	if err := os.MkdirAll(cas, 0o755); err != nil {
		t.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s3.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(cas, "storage-ca.crt"), caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	container := chartCronJob(t, "aim-etcd-snapshot", "--set", "etcd.backup.s3.bucket=aim-backups",
		"--set", "etcd.backup.s3.prefix=prod", "--set", "etcd.backup.s3.endpoint="+s3.URL, "--set", "etcd.backup.s3.pathStyle=true",
		"--set", "etcd.backup.s3.credentialsSecret=aim-etcd-s3", "--set", "etcd.backup.storage.persistent=false",
		"--set", "extraCACertificates.configMap=storage-ca")
	environ := containerEnv(t, container, map[string]map[string]string{
		"aim-etcd-s3": {"AWS_ACCESS_KEY_ID": s3.AccessKey, "AWS_SECRET_ACCESS_KEY": "secret"}})

	source, sc := startImageEtcd(t, pki)
	ctx := context.Background()
	for i := range 3 {
		if _, err := sc.Put(ctx, fmt.Sprintf("/registry/aim.eai.amd.com/aim.eai.amd.com/aimservices/team/s%d", i), "value"); err != nil {
			t.Fatal(err)
		}
	}
	out, err := inImage(t, root, environ, withEtcd(container.Args, source)...)
	if err != nil || !strings.Contains(out, "copied to s3://aim-backups/prod/aim-etcd-") {
		t.Fatalf("the snapshot CronJob's command with a bucket, in the image: %v\n%s", err, out)
	}

	// The cluster is gone: a new etcd, an empty scratch volume, the bucket.
	if err := os.RemoveAll(scratch); err != nil {
		t.Fatal(err)
	}
	writableDir(t, scratch)
	target, tc := startImageEtcd(t, pki)
	restoreInImage(t, root, environ, target, tc, 3, "--s3-bucket=aim-backups", "--s3-prefix=prod", "--s3-endpoint="+s3.URL, "--s3-path-style")

	// Without the mounted CA the image trusts only public roots: the upload fails and says so.
	var noCA []string
	for _, e := range environ {
		if !strings.HasPrefix(e, "SSL_CERT_DIR=") {
			noCA = append(noCA, e)
		}
	}
	if out, err := inImage(t, root, noCA, withEtcd(container.Args, source)...); err == nil || !strings.Contains(out, "certificate") {
		t.Errorf("a bucket behind a private CA without extraCACertificates: %v\n%s", err, out)
	}
}
