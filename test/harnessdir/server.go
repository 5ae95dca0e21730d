package harnessdir

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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

// Gone reports whether a process has exited; a zombie, which a process that is not the caller's child stays
// until its parent reaps it, counts as gone.
func Gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || strings.Contains(string(stat), ") Z ")
}
