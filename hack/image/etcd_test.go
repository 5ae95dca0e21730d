//go:build image

package main

import (
	"context"
	"crypto/x509"
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
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/certgen"
	"github.com/aim-apiserver/aim-apiserver/pkg/embeddedetcd"
)

// chartCronJobArgs are the args of a CronJob of the chart rendered with its default values.
func chartCronJobArgs(t *testing.T, name string) []string {
	t.Helper()
	out, err := exec.Command(env(t, "HELM"), "template", "aim-apiserver", filepath.Join("..", "..", "artifacts", "charts", "aim-apiserver"),
		"--namespace", "aim-system", "--show-only", "templates/etcd/maintenance.yaml").CombinedOutput()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	for _, doc := range strings.Split(string(out), "\n---") {
		var cj batchv1.CronJob
		if err := yaml.Unmarshal([]byte(doc), &cj); err == nil && cj.Kind == "CronJob" && cj.Name == name {
			return cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args
		}
	}
	t.Fatalf("the chart renders no CronJob %s:\n%s", name, out)
	return nil
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
func TestImageEtcdMaintenance(t *testing.T) {
	root := rootFS(t)
	// The chart mounts the client Secret at /var/run/aim-apiserver/etcd-client and the PVC at
	// /var/lib/aim-etcd-snapshots (writable through fsGroup).
	pki := filepath.Join(root, "var", "run", "aim-apiserver", "etcd-client")
	etcdPKI(t, pki)
	snapshots := filepath.Join(root, "var", "lib", "aim-etcd-snapshots")
	if err := os.MkdirAll(snapshots, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(snapshots, 0o777); err != nil {
		t.Fatal(err)
	}
	start := func() (string, *clientv3.Client) {
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
	// The chart's args, pointed at an etcd on loopback instead of the in-cluster Service.
	at := func(args []string, url string) []string {
		var out []string
		for _, a := range args {
			if strings.HasPrefix(a, "--etcd-servers=") {
				a = "--etcd-servers=" + url
			}
			out = append(out, a)
		}
		return out
	}
	ctx := context.Background()

	source, sc := start()
	for i := range 5 {
		if _, err := sc.Put(ctx, fmt.Sprintf("/registry/aim.eai.amd.com/aim.eai.amd.com/aimmodels/team/m%d", i), "value"); err != nil {
			t.Fatal(err)
		}
	}
	out, err := inImage(t, root, nil, at(chartCronJobArgs(t, "aim-etcd-snapshot"), source)...)
	if err != nil || !strings.Contains(out, "saved /var/lib/aim-etcd-snapshots/aim-etcd-") || !strings.Contains(out, "5 keys under /registry/aim.eai.amd.com") {
		t.Fatalf("the snapshot CronJob's command in the image: %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(snapshots, "aim-etcd-*.db"))
	if err != nil || len(files) != 1 {
		t.Fatalf("snapshots on the volume: %v %v", files, err)
	}

	target, tc := start()
	restore := []string{"etcd", "restore", "--dir=/var/lib/aim-etcd-snapshots", "--etcd-servers=" + target,
		"--etcd-cafile=/var/run/aim-apiserver/etcd-client/ca.crt", "--etcd-certfile=/var/run/aim-apiserver/etcd-client/tls.crt",
		"--etcd-keyfile=/var/run/aim-apiserver/etcd-client/tls.key"}
	if out, err := inImage(t, root, nil, restore...); err != nil || !strings.Contains(out, "written 5, present already 0") {
		t.Fatalf("restore (docs/operations.md's Job) in the image: %v\n%s", err, out)
	}
	resp, err := tc.Get(ctx, "/registry/aim.eai.amd.com/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 5 {
		t.Errorf("the new etcd holds %v keys after the restore: %v", resp, err)
	}

	if out, err := inImage(t, root, nil, at(chartCronJobArgs(t, "aim-etcd-defrag"), source)...); err != nil || !strings.Contains(out, "skipped") {
		t.Errorf("the defrag CronJob's command in the image: %v\n%s", err, out)
	}
}
