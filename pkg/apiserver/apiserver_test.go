package apiserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
)

// TestResourcesCoverTheScheme checks every kind registered in the scheme is installed exactly once, with a
// complete definition.
func TestResourcesCoverTheScheme(t *testing.T) {
	installed := map[string]string{}
	for _, r := range Resources() {
		if err := r.Check(); err != nil {
			t.Errorf("%s: %v", r.ResourceName(), err)
		}
		if prev, dup := installed[r.KindName()]; dup {
			t.Errorf("%s installed twice (%s, %s)", r.KindName(), prev, r.ResourceName())
		}
		installed[r.KindName()] = r.ResourceName()
	}
	for gvk := range Scheme.KnownTypes(aim.SchemeGroupVersion) {
		if len(gvk) > 4 && gvk[len(gvk)-4:] == "List" {
			continue
		}
		if _, ok := installed[gvk]; !ok && gvk != "WatchEvent" {
			t.Errorf("kind %s is in the scheme but not served", gvk)
		}
	}
	if len(installed) != 10 {
		t.Errorf("%d kinds installed, want 10", len(installed))
	}
}

// TestAggregatedRolesNameEveryKind: the user roles of the deploy base grant every served kind, and no
// write on a subresource: status and finalizers belong to the controller (users could forge Ready).
func TestAggregatedRolesNameEveryKind(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "artifacts", "deploy", "base", "rbac-aggregated.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var main []string
	for _, r := range Resources() {
		main = append(main, r.ResourceName())
	}
	slices.Sort(main)
	roles := map[string]rbacv1.ClusterRole{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var role rbacv1.ClusterRole
		if err := yaml.UnmarshalStrict([]byte(doc), &role); err != nil {
			t.Fatal(err)
		}
		roles[role.Name] = role
	}
	for _, name := range []string{"aim-view", "aim-edit", "aim-admin"} {
		role, ok := roles[name]
		if !ok {
			t.Fatalf("no ClusterRole %s", name)
		}
		var granted []string
		for _, rule := range role.Rules {
			writes := slices.ContainsFunc(rule.Verbs, func(v string) bool { return !slices.Contains([]string{"get", "list", "watch"}, v) })
			for _, res := range rule.Resources {
				if res == "*" || strings.HasPrefix(res, "*/") {
					t.Errorf("%s grants the wildcard %q", name, res)
				}
				if strings.Contains(res, "/") && writes {
					t.Errorf("%s grants %v on the subresource %s", name, rule.Verbs, res)
				}
				if !strings.Contains(res, "/") {
					granted = append(granted, res)
				}
			}
		}
		slices.Sort(granted)
		if !slices.Equal(granted, main) {
			t.Errorf("%s grants %v, want every served kind %v", name, granted, main)
		}
	}
}
