package harnessdir

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestProcessStates: a process stopped with SIGSTOP is Stopped once every thread is, not before it is sent;
// a killed one that nobody reaped yet (a zombie) is Gone.
func TestProcessStates(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if err := Stopped(pid); err == nil {
		t.Error("a running process is Stopped")
	}
	if Gone(pid) {
		t.Error("a running process is Gone")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for Stopped(pid) != nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := Stopped(pid); err != nil {
		t.Errorf("after SIGSTOP: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Not reaped: the process stays a zombie, which counts as gone.
	if !WaitGone(pid, 10*time.Second) {
		t.Error("a killed process is not Gone")
	}
}

// TestFlags: Flag reads and WithFlag sets a flag in either form, replacing a value or appending the flag.
func TestFlags(t *testing.T) {
	args := []string{"aim-apiserver", "--secure-port", "18443", "--etcd-servers=https://127.0.0.1:23790"}
	if got := Flag(args, "--secure-port"); got != "18443" {
		t.Errorf("--secure-port = %q", got)
	}
	if got := Flag(args, "--etcd-servers"); got != "https://127.0.0.1:23790" {
		t.Errorf("--etcd-servers = %q", got)
	}
	if got := Flag(args, "--secure"); got != "" {
		t.Errorf("a prefix of a flag is no flag: %q", got)
	}
	set := WithFlag(WithFlag(WithFlag(args, "--secure-port", "1"), "--etcd-servers", "https://b"), "--v", "2")
	for name, want := range map[string]string{"--secure-port": "1", "--etcd-servers": "https://b", "--v": "2"} {
		if got := Flag(set, name); got != want {
			t.Errorf("after WithFlag, %s = %q, want %q", name, got, want)
		}
	}
	if Flag(args, "--secure-port") != "18443" || len(set) != len(args)+2 {
		t.Errorf("WithFlag changed its input or appended twice: %q", set)
	}
}
