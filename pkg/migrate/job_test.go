package migrate

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestMigrateJobManifest: the Job of artifacts/deploy/migrate/job.yaml runs as it ships. Its arguments are
// migrate's own flags and pass its validation; every file a flag names is under a mount of the container, the
// backup directory under a writable one (the root file system is read-only), and the pod runs as the service
// account the manifest binds.
func TestMigrateJobManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "artifacts", "deploy", "migrate", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var job *batchv1.Job
	var bound []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta struct {
			Kind     string
			Subjects []struct{ Kind, Name string }
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "Job":
			job = &batchv1.Job{}
			if err := yaml.UnmarshalStrict([]byte(doc), job); err != nil {
				t.Fatalf("the Job: %v", err)
			}
		case "ClusterRoleBinding":
			for _, s := range meta.Subjects {
				bound = append(bound, s.Kind+"/"+s.Name)
			}
		}
	}
	if job == nil {
		t.Fatal("no Job in the manifest")
	}
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "migrate" {
		t.Fatalf("args %v: the image's entrypoint is aim-apiserver, so the first argument must be migrate", c.Args)
	}
	o := NewOptions(io.Discard)
	fs := pflag.NewFlagSet("migrate", pflag.ContinueOnError)
	for _, named := range o.Flags().FlagSets {
		fs.AddFlagSet(named)
	}
	if err := fs.Parse(c.Args[1:]); err != nil {
		t.Fatalf("migrate refuses the Job's arguments: %v", err)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("migrate's validation refuses the Job's arguments: %v", err)
	}

	mounted := func(path string, writable bool) bool {
		for _, m := range c.VolumeMounts {
			if (path == m.MountPath || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")) && (!writable || !m.ReadOnly) {
				return true
			}
		}
		return false
	}
	tls := o.Etcd.StorageConfig.Transport
	for _, f := range []string{tls.TrustedCAFile, tls.CertFile, tls.KeyFile} {
		if f == "" || !mounted(f, false) {
			t.Errorf("etcd file %q is not under a mount of the container", f)
		}
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("the container's root file system is not read-only: the backup directory check below would mean little")
	}
	if !filepath.IsAbs(o.BackupDir) || !mounted(o.BackupDir, true) {
		t.Errorf("backup directory %q is not under a writable mount", o.BackupDir)
	}
	if want := "ServiceAccount/" + pod.ServiceAccountName; !slices.Contains(bound, want) {
		t.Errorf("the pod runs as %s, the manifest binds %v", want, bound)
	}
	if pod.RestartPolicy != corev1.RestartPolicyNever || job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 {
		t.Errorf("a failed migration is retried by the Job (restartPolicy %s, backoffLimit %v): a rerun must be a decision", pod.RestartPolicy, job.Spec.BackoffLimit)
	}
}
