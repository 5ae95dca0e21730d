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

// migrateJob is the migration as artifacts/deploy/migrate/job.yaml runs it, the test playing the kubelet: the
// Job's service account and binding applied from the manifest, its token and the cluster's CA mounted where
// client-go's in-cluster configuration reads them, kube-apiserver named by KUBERNETES_SERVICE_HOST and _PORT; the
// image's binary (make image) chrooted into the linux/amd64 image, its root read-only as the container asks, as
// the pod's user with its fsGroup; the etcd client Secret mounted with the Job's mode and the backup volume as
// an empty directory fsGroup owns. Without the right to mount (an unprivileged user namespace), the volumes are
// laid out inside the image's file system, which stays writable, and the binary runs as root of a user
// namespace: the image, its binary, the in-cluster configuration and the arguments are still what ships.
type migrateJob struct {
	fs        imagefs.FS
	job       batchv1.Job
	accounts  string
	user      imagefs.User
	fsGroup   int
	backupDir string
}

// prepareMigrateJob reads the Job and unpacks the image, before the test changes anything: a missing or stale
// image fails the test while the harness is as it was.
func prepareMigrateJob(t *testing.T) *migrateJob {
	t.Helper()
	accounts, job := readMigrateJob(t)
	sc := job.Spec.Template.Spec.SecurityContext
	if sc == nil || sc.RunAsUser == nil || sc.RunAsGroup == nil || sc.FSGroup == nil {
		t.Fatalf("the Job's pod sets no user, group and fsGroup: %+v", sc)
	}
	archive := imagefs.Open(t, imageArchive())
	img := archive.Images["linux/amd64"]
	if img == nil {
		t.Fatalf("%s has no linux/amd64 image", imageArchive())
	}
	sameVersion(t, archive)
	fs := imagefs.Unpack(t, img)
	j := &migrateJob{fs: fs, job: job, accounts: accounts,
		user:    imagefs.User{UID: uint32(*sc.RunAsUser), GID: uint32(*sc.RunAsGroup), Groups: []uint32{uint32(*sc.FSGroup)}},
		fsGroup: int(*sc.FSGroup)}
	if !j.fs.Privileged {
		t.Log("no right to mount: the migrate Job's volumes are laid out in the image's file system, its root stays writable, and it runs as root of a user namespace")
	}
	return j
}

// run runs the Job's container to its end with the Job's arguments, without --dry-run (the manifest says to
// remove it for the real run), its etcd address the harness's, and extra.
func (j *migrateJob) run(t *testing.T, extra ...string) (string, error) {
	t.Helper()
	k := admin(t)
	k.mustApply(j.accounts)
	t.Cleanup(func() { _, _ = k.run(j.accounts, "delete", "-f", "-", "--ignore-not-found") })
	pod := j.job.Spec.Template.Spec
	container := pod.Containers[0]

	cfg, err := clientcmd.BuildConfigFromFlags("", adminKC)
	must(t, err)
	server, err := url.Parse(cfg.Host)
	must(t, err)
	host, port, err := net.SplitHostPort(server.Host)
	must(t, err)
	token := strings.TrimSpace(k.must("create", "token", pod.ServiceAccountName, "-n", j.job.Namespace, "--duration=1h"))
	j.secretVolume(t, serviceAccountDir, map[string][]byte{"token": []byte(token), "ca.crt": cfg.CAData, "namespace": []byte(j.job.Namespace)}, 0o644)

	h := harness(t)
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
			mode := os.FileMode(0o644) // a Secret volume's default
			if v.Secret.DefaultMode != nil {
				mode = os.FileMode(*v.Secret.DefaultMode)
			}
			j.secretVolume(t, m.MountPath, files, mode)
		case v.PersistentVolumeClaim != nil:
			j.backupDir = j.volumeDir(t, m.MountPath)
			if j.fs.Privileged { // as the kubelet gives a volume to fsGroup
				must(t, os.Chown(j.backupDir, 0, j.fsGroup))
				must(t, os.Chmod(j.backupDir, 0o775|os.ModeSetgid))
			}
		default:
			t.Fatalf("the test does not mount volume %s of the Job", m.Name)
		}
	}
	if c := container.SecurityContext; j.fs.Privileged && c != nil && c.ReadOnlyRootFilesystem != nil && *c.ReadOnlyRootFilesystem {
		j.fs.ReadOnly(t)
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
	out, err := j.fs.Command(j.user, environ, append(args, extra...)...).CombinedOutput()
	t.Logf("the migrate Job's pod: aim-apiserver %s\n%s", strings.Join(append(args, extra...), " "), out)
	if entries, rerr := os.ReadDir(j.backupDir); rerr != nil || len(entries) == 0 {
		t.Errorf("nothing on the Job's backup volume: %v", rerr)
	}
	return string(out), err
}

// volumeDir is the directory on the host that holds the volume mounted at path in the image: a directory of its
// own bind-mounted there, or without the right to mount, path in the image's file system itself.
func (j *migrateJob) volumeDir(t *testing.T, path string) string {
	t.Helper()
	if !j.fs.Privileged {
		dir := j.fs.Path(path)
		must(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	dir := t.TempDir()
	j.fs.Mount(t, dir, path)
	return dir
}

// secretVolume lays files out at path in the image as the kubelet lays out a Secret volume of the pod.
func (j *migrateJob) secretVolume(t *testing.T, path string, files map[string][]byte, mode os.FileMode) {
	t.Helper()
	dir := j.volumeDir(t, path)
	must(t, os.Chmod(dir, 0o755))
	gid := j.fsGroup
	if !j.fs.Privileged {
		gid = 0 // root of a user namespace reads them; the fsGroup is not mapped into it
	}
	imagefs.MountLikeKubelet(t, dir, files, mode, gid)
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
