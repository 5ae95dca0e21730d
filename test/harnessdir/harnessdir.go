// Package harnessdir locates the state of the local control plane that hack/local-up.sh runs, and its running
// aim-apiserver, for the programs and tests that drive it.
package harnessdir

import (
	"os"
	"path/filepath"
)

// DirEnv names the directory the harness keeps its state in, _output of the checkout when unset. Two harnesses
// run side by side with a directory each (and a network namespace each, for their ports): hack/e2e.sh runs the
// suite against the second Kubernetes minor so.
const DirEnv = "HARNESS_DIR"

// Dir is the harness's state directory: $HARNESS_DIR, or root's _output. It holds local/ (the running stack:
// PKI, kubeconfigs, logs, PIDs), soak/ (make soak's etcd) and e2e-logs/ (the logs of a failed e2e run).
func Dir(root string) string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	return filepath.Join(root, "_output")
}

// Local is a path in the running stack's directory (Dir's local/).
func Local(root string, elem ...string) string {
	return filepath.Join(append([]string{Dir(root), "local"}, elem...)...)
}
