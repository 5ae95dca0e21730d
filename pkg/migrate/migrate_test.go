package migrate

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

func apiService(labels map[string]string, service map[string]any) *unstructured.Unstructured {
	as := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	as.SetLabels(labels)
	if service != nil {
		as.Object["spec"].(map[string]any)["service"] = service
	}
	return as
}

// TestSwitched: only an APIService that names aim-apiserver's Service and that the auto-registration no
// longer owns counts as switched; the auto-registration would revert the other.
func TestSwitched(t *testing.T) {
	svc := map[string]any{"namespace": "aim-system", "name": "aim-apiserver"}
	for _, tc := range []struct {
		name string
		as   *unstructured.Unstructured
		want bool
	}{
		{"none", nil, false},
		{"local, auto-registered", apiService(map[string]string{automanagedLabel: "true"}, nil), false},
		{"ours", apiService(nil, svc), true},
		{"ours but still labelled", apiService(map[string]string{automanagedLabel: "true"}, svc), false},
		{"another service", apiService(nil, map[string]any{"namespace": "aim-system", "name": "other"}), false},
	} {
		if got := switched(tc.as, "aim-system", "aim-apiserver"); got != tc.want {
			t.Errorf("%s: switched = %v", tc.name, got)
		}
	}
}

func object(uid string) unstructured.Unstructured {
	var u unstructured.Unstructured
	u.SetAPIVersion("aim.eai.amd.com/v1alpha1")
	u.SetKind("AIMModel")
	u.SetUID(types.UID(uid))
	u.SetName("n-" + uid)
	return u
}

// TestPreviousUIDs: what an earlier run copied and the CRDs no longer have.
func TestPreviousUIDs(t *testing.T) {
	prev := &Backup{Objects: []unstructured.Unstructured{object("a"), object("b")}}
	gone := previousUIDs(prev, []unstructured.Unstructured{object("b"), object("c")})
	if a, ok := gone["a"]; len(gone) != 1 || !ok || a.GetName() != "n-a" {
		t.Errorf("gone = %v", gone)
	}
	if previousUIDs(nil, nil) != nil {
		t.Error("no earlier run, nothing gone")
	}
}

// TestBackupRoundTrip: the latest backup reads back; every backup is also kept under its time.
func TestBackupRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if b, err := readBackup(dir); b != nil || err != nil {
		t.Fatalf("empty dir: %v %v", b, err)
	}
	b := &Backup{Taken: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC), Objects: []unstructured.Unstructured{object("a")},
		StrippedFinalizers: map[types.UID][]string{"a": {"f"}}}
	path, err := writeBackup(dir, b)
	if err != nil || path == "" {
		t.Fatal(err)
	}
	got, err := readBackup(dir)
	if err != nil || len(got.Objects) != 1 || got.Objects[0].GetUID() != "a" || got.StrippedFinalizers["a"][0] != "f" || !got.Taken.Equal(b.Taken) {
		t.Errorf("read back %+v, %v", got, err)
	}
}

// TestGitOpsManager: the marks Argo CD and Flux leave are recognised; Helm's own labels are not a GitOps tool.
func TestGitOpsManager(t *testing.T) {
	for _, tc := range []struct {
		labels, annotations map[string]string
		want                string
	}{
		{nil, map[string]string{"argocd.argoproj.io/tracking-id": "aim-engine:apps/Deployment:aim-system/aim-engine"}, "Argo CD (application aim-engine)"},
		{map[string]string{"argocd.argoproj.io/instance": "platform"}, nil, "Argo CD (application platform)"},
		{map[string]string{"kustomize.toolkit.fluxcd.io/name": "aim", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"}, nil,
			"Flux (Kustomization flux-system/aim)"},
		{map[string]string{"helm.toolkit.fluxcd.io/name": "aim-engine", "helm.toolkit.fluxcd.io/namespace": "aim-system"}, nil,
			"Flux (HelmRelease aim-system/aim-engine)"},
		{map[string]string{"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": "aim-engine"},
			map[string]string{"meta.helm.sh/release-name": "aim-engine"}, ""},
	} {
		if got := gitOpsManager(tc.labels, tc.annotations); got != tc.want {
			t.Errorf("%v %v: %q, want %q", tc.labels, tc.annotations, got, tc.want)
		}
	}
}

// TestConfirm: --yes goes on; an answer other than "yes" stops; without a terminal to ask in it stops too.
func TestConfirm(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	for _, tc := range []struct {
		name string
		o    Options
		ok   bool
	}{
		{"--yes", Options{Yes: true, In: devNull}, true},
		{"answered yes", Options{In: strings.NewReader("yes\n")}, true},
		{"answered y", Options{In: strings.NewReader("y\n")}, false},
		{"no terminal", Options{In: devNull}, false},
		{"nothing to read", Options{}, false},
	} {
		out := &bytes.Buffer{}
		tc.o.Out = out
		tc.o.Etcd = NewOptions(out).Etcd
		m := &migrator{o: &tc.o, now: time.Now, target: "https://k8s.example:6443 (context prod)"}
		err := m.confirm("about to migrate")
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !strings.Contains(out.String(), "https://k8s.example:6443 (context prod)") {
			t.Errorf("%s: the cluster is not named:\n%s", tc.name, out)
		}
	}
}
