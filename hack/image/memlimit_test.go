//go:build image

package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aim-apiserver/aim-apiserver/test/framework"
)

// TestImageFollowsTheMemoryLimit runs the image's binary in a memory cgroup, as a pod with a memory limit runs
// it, with the host's cgroup file systems mounted where a container runtime mounts them: the server sets the Go
// runtime's memory limit to 90% of the container's (--memory-limit-ratio's default), so that its collector works
// harder near the limit instead of the pod being OOM-killed; a GOMEMLIMIT of the pod's environment wins.
func TestImageFollowsTheMemoryLimit(t *testing.T) {
	const limit = 512 << 20
	for _, tc := range []struct {
		name    string
		environ []string
		want    string
	}{
		{"from the container", nil, fmt.Sprintf(`"Go memory limit set from the container's" bytes=%d MiB=460 ratio=0.9`, limit*9/10)},
		{"from the environment", []string{"GOMEMLIMIT=300MiB"}, `"Go memory limit from the environment" GOMEMLIMIT="300MiB"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := rootFS(t)
			if !root.Privileged {
				t.Skip("a memory cgroup needs root; this test runs as root of a user namespace")
			}
			data := root.Path("data")
			if err := os.Mkdir(data, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(data, 0o777); err != nil {
				t.Fatal(err)
			}
			memory := root.LimitMemory(t, limit)
			cmd := imageCommand(root, tc.environ, "--local", "--data-dir", "/data", "--local-etcd-unsafe-no-fsync",
				"--secure-port", fmt.Sprint(framework.FreePort(t)))
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := memory.Start(cmd); err != nil {
				t.Fatal(err)
			}
			defer func() {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Wait()
			}()
			lines := make(chan string)
			go func() {
				defer close(lines)
				for s := bufio.NewScanner(stderr); s.Scan(); {
					lines <- s.Text()
				}
			}()
			var seen []string
			timeout := time.After(time.Minute)
			for {
				select {
				case line, ok := <-lines:
					if !ok {
						t.Fatalf("aim-apiserver ended without logging %s:\n%s", tc.want, strings.Join(seen, "\n"))
					}
					seen = append(seen, line)
					if strings.Contains(line, "GOMEMLIMIT is updated") {
						t.Errorf("the memory limit library logged the first setting too: %s", line)
					}
					if strings.Contains(line, tc.want) {
						if n := memory.OOMKills(t); n != 0 {
							t.Errorf("%d OOM kills in the cgroup", n)
						}
						go func() {
							for range lines { // drain until the process ends
							}
						}()
						return
					}
				case <-timeout:
					t.Fatalf("no line %s in a minute:\n%s", tc.want, strings.Join(seen, "\n"))
				}
			}
		})
	}
}
