package migrate

import "fmt"

// aim-engine's chart (its value rbacHelpers, on by default) and its kustomize configuration install an admin, an
// editor and a viewer ClusterRole for each of nine kinds, for cluster administrators to bind; nothing of
// aim-engine's uses them. RoleBindings written for aim-engine name them, so aim-apiserver's chart installs them
// under the same names with the same rules (its value rbacHelpers), and the migration keeps aim-engine's on `helm
// uninstall` of aim-engine: their rules name the API group, which aim-apiserver serves after the switch, and
// without them every such binding would grant nothing.
var engineRoleKinds = []string{
	"aimartifact", "aimclustermodel", "aimclusterruntimeconfig", "aimclusterservicetemplate", "aimmodel",
	"aimruntimeconfig", "aimservice", "aimservicetemplate", "aimtemplatecache",
}

// EngineUserRoleVerbs are the verbs of aim-engine's user roles on their kind's resource, by role; each role
// also reads its kind's status.
var EngineUserRoleVerbs = map[string][]string{
	"admin":  {"*"},
	"editor": {"create", "delete", "get", "list", "patch", "update", "watch"},
	"viewer": {"get", "list", "watch"},
}

// EngineUserRole is one of aim-engine's user roles.
type EngineUserRole struct {
	// Name is the ClusterRole's, aim-engine-<kind>-<role>-role.
	Name string
	// Resource is the plural of the kind the role is for.
	Resource string
	// Role is admin, editor or viewer.
	Role string
}

// EngineUserRoles lists aim-engine's user roles, kind by kind.
func EngineUserRoles() []EngineUserRole {
	var out []EngineUserRole
	for _, kind := range engineRoleKinds {
		for _, role := range []string{"admin", "editor", "viewer"} {
			out = append(out, EngineUserRole{Name: fmt.Sprintf("aim-engine-%s-%s-role", kind, role), Resource: kind + "s", Role: role})
		}
	}
	return out
}

// isEngineUserRole reports whether a manifest object is one of aim-engine's user roles.
func isEngineUserRole(apiVersion, kind, name string) bool {
	if apiVersion != "rbac.authorization.k8s.io/v1" || kind != "ClusterRole" {
		return false
	}
	for _, r := range EngineUserRoles() {
		if r.Name == name {
			return true
		}
	}
	return false
}
