package imagefs

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// cgroupRoot is where the host mounts its cgroup file systems, and where a container runtime mounts them in
// a container.
const cgroupRoot = "/sys/fs/cgroup"

// MemoryLimit is a cgroup of the host's memory controller with a limit, as the kubelet makes one for a container
// with resources.limits.memory.
type MemoryLimit struct {
	dir  string // the cgroup's directory on the host
	home string // the cgroup.procs of the test's own cgroup, to go back to
}

// startMu keeps the test process in one cgroup at a time while Start moves it.
var startMu sync.Mutex

// LimitMemory makes a memory cgroup limited to bytes beside the test's own (cgroup v1's memory hierarchy or
// cgroup v2), removed when the test ends, and mounts the host's cgroup file systems read-only at /sys/fs/cgroup
// in the image, as a container runtime mounts them: a process started in it (MemoryLimit.Start) finds its limit
// where it would in a pod. It needs root.
func (f FS) LimitMemory(tb testing.TB, bytes int64) MemoryLimit {
	tb.Helper()
	if !f.Privileged {
		tb.Fatal("a memory limit needs root")
	}
	mountDir, own, v2 := ownMemoryCgroup(tb)
	parent := filepath.Join(mountDir, own)
	if v2 {
		// A cgroup v2 process lives in a leaf; its sibling gets the memory controller from their parent.
		parent = filepath.Dir(parent)
	}
	dir, err := os.MkdirTemp(parent, "aim-imagefs-")
	if err != nil {
		tb.Fatalf("making a memory cgroup: %v", err)
	}
	// As a container's own cgroup, readable by its user.
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := os.Remove(dir); err != nil {
			tb.Errorf("removing the memory cgroup %s: %v", dir, err)
		}
	})
	file, value := "memory.limit_in_bytes", strconv.FormatInt(bytes, 10)
	if v2 {
		file = "memory.max"
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644); err != nil {
		tb.Fatalf("limiting the memory cgroup %s: %v", dir, err)
	}
	bindReadOnly(tb, cgroupRoot, f.mountPoint(tb, cgroupRoot))
	return MemoryLimit{dir: dir, home: filepath.Join(mountDir, own, "cgroup.procs")}
}

// Start starts cmd in the cgroup: the test process enters it for the fork, so that the child is born there,
// and leaves it again.
func (m MemoryLimit) Start(cmd *exec.Cmd) error {
	startMu.Lock()
	defer startMu.Unlock()
	self := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(m.dir, "cgroup.procs"), self, 0o644); err != nil {
		return fmt.Errorf("entering the memory cgroup %s: %w", m.dir, err)
	}
	startErr := cmd.Start()
	if err := os.WriteFile(m.home, self, 0o644); err != nil {
		return fmt.Errorf("leaving the memory cgroup %s: %w", m.dir, err)
	}
	return startErr
}

// OOMKills is how many processes the kernel killed in the cgroup for want of memory (cgroup v1's
// memory.oom_control, cgroup v2's memory.events).
func (m MemoryLimit) OOMKills(tb testing.TB) int {
	tb.Helper()
	for _, file := range []string{"memory.oom_control", "memory.events"} {
		b, err := os.ReadFile(filepath.Join(m.dir, file))
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(b)) {
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "oom_kill "); ok {
				v, err := strconv.Atoi(n)
				if err != nil {
					tb.Fatalf("%s: %q", file, line)
				}
				return v
			}
		}
	}
	tb.Fatalf("the memory cgroup %s counts no OOM kills", m.dir)
	return 0
}

// ownMemoryCgroup is the mount point of the memory controller's hierarchy and the test process's cgroup in it,
// from /proc/self/cgroup: cgroup v1's "memory" hierarchy when the host mounts one, else cgroup v2's.
func ownMemoryCgroup(tb testing.TB) (mountDir, path string, v2 bool) {
	tb.Helper()
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var unified string
	s := bufio.NewScanner(f)
	for s.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			unified = parts[2]
		}
		for c := range strings.SplitSeq(parts[1], ",") {
			if c == "memory" {
				return filepath.Join(cgroupRoot, "memory"), parts[2], false
			}
		}
	}
	if unified == "" {
		tb.Fatal("/proc/self/cgroup names no memory cgroup")
	}
	return cgroupRoot, unified, true
}
