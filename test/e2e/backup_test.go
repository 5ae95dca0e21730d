//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/test/harnessdir"
)

// chartCronJobArgs renders the chart with the default values and returns the args of a CronJob's container.
func chartCronJobArgs(t *testing.T, name string) []string {
	t.Helper()
	manifests := mustHelm(t, "template", "aim-apiserver", chartDir, "--namespace", "aim-system")
	for _, doc := range strings.Split(manifests, "\n---") {
		var cj batchv1.CronJob
		if err := yaml.Unmarshal([]byte(doc), &cj); err != nil || cj.Kind != "CronJob" || cj.Name != name {
			continue
		}
		return cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args
	}
	t.Fatalf("the chart renders no CronJob %s", name)
	return nil
}

// atHarness replaces the etcd flags and --dir of a command's args from the chart with the harness's etcd and a
// directory of the test (the chart points them at the bundled etcd and the mounts of its pods).
func atHarness(h *harnessServer, args []string, dir string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--etcd-") && !strings.HasPrefix(a, "--dir=") {
			out = append(out, a)
		}
	}
	return append(append(out, etcdFlags(h)...), "--dir="+dir)
}

// etcdFlags points an `aim-apiserver etcd` command at the harness's etcd.
func etcdFlags(h *harnessServer) []string {
	return []string{"--etcd-servers=" + harnessdir.Flag(h.Args, "--etcd-servers"), "--etcd-cafile=" + harnessdir.Flag(h.Args, "--etcd-cafile"),
		"--etcd-certfile=" + harnessdir.Flag(h.Args, "--etcd-certfile"), "--etcd-keyfile=" + harnessdir.Flag(h.Args, "--etcd-keyfile")}
}

// uids lists "kind/namespace/name=uid" of every object of the kinds in the namespace (all namespaces: "").
func uids(t *testing.T, kinds, ns string) []string {
	t.Helper()
	args := []string{"get", kinds, "-o", `jsonpath={range .items[*]}{.kind}/{.metadata.namespace}/{.metadata.name}={.metadata.uid}{.metadata.deletionTimestamp}{"\n"}{end}`}
	if ns == "" {
		args = append(args, "-A")
	} else {
		args = append(args, "-n", ns)
	}
	return strings.Fields(admin(t).must(args...))
}

// TestBackupRestoreKeepsUIDs: two services with their InferenceServices and their shared cache's artifact with
// its PVC and finished download Job exist. The chart's snapshot CronJob command saves the store; aim-apiserver is stopped and the
// AIM store destroyed; while it is down the garbage collector leaves every child alone; the restore command brings
// every AIM object back with its UID; aim-apiserver starts again and no child was deleted or re-created.
func TestBackupRestoreKeepsUIDs(t *testing.T) {
	k := admin(t)
	h := harness(t)
	ctx := context.Background()
	readyClusterTemplate(t, "e2e-backup")
	ns := namespace(t, "backup")
	applyService(t, ns, "chat", "model: {name: e2e-backup-model}")
	applyService(t, ns, "cached", "model: {name: e2e-backup-model}")
	downloadCaches(t, ns, 1)
	objectJSON(t, 60*time.Second, "inferenceservice", inferenceServiceName(ns, "chat"), ns)
	objectJSON(t, 60*time.Second, "inferenceservice", inferenceServiceName(ns, "cached"), ns)

	const aimKinds = "aimservices,aimmodels,aimservicetemplates,aimtemplatecaches,aimartifacts"
	children := func() []string { return uids(t, "inferenceservices,persistentvolumeclaims,jobs", ns) }
	aimBefore := append(uids(t, aimKinds, ns), uids(t, "aimclusterservicetemplates,aimclustermodels", "")...)
	childrenBefore := children()
	if len(childrenBefore) < 3 {
		t.Fatalf("children before: %v", childrenBefore)
	}

	// The snapshot, by the command and arguments of the chart's CronJob, pointed at the harness's etcd.
	args := chartCronJobArgs(t, "aim-etcd-snapshot")
	if len(args) < 2 || args[0] != "etcd" || args[1] != "snapshot" {
		t.Fatalf("the snapshot CronJob runs %v", args)
	}
	dir := t.TempDir()
	out, err := exec.Command(migrateBin, atHarness(h, args, dir)...).CombinedOutput()
	if err != nil {
		t.Fatalf("snapshot: %v\n%s", err, out)
	}
	contains(t, "snapshot", string(out), "saved "+dir+"/aim-etcd-", "keys under /registry/aim.eai.amd.com")

	// aim-apiserver stops (restarted at the end whatever happens), then the AIM store is lost.
	h.stop(t)
	etcd := h.etcd(t)
	del, err := etcd.Delete(ctx, "/registry/aim.eai.amd.com/", clientv3.WithPrefix())
	must(t, err)
	if del.Deleted < int64(len(aimBefore)) {
		t.Fatalf("deleted %d keys, fewer than the %d objects recorded", del.Deleted, len(aimBefore))
	}
	t.Logf("destroyed the AIM store: %d keys", del.Deleted)

	// While aim-apiserver is down, the garbage collector cannot read the owners and deletes nothing.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if got := children(); strings.Join(got, " ") != strings.Join(childrenBefore, " ") {
			t.Fatalf("children changed while aim-apiserver was down:\nbefore %v\nnow    %v", childrenBefore, got)
		}
		time.Sleep(2 * time.Second)
	}

	out, err = exec.Command(migrateBin, append([]string{"etcd", "restore", "--dir=" + dir}, etcdFlags(h)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	// Every key of the snapshot is written back: the store was empty. (The snapshot may hold a key or two more than
	// were deleted: the controller still ran between the snapshot and the stop.)
	var inSnapshot int
	if m := regexp.MustCompile(`restoring (\d+) keys`).FindStringSubmatch(string(out)); m != nil {
		inSnapshot, _ = strconv.Atoi(m[1])
	}
	if inSnapshot < int(del.Deleted)-2 {
		t.Errorf("the snapshot holds %d keys, %d were deleted:\n%s", inSnapshot, del.Deleted, out)
	}
	contains(t, "restore", string(out), fmt.Sprintf("written %d, present already 0, leased (not restored) 0, present with another value 0", inSnapshot))
	t.Logf("restored %d keys", inSnapshot)

	h.restart(t)
	k.must("wait", "--for=condition=Available", "--timeout=60s", "apiservice/"+apiService)
	aimAfter := append(uids(t, aimKinds, ns), uids(t, "aimclusterservicetemplates,aimclustermodels", "")...)
	if strings.Join(aimAfter, " ") != strings.Join(aimBefore, " ") {
		t.Errorf("AIM objects after the restore differ:\nbefore %v\nafter  %v", aimBefore, aimAfter)
	}
	// The controller runs again and the garbage collector sees the owners: the children stay as they were.
	jsonpathSet(t, 60*time.Second, "aimsvc", "chat", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].lastTransitionTime}`)
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if got := children(); strings.Join(got, " ") != strings.Join(childrenBefore, " ") {
			t.Fatalf("children changed after the restore:\nbefore %v\nnow    %v", childrenBefore, got)
		}
		time.Sleep(2 * time.Second)
	}
}
