// Package imagefs unpacks the image archive `make image` writes (a tar of an OCI layout with an index of one image
// per platform) and runs the image's binary inside its file system as a container runtime would: chrooted, as the
// image's or the pod's user, with the image's environment, the pod's volumes mounted and, when asked, the root
// file system read-only. Nothing of the host is visible to the process. The image tests (hack/image) and the
// end-to-end tests that run what ships use it.
package imagefs

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// Binary is the image's entrypoint, at the root of its file system.
const Binary = "/aim-apiserver"

// Archive is an unpacked image archive: its images by platform ("linux/amd64") and the reference name of its
// index (the release's version).
type Archive struct {
	Images  map[string]v1.Image
	RefName string
}

// Open unpacks the archive at path and reads its index.
func Open(tb testing.TB, path string) Archive {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("the image archive: %v", err)
	}
	defer f.Close()
	dir := tb.TempDir()
	extract(tb, tar.NewReader(f), dir)

	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		tb.Fatalf("reading the OCI layout: %v", err)
	}
	topManifest, err := top.IndexManifest()
	if err != nil || len(topManifest.Manifests) != 1 {
		tb.Fatalf("index.json: want one index, got %v (%v)", topManifest, err)
	}
	index, err := top.ImageIndex(topManifest.Manifests[0].Digest)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := index.IndexManifest()
	if err != nil {
		tb.Fatal(err)
	}
	a := Archive{Images: map[string]v1.Image{}, RefName: topManifest.Manifests[0].Annotations["org.opencontainers.image.ref.name"]}
	for _, d := range m.Manifests {
		img, err := index.Image(d.Digest)
		if err != nil {
			tb.Fatal(err)
		}
		a.Images[d.Platform.OS+"/"+d.Platform.Architecture] = img
	}
	return a
}

// extract writes the regular files and directories of a tar under dir, keeping their modes.
func extract(tb testing.TB, tr *tar.Reader, dir string) {
	tb.Helper()
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			tb.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			tb.Fatalf("tar entry %q leaves the directory", hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, os.FileMode(hdr.Mode)|0o700); err != nil {
				tb.Fatal(err)
			}
			if err := os.Chmod(p, os.FileMode(hdr.Mode)); err != nil {
				tb.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(p, data, os.FileMode(hdr.Mode)); err != nil {
				tb.Fatal(err)
			}
		default:
			tb.Fatalf("unexpected tar entry %q of type %c", hdr.Name, hdr.Typeflag)
		}
	}
}

// FS is an image's file system unpacked into a directory to chroot into, with the environment its config gives
// the process. Privileged says whether the test may mount and change users (root, not root of an unprivileged
// user namespace): then /proc is mounted, Mount and ReadOnly work, and Command runs as the user it is given.
type FS struct {
	Dir        string
	Env        []string
	Privileged bool
}

// Unpack lays out img's layers in a new directory. Privileged, it mounts /proc there, as a container runtime
// does (the process reads its own start time and limits).
func Unpack(tb testing.TB, img v1.Image) FS {
	tb.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		tb.Fatal(err)
	}
	root := tb.TempDir()
	rc := mutate.Extract(img)
	defer rc.Close()
	extract(tb, tar.NewReader(rc), root)
	// The chroot's / must be searchable by the image's user.
	if err := os.Chmod(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	privileged := canMount(tb)
	if privileged {
		proc := filepath.Join(root, "proc")
		if err := os.Mkdir(proc, 0o555); err != nil {
			tb.Fatal(err)
		}
		mount(tb, "proc", proc, "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC)
	}
	return FS{Dir: root, Env: cfg.Config.Env, Privileged: privileged}
}

// Path is the file at elem (below the image's /) on the host.
func (f FS) Path(elem ...string) string {
	return filepath.Join(append([]string{f.Dir}, elem...)...)
}

// ReadOnly makes the image's file system read-only for the processes run in it, as a container's
// readOnlyRootFilesystem does; the volumes mounted before (Mount) stay as they are. It needs root.
func (f FS) ReadOnly(tb testing.TB) {
	tb.Helper()
	bindReadOnly(tb, f.Dir, f.Dir)
}

// bindReadOnly mounts source, with what is mounted below it, at target, read-only.
func bindReadOnly(tb testing.TB, source, target string) {
	tb.Helper()
	mount(tb, source, target, "", syscall.MS_BIND|syscall.MS_REC)
	if err := syscall.Mount("", target, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		tb.Fatalf("remounting %s read-only: %v", target, err)
	}
}

// Mount makes the host directory source the volume at path inside the image, as the kubelet mounts a volume,
// creating the mount point if the image lacks it; so it comes before ReadOnly. It needs root.
func (f FS) Mount(tb testing.TB, source, path string) {
	tb.Helper()
	mount(tb, source, f.mountPoint(tb, path), "", syscall.MS_BIND)
}

// mountPoint is path inside the image on the host, created if the image lacks it.
func (f FS) mountPoint(tb testing.TB, path string) string {
	tb.Helper()
	target := f.Path(path)
	if _, err := os.Stat(target); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(target, 0o755); err != nil {
			tb.Fatalf("the mount point of %s: %v", path, err)
		}
	}
	return target
}

// canMount reports whether the test may mount: as root, not as root of an unprivileged user namespace.
func canMount(tb testing.TB) bool {
	tb.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	source, target := tb.TempDir(), tb.TempDir()
	if err := syscall.Mount(source, target, "", syscall.MS_BIND, ""); err != nil {
		return false
	}
	if err := syscall.Unmount(target, syscall.MNT_DETACH); err != nil {
		tb.Fatalf("unmounting %s: %v", target, err)
	}
	return true
}

// mount mounts and unmounts again when the test ends: before its temporary directories are removed, so that
// removing them cannot reach through a mount.
func mount(tb testing.TB, source, target, fstype string, flags uintptr) {
	tb.Helper()
	if err := syscall.Mount(source, target, fstype, flags, ""); err != nil {
		tb.Fatalf("mounting %s at %s: %v", source, target, err)
	}
	tb.Cleanup(func() {
		if err := syscall.Unmount(target, syscall.MNT_DETACH); err != nil {
			tb.Errorf("unmounting %s: %v", target, err)
		}
	})
}

// User is who a process runs as: a pod's runAsUser, runAsGroup and supplemental groups (fsGroup among them).
type User struct {
	UID, GID uint32
	Groups   []uint32
}

// Command is the image's binary chrooted into f with the image's environment and environ over it, as a container
// runtime gives them (environ is the pod's; the last of a name wins). Privileged, it runs as user; otherwise as
// root of a new user namespace, the only identity an unprivileged test can take.
func (f FS) Command(user User, environ []string, args ...string) *exec.Cmd {
	cmd := exec.Command(Binary, args...)
	cmd.Env = append(slices.Clone(f.Env), environ...)
	cmd.Dir = "/"
	attr := &syscall.SysProcAttr{Chroot: f.Dir}
	if f.Privileged {
		attr.Credential = &syscall.Credential{Uid: user.UID, Gid: user.GID, Groups: user.Groups}
	} else {
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	return cmd
}

// MountLikeKubelet lays out files as the kubelet lays out a Secret or ConfigMap volume in dir: a timestamped
// directory, ..data pointing at it, and each key a symlink through ..data; the files with mode, owned by root
// and group gid (a pod's fsGroup; 0 for none), as the kubelet owns them: with an fsGroup, the group may read
// every file whatever the mode (the kubelet adds 0440 to a read-only volume's files). Called again on the same
// dir, it updates the volume as the kubelet does when the object changes: a new timestamped directory, ..data
// swapped to it at once, the links of new keys added and those of removed keys deleted, the old directory removed.
func MountLikeKubelet(tb testing.TB, dir string, files map[string][]byte, mode os.FileMode, gid int) {
	tb.Helper()
	if gid != 0 {
		mode |= 0o440
	}
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	ts := "..2026_11_26_10_00_00.000000001"
	if old == ts {
		ts = "..2026_11_26_10_00_00.000000002"
	}
	if err := os.MkdirAll(filepath.Join(dir, ts), 0o755); err != nil {
		tb.Fatal(err)
	}
	for k, v := range files {
		p := filepath.Join(dir, ts, k)
		if err := os.WriteFile(p, v, mode); err != nil {
			tb.Fatal(err)
		}
		// WriteFile's mode passes through the umask.
		if err := os.Chmod(p, mode); err != nil {
			tb.Fatal(err)
		}
		if gid != 0 {
			if err := os.Chown(p, 0, gid); err != nil {
				tb.Fatal(err)
			}
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(ts, tmp); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		tb.Fatal(err)
	}
	for k := range files {
		if err := os.Symlink(filepath.Join("..data", k), filepath.Join(dir, k)); err != nil && !os.IsExist(err) {
			tb.Fatal(err)
		}
	}
	if old == "" {
		return
	}
	entries, err := os.ReadDir(filepath.Join(dir, old))
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if _, kept := files[e.Name()]; !kept {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, old)); err != nil {
		tb.Fatal(err)
	}
}
