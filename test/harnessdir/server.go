package harnessdir

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Server is the aim-apiserver hack/local-up.sh started, as /proc shows it: restarts and replicas run with its
// command line and its environment (local-up.sh sets the egress proxy and trust there).
type Server struct {
	PIDFile   string
	PID       int
	Args, Env []string
}

// ReadServer reads the harness's running aim-apiserver.
func ReadServer(root string) (*Server, error) {
	s := &Server{PIDFile: Local(root, "pids", "aim-apiserver.pid")}
	data, err := os.ReadFile(s.PIDFile)
	if err != nil {
		return nil, fmt.Errorf("the harness's aim-apiserver (is the harness up? hack/local-up.sh): %w", err)
	}
	if s.PID, err = strconv.Atoi(strings.TrimSpace(string(data))); err != nil {
		return nil, fmt.Errorf("%s: %w", s.PIDFile, err)
	}
	split := func(b []byte) []string { return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00") }
	rawArgs, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.PID))
	if err != nil {
		return nil, fmt.Errorf("aim-apiserver (pid %d) is not running: %w", s.PID, err)
	}
	rawEnv, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.PID))
	if err != nil {
		return nil, fmt.Errorf("aim-apiserver (pid %d): %w", s.PID, err)
	}
	s.Args, s.Env = split(rawArgs), split(rawEnv)
	return s, nil
}

// Flag is the value of --name in args (either form, "--name value" or "--name=value"), "" without one.
func Flag(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// WithFlag sets --name value in args (either form, "--name value" or "--name=value"), replacing an earlier
// value, or appends it.
func WithFlag(args []string, name, value string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		if out[i] == name && i+1 < len(out) {
			out[i+1] = value
			return out
		}
		if strings.HasPrefix(out[i], name+"=") {
			out[i] = name + "=" + value
			return out
		}
	}
	return append(out, name, value)
}

// SetPID records a new process of the server (a restart) in its PID file, for hack/local-down.sh.
func (s *Server) SetPID(pid int) error {
	s.PID = pid
	return os.WriteFile(s.PIDFile, []byte(strconv.Itoa(pid)), 0o644)
}

// state is the state letter of a /proc stat file (R, S, T, Z, ...): the field after the command name, which is
// in parentheses and may itself hold spaces and parentheses.
func state(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndex(s, ")")+1:])
	if len(fields) == 0 {
		return "", fmt.Errorf("%s: no state in %q", path, s)
	}
	return fields[0], nil
}

// Gone reports whether a process has exited; a zombie, which a process that is not the caller's child stays
// until its parent reaps it, counts as gone.
func Gone(pid int) bool {
	st, err := state(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || st == "Z"
}

// WaitGone waits up to timeout until a process is Gone, and reports whether it went.
func WaitGone(pid int, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); !Gone(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// Stopped returns nil once every thread of a process is stopped (state T), after SIGSTOP: kill returns when the
// signal is queued, and until the thread that takes it has run, the others go on.
func Stopped(pid int) error {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return err
	}
	for _, task := range tasks {
		st, err := state(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return err
		}
		if st != "T" {
			return fmt.Errorf("thread %s of pid %d is in state %s", task.Name(), pid, st)
		}
	}
	return nil
}
