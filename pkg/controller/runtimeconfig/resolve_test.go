package runtimeconfig

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	aimlisters "github.com/aim-apiserver/aim-apiserver/pkg/generated/listers/aim/v1alpha1"
)

func cluster(spec aimv1.AIMRuntimeConfigSpec) *aimv1.AIMClusterRuntimeConfig {
	return &aimv1.AIMClusterRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", UID: "c"}, Spec: spec}
}

func namespaced(spec aimv1.AIMRuntimeConfigSpec) *aimv1.AIMRuntimeConfig {
	return &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team", UID: "n"}, Spec: spec}
}

// TestSetMeansOverride: a namespaced field that is set wins even when false, zero or empty (F13); unset
// fields fall through to the cluster config.
func TestSetMeansOverride(t *testing.T) {
	c := aimv1.AIMRuntimeConfigSpec{
		Storage: &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("fast"), PVCHeadroomPercent: ptr.To[int32](20), AccessModes: []corev1.PersistentVolumeAccessMode{"ReadWriteOnce"}},
		Routing: &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(true), GatewayRef: &aimv1.AIMGatewayParentReference{Name: "gw"},
			RequestTimeout: &aimv1.Duration{Duration: time.Minute}, Annotations: map[string]string{"a": "cluster", "b": "cluster"}},
		Env:              []corev1.EnvVar{{Name: "X", Value: "cluster"}, {Name: "Y", Value: "cluster"}},
		LabelPropagation: &aimv1.AIMLabelPropagationConfig{Enabled: ptr.To(true), Match: []string{"team"}},
		Scheduling:       &aimv1.AIMSchedulingConfig{NodeSelector: map[string]string{"pool": "gpu", "zone": "a"}, PriorityClassName: ptr.To("high")},
		Discovery:        &aimv1.AIMDiscoveryConfig{MaxConcurrentJobs: ptr.To[int32](5)},
	}
	n := aimv1.AIMRuntimeConfigSpec{
		Storage:          &aimv1.AIMStorageConfig{PVCHeadroomPercent: ptr.To[int32](0)},
		Routing:          &aimv1.AIMRuntimeRoutingConfig{Enabled: ptr.To(false), Annotations: map[string]string{"b": "ns"}},
		Env:              []corev1.EnvVar{{Name: "Y", Value: "ns"}, {Name: "Z", Value: "ns"}},
		LabelPropagation: &aimv1.AIMLabelPropagationConfig{Match: []string{}},
		Scheduling:       &aimv1.AIMSchedulingConfig{NodeSelector: map[string]string{"zone": "b"}, PriorityClassName: ptr.To("")},
	}
	r, err := Resolve("", "team", namespaced(n), cluster(c))
	if err != nil {
		t.Fatal(err)
	}
	s := r.Spec
	if r.Ref == nil || r.Ref.Scope != aimv1.AIMResolutionScopeMerged || r.Name != "default" {
		t.Errorf("ref %+v", r.Ref)
	}
	if *s.Storage.PVCHeadroomPercent != 0 || r.PVCHeadroomPercent() != 0 {
		t.Errorf("headroom 0 in the namespace must win: %v", *s.Storage.PVCHeadroomPercent)
	}
	if *s.Storage.DefaultStorageClassName != "fast" || s.Storage.AccessModes[0] != "ReadWriteOnce" {
		t.Errorf("unset storage fields must come from the cluster: %+v", s.Storage)
	}
	if *s.Routing.Enabled || s.Routing.GatewayRef.Name != "gw" || s.Routing.RequestTimeout.Duration != time.Minute {
		t.Errorf("routing %+v", s.Routing)
	}
	if diff := cmp.Diff(map[string]string{"a": "cluster", "b": "ns"}, s.Routing.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]corev1.EnvVar{{Name: "X", Value: "cluster"}, {Name: "Y", Value: "ns"}, {Name: "Z", Value: "ns"}}, s.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if !*s.LabelPropagation.Enabled || s.LabelPropagation.Match == nil || len(s.LabelPropagation.Match) != 0 {
		t.Errorf("label propagation %+v", s.LabelPropagation)
	}
	if diff := cmp.Diff(map[string]string{"pool": "gpu", "zone": "b"}, s.Scheduling.NodeSelector); diff != "" || *s.Scheduling.PriorityClassName != "" {
		t.Errorf("scheduling: priority class %q, node selector (-want +got):\n%s", *s.Scheduling.PriorityClassName, diff)
	}
	if r.MaxConcurrentDiscoveryJobs() != 5 {
		t.Errorf("max jobs %d", r.MaxConcurrentDiscoveryJobs())
	}
	// The inputs are not modified.
	if *c.Storage.PVCHeadroomPercent != 20 || len(c.Env) != 2 {
		t.Error("Merge modified its input")
	}
}

func TestResolveWhichConfig(t *testing.T) {
	if r, err := Resolve("", "team", nil, nil); err != nil || r.Ref != nil || r.PVCHeadroomPercent() != DefaultPVCHeadroomPercent ||
		r.AccessModes()[0] != corev1.ReadWriteMany || r.MaxConcurrentDiscoveryJobs() != DefaultMaxConcurrentJobs {
		t.Errorf("absent default config: %+v %v", r, err)
	}
	var nf *NotFoundError
	if _, err := Resolve("gold", "team", nil, nil); !errors.As(err, &nf) || nf.Name != "gold" {
		t.Errorf("absent named config: %v", err)
	}
	r, err := Resolve("default", "", nil, cluster(aimv1.AIMRuntimeConfigSpec{}))
	if err != nil || r.Ref.Scope != aimv1.AIMResolutionScopeCluster || r.Ref.UID != "c" {
		t.Errorf("cluster only: %+v %v", r.Ref, err)
	}
	r, err = Resolve("default", "team", namespaced(aimv1.AIMRuntimeConfigSpec{}), nil)
	if err != nil || r.Ref.Scope != aimv1.AIMResolutionScopeNamespace || r.Ref.Namespace != "team" {
		t.Errorf("namespace only: %+v %v", r.Ref, err)
	}
}

func TestLegacyFieldsMoveIntoStorage(t *testing.T) {
	c := aimv1.AIMRuntimeConfigSpec{DefaultStorageClassName: "legacy", PVCHeadroomPercent: ptr.To[int32](30)}
	n := aimv1.AIMRuntimeConfigSpec{Storage: &aimv1.AIMStorageConfig{DefaultStorageClassName: ptr.To("new")}}
	s := Merge(c, n)
	if *s.Storage.DefaultStorageClassName != "new" || *s.Storage.PVCHeadroomPercent != 30 || s.DefaultStorageClassName != "" || s.PVCHeadroomPercent != nil {
		t.Errorf("storage %+v top-level %q %v", s.Storage, s.DefaultStorageClassName, s.PVCHeadroomPercent)
	}
}

func TestPropagatedLabels(t *testing.T) {
	labels := map[string]string{"aim.eai.amd.com/team": "a", "team": "infra", "cost-center": "42", "other": "x"}
	r := Resolved{}
	if diff := cmp.Diff(map[string]string{"aim.eai.amd.com/team": "a"}, r.PropagatedLabels(labels)); diff != "" {
		t.Errorf("propagation off (-want +got):\n%s", diff)
	}
	r.Spec.LabelPropagation = &aimv1.AIMLabelPropagationConfig{Enabled: ptr.To(true), Match: []string{"team", "cost-*"}}
	want := map[string]string{"aim.eai.amd.com/team": "a", "team": "infra", "cost-center": "42"}
	if diff := cmp.Diff(want, r.PropagatedLabels(labels)); diff != "" {
		t.Errorf("propagation on (-want +got):\n%s", diff)
	}
}

func TestLookupFromListers(t *testing.T) {
	nsIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	clIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := nsIdx.Add(namespaced(aimv1.AIMRuntimeConfigSpec{Env: []corev1.EnvVar{{Name: "X", Value: "ns"}}})); err != nil {
		t.Fatal(err)
	}
	if err := clIdx.Add(cluster(aimv1.AIMRuntimeConfigSpec{Env: []corev1.EnvVar{{Name: "X", Value: "cluster"}}})); err != nil {
		t.Fatal(err)
	}
	configs := Configs{Namespaced: aimlisters.NewAIMRuntimeConfigLister(nsIdx), Cluster: aimlisters.NewAIMClusterRuntimeConfigLister(clIdx)}

	r, err := configs.Lookup("", "team")
	if err != nil || r.Ref.Scope != aimv1.AIMResolutionScopeMerged || r.Spec.Env[0].Value != "ns" {
		t.Errorf("merged: %+v %v", r, err)
	}
	r, err = configs.Lookup("default", "")
	if err != nil || r.Ref.Scope != aimv1.AIMResolutionScopeCluster || r.Spec.Env[0].Value != "cluster" {
		t.Errorf("cluster-scoped object: %+v %v", r, err)
	}
	r, err = configs.Lookup("", "elsewhere")
	if err != nil || r.Ref.Scope != aimv1.AIMResolutionScopeCluster {
		t.Errorf("namespace without a config: %+v %v", r, err)
	}
	var nf *NotFoundError
	if _, err := configs.Lookup("gold", "team"); !errors.As(err, &nf) {
		t.Errorf("missing named config: %v", err)
	}
}

// TestAffects: a config change matters to the objects that resolve it, a namespaced one in its namespace only.
func TestAffects(t *testing.T) {
	cluster := &aimv1.AIMClusterRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	team := &aimv1.AIMRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "team"}}
	for _, c := range []struct {
		name                  string
		cfg                   metav1.Object
		namespace, configName string
		want                  bool
	}{
		{"the default config, an object naming none", cluster, "a", "", true},
		{"the default config, a cluster object naming none", cluster, "", "", true},
		{"the default config, an object naming another", cluster, "a", "team", false},
		{"a namespaced config, an object of its namespace naming it", team, "a", "team", true},
		{"a namespaced config, an object of another namespace naming it", team, "b", "team", false},
		{"a namespaced config, an object naming none", team, "a", "", false},
	} {
		if got := Affects(c.cfg, c.namespace, c.configName); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestResolvedVersion: the version of a resolved config changes with either config it came from, and is
// empty when it came from none, or from one without a resourceVersion.
func TestResolvedVersion(t *testing.T) {
	versioned := func(rv string) (*aimv1.AIMRuntimeConfig, *aimv1.AIMClusterRuntimeConfig) {
		ns, cl := namespaced(aimv1.AIMRuntimeConfigSpec{}), cluster(aimv1.AIMRuntimeConfigSpec{})
		ns.ResourceVersion, cl.ResourceVersion = rv, rv
		return ns, cl
	}
	version := func(ns *aimv1.AIMRuntimeConfig, cl *aimv1.AIMClusterRuntimeConfig) string {
		t.Helper()
		r, err := Resolve("default", "team", ns, cl)
		if err != nil {
			t.Fatal(err)
		}
		return r.Version
	}
	ns, cl := versioned("1")
	merged, nsOnly, clOnly := version(ns, cl), version(ns, nil), version(nil, cl)
	if merged == "" || nsOnly == "" || clOnly == "" || merged == nsOnly || merged == clOnly || nsOnly == clOnly {
		t.Fatalf("versions merged %q, namespaced %q, cluster %q: want distinct ones", merged, nsOnly, clOnly)
	}
	ns2, cl2 := versioned("2")
	if version(ns2, cl) == merged || version(ns, cl2) == merged {
		t.Error("a new resourceVersion of one config leaves the merged version as it was")
	}
	ns2.UID = "n2"
	ns2.ResourceVersion = "1"
	if version(ns2, cl) == merged {
		t.Error("another namespaced config of the same resourceVersion leaves the version as it was")
	}
	none, _ := versioned("")
	if v := version(nil, nil); v != "" {
		t.Errorf("no config: version %q", v)
	}
	if v := version(none, cl); v != "" {
		t.Errorf("a config without a resourceVersion: version %q, want none", v)
	}
}
