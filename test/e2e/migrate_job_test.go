//go:build e2e

package e2e

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
	"github.com/aim-apiserver/aim-apiserver/test/imagefs"
)

// migrateJobManifest is how docs/migration.md runs the migration in the cluster.
var migrateJobManifest = filepath.Join(root, "artifacts", "deploy", "migrate", "job.yaml")

// serviceAccountDir is where client-go's in-cluster configuration reads the pod's token and CA.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// imageArchive is the image `make image` wrote (make test builds it before the end-to-end suites run).
func imageArchive() string {
	if p := os.Getenv("IMAGE_TARBALL"); p != "" {
		return p
	}
	return filepath.Join(root, "_output", "aim-apiserver-image.tar")
}

// runMigrateJob runs the migration as artifacts/deploy/migrate/job.yaml runs it, the test playing the kubelet:
// the Job's service account and binding applied from the manifest, its token and the cluster's CA mounted where
// client-go's in-cluster configuration reads them, kube-apiserver named by KUBERNETES_SERVICE_HOST and _PORT; the
// image's binary (make image) chrooted into the linux/amd64 image, its root read-only as the container asks, as
// the pod's user with its fsGroup; the etcd client Secret mounted with the Job's mode and the backup volume as
// an empty directory fsGroup owns. The arguments are the Job's without --dry-run (the manifest says to remove
// it for the real run), its etcd address the harness's, and extra.
func runMigrateJob(t *testing.T, extra ...string) (string, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("running the migrate Job's pod (its user, its mounts, a read-only root) needs root")
	}
	k := admin(t)
	accounts, job := readMigrateJob(t)
	k.mustApply(accounts)
	t.Cleanup(func() { _, _ = k.run(accounts, "delete", "-f", "-", "--ignore-not-found") })
	pod := job.Spec.Template.Spec
	container := pod.Containers[0]
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsUser == nil || sc.RunAsGroup == nil || sc.FSGroup == nil {
		t.Fatalf("the Job's pod sets no user, group and fsGroup: %+v", sc)
	}
	user := imagefs.User{UID: uint32(*sc.RunAsUser), GID: uint32(*sc.RunAsGroup), Groups: []uint32{uint32(*sc.FSGroup)}}
	fsGroup := int(*sc.FSGroup)

	archive := imagefs.Open(t, imageArchive())
	img := archive.Images["linux/amd64"]
	if img == nil {
		t.Fatalf("%s has no linux/amd64 image", imageArchive())
	}
	sameVersion(t, archive)
	fs := imagefs.Unpack(t, img)

	cfg, err := clientcmd.BuildConfigFromFlags("", adminKC)
	must(t, err)
	server, err := url.Parse(cfg.Host)
	must(t, err)
	host, port, err := net.SplitHostPort(server.Host)
	must(t, err)
	token := strings.TrimSpace(k.must("create", "token", pod.ServiceAccountName, "-n", job.Namespace, "--duration=1h"))
	volume(t, fs, serviceAccountDir, map[string][]byte{"token": []byte(token), "ca.crt": cfg.CAData, "namespace": []byte(job.Namespace)}, 0o644, fsGroup)

	h := harness(t)
	backup := ""
	for _, m := range container.VolumeMounts {
		v := podVolume(t, pod, m.Name)
		switch {
		case v.Secret != nil && v.Secret.SecretName == "aim-apiserver-etcd-client":
			files := map[string][]byte{}
			for key, flag := range map[string]string{"ca.crt": "--etcd-cafile", "tls.crt": "--etcd-certfile", "tls.key": "--etcd-keyfile"} {
				data, err := os.ReadFile(harnessdir.Flag(h.Args, flag))
				must(t, err)
				files[key] = data
			}
			volume(t, fs, m.MountPath, files, os.FileMode(*v.Secret.DefaultMode), fsGroup)
		case v.PersistentVolumeClaim != nil:
			backup = t.TempDir()
			must(t, os.Chown(backup, 0, fsGroup))
			must(t, os.Chmod(backup, 0o775|os.ModeSetgid))
			fs.Mount(t, backup, m.MountPath)
		default:
			t.Fatalf("the test does not mount volume %s of the Job", m.Name)
		}
	}
	if c := container.SecurityContext; c != nil && c.ReadOnlyRootFilesystem != nil && *c.ReadOnlyRootFilesystem {
		fs.ReadOnly(t)
	}

	var args []string
	for _, a := range container.Args {
		switch {
		case a == "--dry-run":
		case strings.HasPrefix(a, "--etcd-servers="):
			args = append(args, "--etcd-servers="+harnessdir.Flag(h.Args, "--etcd-servers"))
		default:
			args = append(args, a)
		}
	}
	environ := []string{"KUBERNETES_SERVICE_HOST=" + host, "KUBERNETES_SERVICE_PORT=" + port}
	for _, e := range container.Env {
		environ = append(environ, e.Name+"="+e.Value)
	}
	out, err := fs.Command(user, environ, append(args, extra...)...).CombinedOutput()
	t.Logf("the migrate Job's pod: aim-apiserver %s\n%s", strings.Join(append(args, extra...), " "), out)
	if entries, rerr := os.ReadDir(backup); rerr != nil || len(entries) == 0 {
		t.Errorf("nothing on the Job's backup volume: %v", rerr)
	}
	return string(out), err
}

// readMigrateJob returns the manifest's service account and binding (as YAML to apply) and its Job.
func readMigrateJob(t *testing.T) (string, batchv1.Job) {
	t.Helper()
	data, err := os.ReadFile(migrateJobManifest)
	must(t, err)
	var accounts []string
	var job batchv1.Job
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta struct{ Kind string }
		must(t, yaml.Unmarshal([]byte(doc), &meta))
		switch meta.Kind {
		case "ServiceAccount", "ClusterRoleBinding":
			accounts = append(accounts, doc)
		case "Job":
			must(t, yaml.Unmarshal([]byte(doc), &job))
		}
	}
	if len(accounts) != 2 || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%s: want a service account, a binding and a Job of one container", migrateJobManifest)
	}
	return strings.Join(accounts, "\n---\n"), job
}

// podVolume is the pod's volume of that name.
func podVolume(t *testing.T, pod corev1.PodSpec, name string) corev1.Volume {
	t.Helper()
	for _, v := range pod.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("the Job mounts volume %s, which its pod does not have", name)
	return corev1.Volume{}
}

// volume mounts files at path in the image as the kubelet mounts a Secret volume.
func volume(t *testing.T, fs imagefs.FS, path string, files map[string][]byte, mode os.FileMode, gid int) {
	t.Helper()
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0o755))
	imagefs.MountLikeKubelet(t, dir, files, mode, gid)
	fs.Mount(t, dir, path)
}

// sameVersion fails the test when the image is of another version than this checkout (hack/version.sh, which
// make gives the image): an image left from an earlier `make image` would test old code.
func sameVersion(t *testing.T, archive imagefs.Archive) {
	t.Helper()
	out, err := exec.Command(filepath.Join(root, "hack", "version.sh")).Output()
	must(t, err)
	if want := strings.TrimSpace(string(out)); archive.RefName != want {
		t.Fatalf("%s holds version %q, this checkout is %q: run make image", imageArchive(), archive.RefName, want)
	}
}
