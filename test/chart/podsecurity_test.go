//go:build chart

package chart

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aim-apiserver/aim-apiserver/test/podsecurity"
)

// TestChartPodsMeetTheRestrictedStandard: every pod the chart and artifacts/deploy run (aim-apiserver, etcd and
// its init containers, the snapshot and defragmentation CronJobs, the migrate Job) passes the restricted Pod
// Security Standard at its latest version, as values.yaml promises, so that they run in a namespace that
// enforces it.
func TestChartPodsMeetTheRestrictedStandard(t *testing.T) {
	renders := map[string][]object{
		"chart defaults": helmTemplate(t),
		"chart, generated certificates, backups in a bucket, monitoring": helmTemplate(t,
			"--set", "servingCert.mode=generate", "--set", "etcd.certs.mode=generate",
			"--set", "etcd.backup.s3.bucket=backups", "--set", "monitoring.serviceMonitor.enabled=true"),
		"chart, self-managed certificates, backups on a claim": helmTemplate(t,
			"--set", "servingCert.mode=self", "--set", "etcd.certs.mode=self", "--set", "etcd.backup.storage.existingClaim=offsite"),
		"artifacts/deploy":                  kustomize(t, deployDir),
		"artifacts/deploy/migrate/job.yaml": decode(t, readFile(t, filepath.Join(deployDir, "migrate", "job.yaml"))),
	}
	for name, objs := range renders {
		pods := 0
		for _, o := range objs {
			meta, spec, ok := podTemplate(t, o)
			if !ok {
				continue
			}
			pods++
			podsecurity.Restricted(t, fmt.Sprintf("%s: %s %s", name, o["kind"], str(o, "metadata", "name")), meta, spec)
		}
		if pods == 0 {
			t.Errorf("%s renders no pod", name)
		}
	}
}

// podTemplate is the pod a workload object runs: a Deployment's, StatefulSet's or Job's template, a CronJob's
// job template's.
func podTemplate(t *testing.T, o object) (*metav1.ObjectMeta, *corev1.PodSpec, bool) {
	t.Helper()
	var tmpl any
	switch o["kind"] {
	case "Deployment", "StatefulSet", "Job", "DaemonSet":
		tmpl = field(o, "spec", "template")
	case "CronJob":
		tmpl = field(o, "spec", "jobTemplate", "spec", "template")
	default:
		return nil, nil, false
	}
	var pt corev1.PodTemplateSpec
	if err := json.Unmarshal([]byte(toJSON(t, tmpl)), &pt); err != nil {
		t.Fatalf("%s %s: decoding its pod template: %v", o["kind"], str(o, "metadata", "name"), err)
	}
	return &pt.ObjectMeta, &pt.Spec, true
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
