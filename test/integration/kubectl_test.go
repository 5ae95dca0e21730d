package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aim-apiserver/aim-apiserver/test/framework"
)

// kubectlBinary prefers the kubectl the tools module builds (matching the server's minor version), else the
// one on the PATH.
func kubectlBinary(t *testing.T) string {
	t.Helper()
	if p, err := filepath.Abs(filepath.Join("..", "..", "_output", "bin", "kubectl")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is needed for this test: build it into _output/bin or put it on the PATH: %v", err)
	}
	return p
}

// localProcess is aim-apiserver --local running as its own process, as `make run` starts it.
type localProcess struct {
	cmd        *exec.Cmd
	kubeconfig string
	log        *os.File
}

func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "aim-apiserver")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/apiserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building aim-apiserver: %v\n%s", err, out)
	}
	return bin
}

func startProcess(t *testing.T, bin, dataDir string, port int) *localProcess {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	p := &localProcess{kubeconfig: filepath.Join(dataDir, "kubeconfig"), log: logFile}
	_ = os.Remove(p.kubeconfig)
	p.cmd = exec.Command(bin, "--local", "--data-dir", dataDir, "--secure-port", fmt.Sprint(port), "--local-etcd-unsafe-no-fsync")
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop(t) })
	framework.WaitForLocalMode(t, p.kubeconfig, 60*time.Second, func() string {
		log, _ := os.ReadFile(logFile.Name())
		return string(log)
	})
	return p
}

func (p *localProcess) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
		t.Errorf("aim-apiserver did not stop within 60s of SIGTERM")
	}
	p.log.Close()
}

type kubectlRunner struct {
	t          *testing.T
	bin        string
	kubeconfig string
}

func (k kubectlRunner) run(args ...string) (string, error) {
	k.t.Helper()
	cmd := exec.Command(k.bin, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (k kubectlRunner) must(args ...string) string {
	k.t.Helper()
	out, err := k.run(args...)
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (k kubectlRunner) applyStdin(manifest string, args ...string) (string, error) {
	cmd := exec.Command(k.bin, append([]string{"--kubeconfig", k.kubeconfig, "apply", "-f", "-"}, args...)...)
	cmd.Stdin = strings.NewReader(manifest)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func wantContains(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s: output lacks %q:\n%s", what, w, out)
		}
	}
}

// TestKubectlAgainstLocalMode drives the aim-apiserver binary in local mode with kubectl, the way a user does.
func TestKubectlAgainstLocalMode(t *testing.T) {
	kubectl := kubectlBinary(t)
	bin := buildServer(t)
	dataDir := t.TempDir()
	port := framework.FreePort(t)
	proc := startProcess(t, bin, dataDir, port)
	k := kubectlRunner{t: t, bin: kubectl, kubeconfig: proc.kubeconfig}

	out := k.must("api-resources", "--api-group=aim.eai.amd.com", "--no-headers")
	for name, r := range wantResources {
		found := false
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) == 5 && f[0] == name && f[1] == r.shortName && f[3] == fmt.Sprint(r.namespaced) && f[4] == r.kind {
				found = true
			}
		}
		if !found {
			t.Errorf("api-resources lacks %s (%s, namespaced=%v):\n%s", name, r.shortName, r.namespaced, out)
		}
	}

	out = k.must("apply", "-f", filepath.Join("..", "..", "artifacts", "samples"))
	if n := strings.Count(out, " created"); n != 12 {
		t.Errorf("applied %d samples, want 12:\n%s", n, out)
	}

	out = k.must("get", "aim", "-A")
	for _, r := range wantResources {
		wantContains(t, "get aim -A", out, strings.ToLower(r.kind)+".aim.eai.amd.com/")
	}

	out = k.must("get", "aimsvc")
	wantContains(t, "get aimsvc", out, "NAME", "STATUS", "MODEL", "TEMPLATE", "REPLICAS", "AGE", "qwen-chat", "Pending")
	wantContains(t, "get aimsvc -o wide", k.must("get", "aimsvc", "-o", "wide"), "ENDPOINT")
	wantContains(t, "get aimcltpl", k.must("get", "aimcltpl"), "MODEL", "STATUS", "HARDWARE", "METRIC", "PRECISION", "qwen3-32b")
	wantContains(t, "get aimclmdl", k.must("get", "aimclmdl"), "STATUS", "SOURCE", "IMAGE", "MODEL", "amdenterpriseai/aim-qwen-qwen3-32b:0.8.5")
	wantContains(t, "get aimtc", k.must("get", "aimtc"), "TEMPLATE", "MODE", "STATUS", "Shared")
	wantContains(t, "get aimart", k.must("get", "aimart"), "STATUS", "MODE", "MODEL SIZE", "PROGRESS")
	wantContains(t, "get aimclsrc", k.must("get", "aimclsrc"), "STATUS", "MODELS", "LASTSYNC")

	out = k.must("get", "aimsvc", "qwen-chat", "-o", "yaml")
	wantContains(t, "defaults", out, "replicas: 1", "status: Pending")
	out = k.must("get", "aimtpl", "llama-3-1-8b-mi325x-throughput", "-o", "jsonpath={.spec.hardware.gpu.resourceName}")
	if out != "amd.com/gpu" {
		t.Errorf("gpu.resourceName default = %q", out)
	}

	wantContains(t, "explain", k.must("explain", "aimservice.spec.model"), "exactly one of name, image or custom", "custom", "image", "name")
	// The schema's enum is listed; the default is in the description (kubectl explain prints no schema defaults).
	wantContains(t, "explain caching.mode", k.must("explain", "aimservice.spec.caching.mode"),
		"ENUM:", "Always", "Auto", "Dedicated", "Never", "Shared", "Defaults to Shared.")

	out, err := k.applyStdin("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: broken}\nspec: {model: {name: a, image: b}}\n")
	if err == nil {
		t.Errorf("invalid service accepted:\n%s", out)
	}
	wantContains(t, "invalid apply", out, `The AIMService "broken" is invalid: spec.model`)

	// A value of the wrong type: aim-engine's CRD's 422, to the letter.
	out, err = k.applyStdin("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: broken}\nspec: {model: {name: a}, replicas: two}\n")
	if err == nil {
		t.Errorf("a string for replicas accepted:\n%s", out)
	}
	wantContains(t, "wrong type", out, `The AIMService "broken" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`)

	out, err = k.applyStdin("apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: typo}\nspec: {model: {name: a}, replicaz: 2}\n")
	if err == nil {
		t.Errorf("unknown field accepted:\n%s", out)
	}
	wantContains(t, "strict field validation", out, "replicaz")

	out = k.must("get", "aimtpl", "--field-selector", "spec.modelName=llama-3-1-8b", "-o", "name")
	if strings.TrimSpace(out) != "aimservicetemplate.aim.eai.amd.com/llama-3-1-8b-mi325x-throughput" {
		t.Errorf("field selector: %q", out)
	}

	// Server-side apply from two field managers merges env by name.
	base := "apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: ssa}\nspec:\n  model: {name: qwen3-32b}\n  env:\n  - {name: %s, value: \"%s\"}\n"
	if out, err := k.applyStdin(fmt.Sprintf(base, "FROM_A", "1"), "--server-side", "--field-manager", "team-a"); err != nil {
		t.Fatalf("apply team-a: %v\n%s", err, out)
	}
	if out, err := k.applyStdin(fmt.Sprintf(base, "FROM_B", "2"), "--server-side", "--field-manager", "team-b"); err != nil {
		t.Fatalf("apply team-b: %v\n%s", err, out)
	}
	out = k.must("get", "aimsvc", "ssa", "-o", "jsonpath={range .spec.env[*]}{.name}={.value} {end}")
	if strings.TrimSpace(out) != "FROM_A=1 FROM_B=2" {
		t.Errorf("env after two server-side applies: %q", out)
	}
	out, err = k.applyStdin(fmt.Sprintf(base, "FROM_A", "changed"), "--server-side", "--field-manager", "team-b")
	if err == nil {
		t.Errorf("conflicting server-side apply accepted:\n%s", out)
	}
	wantContains(t, "apply conflict", out, "conflict")

	// kubectl patch without --type, and client-side apply, send strategic merge patches, which a
	// CustomResourceDefinition refuses with 415 (docs/compatibility.md, "Strategic merge patch"): env merges by name.
	if out, err := k.applyStdin(strings.Replace(fmt.Sprintf(base, "FROM_A", "1"), "name: ssa", "name: csa", 1)); err != nil {
		t.Fatalf("client-side apply: %v\n%s", err, out)
	}
	k.must("patch", "aimsvc", "csa", "-p", `{"spec":{"env":[{"name":"FROM_C","value":"3"}]}}`)
	if out, err := k.applyStdin(strings.Replace(fmt.Sprintf(base, "FROM_A", "changed"), "name: ssa", "name: csa", 1)); err != nil {
		t.Fatalf("client-side apply again: %v\n%s", err, out)
	}
	out = k.must("get", "aimsvc", "csa", "-o", "jsonpath={range .spec.env[*]}{.name}={.value} {end}")
	if strings.TrimSpace(out) != "FROM_C=3 FROM_A=changed" {
		t.Errorf("env after a strategic patch and a client-side apply: %q, want FROM_C=3 FROM_A=changed", out)
	}

	testKubectlWatch(t, k)

	// Restart on the same data dir: everything is still there.
	proc.stop(t)
	proc = startProcess(t, bin, dataDir, framework.FreePort(t))
	k.kubeconfig = proc.kubeconfig
	out = k.must("get", "aim", "-A", "-o", "name")
	if n := len(strings.Fields(out)); n != 14 {
		t.Errorf("after restart %d objects, want 14 (12 samples, ssa and csa):\n%s", n, out)
	}
}

// testKubectlWatch runs `kubectl get aimsvc -w` and checks it sees a create, an update and a delete. Each change
// waits for the previous event, so a slow watch start can only turn nothing into a missed event.
func testKubectlWatch(t *testing.T, k kubectlRunner) {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	watchCmd := exec.CommandContext(c, k.bin, "--kubeconfig", k.kubeconfig, "get", "aimsvc", "-l", "watch=me", "-w",
		"--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name,REPLICAS:.object.spec.replicas")
	stdout, err := watchCmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	if err := watchCmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	defer func() { cancel(); _ = watchCmd.Wait() }()

	expect := func(want string) {
		t.Helper()
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("kubectl get -w ended before %q", want)
				}
				if strings.Join(strings.Fields(line), " ") == want {
					return
				}
			case <-c.Done():
				t.Fatalf("kubectl get -w did not print %q", want)
			}
		}
	}
	manifest := "apiVersion: aim.eai.amd.com/v1alpha1\nkind: AIMService\nmetadata: {name: watched, labels: {watch: me}}\nspec: {model: {name: qwen3-32b}, replicas: %d}\n"
	if out, err := k.applyStdin(fmt.Sprintf(manifest, 1)); err != nil {
		t.Fatalf("create: %v\n%s", err, out)
	}
	expect("ADDED watched 1")
	if out, err := k.applyStdin(fmt.Sprintf(manifest, 3)); err != nil {
		t.Fatalf("update: %v\n%s", err, out)
	}
	expect("MODIFIED watched 3")
	k.must("delete", "aimsvc", "watched")
	expect("DELETED watched 3")
}
