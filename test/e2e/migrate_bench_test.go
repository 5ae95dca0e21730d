//go:build e2e

package e2e

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// migrateObjects are the store sizes TestMigrationFreeze migrates, one run each; make bench-migrate sets
// 1000,10000, make test runs the short form.
var migrateObjects = flag.String("migrate.objects", "200", "comma-separated numbers of AIM objects to migrate, one run each")

// TestMigrationFreeze measures what a migration costs the users of a store of N objects: how long writes to the
// group are refused (the freeze, from the admission policy in place to its removal) and how long the copy and
// the whole run take. Each run fills aim-engine's CRDs with N AIMModels, migrates with `aim-apiserver migrate`,
// checks that every object is served with its UID, and prints a row of the table docs/migration.md records.
func TestMigrationFreeze(t *testing.T) {
	var sizes []int
	for _, s := range strings.Split(*migrateObjects, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			t.Fatalf("-migrate.objects %q: %v", *migrateObjects, err)
		}
		sizes = append(sizes, n)
	}
	var rows []string
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) { rows = append(rows, migrateStore(t, n)) })
	}
	t.Logf("\n| objects | fill the CRDs | writes refused (freeze) | copy into aim-apiserver's etcd | migrate, start to done |\n|---|---|---|---|---|\n%s",
		strings.Join(rows, "\n"))
}

func migrateStore(t *testing.T, n int) string {
	k := admin(t)
	ns := namespace(t, "e2e-migrate-bench")
	installEngine(t)
	t.Cleanup(func() {
		_, _ = k.run("", "delete", "validatingadmissionpolicybinding,validatingadmissionpolicy", "aim-migration-freeze", "--ignore-not-found")
	})

	cfg, err := clientcmd.BuildConfigFromFlags("", adminKC)
	must(t, err)
	cfg.QPS, cfg.Burst = 500, 1000
	dyn, err := dynamic.NewForConfig(cfg)
	must(t, err)
	models := dyn.Resource(schema.GroupVersionResource{Group: "aim.eai.amd.com", Version: "v1alpha1", Resource: "aimmodels"}).Namespace(ns)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "aim.eai.amd.com/v1alpha1", "kind": "AIMModel",
					"metadata": map[string]any{"name": fmt.Sprintf("model-%05d", i), "labels": map[string]any{"team": "bench"}},
					"spec": map[string]any{"image": fmt.Sprintf("registry.example/aim/model-%05d:1.0", i),
						"imageMetadata": map[string]any{"model": map[string]any{"canonicalName": fmt.Sprintf("Org/Model-%d", i)}},
						"discovery":     map[string]any{"createServiceTemplates": false}}}}
				if _, err := models.Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("creating models through the CRDs: %v", err)
	}
	fill := time.Since(start)
	list, err := models.List(context.Background(), metav1.ListOptions{})
	must(t, err)
	uids := map[string]string{}
	for _, u := range list.Items {
		uids[u.GetName()] = string(u.GetUID())
	}
	if len(uids) != n {
		t.Fatalf("the CRDs hold %d models, want %d", len(uids), n)
	}

	start = time.Now()
	out, err := runMigrate(t, migrateArgs(t, t.TempDir()))
	must(t, err)
	total := time.Since(start)
	freeze := regexp.MustCompile(`writes to the group were refused for (\S+)`).FindStringSubmatch(out)
	copied := regexp.MustCompile(fmt.Sprintf(`%d objects created, 0 updated, 0 already equal, 0 removed \(.*\), in (\S+)`, n)).FindStringSubmatch(out)
	if freeze == nil || copied == nil {
		t.Fatalf("migrate did not report the freeze and the copy:\n%s", out)
	}

	served, err := models.List(context.Background(), metav1.ListOptions{})
	must(t, err)
	for _, u := range served.Items {
		if uids[u.GetName()] != string(u.GetUID()) {
			t.Errorf("%s served with uid %s, the CRDs had %s", u.GetName(), u.GetUID(), uids[u.GetName()])
		}
	}
	if len(served.Items) != n {
		t.Errorf("aim-apiserver serves %d models, want %d", len(served.Items), n)
	}
	return fmt.Sprintf("| %d | %s | %s | %s | %s |", n, fill.Round(100*time.Millisecond), freeze[1], copied[1], total.Round(100*time.Millisecond))
}
