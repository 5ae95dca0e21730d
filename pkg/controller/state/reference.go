package state

import (
	"k8s.io/apimachinery/pkg/types"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
)

// Reference is how a status names the object a reference resolved to (status.resolvedModel, resolvedTemplate,
// resolvedRuntimeConfig, cache.templateCacheRef). An object in a namespace is of namespacedKind and Namespace
// scope, one without of clusterKind and Cluster scope: the scope is decided here only.
func Reference(name, namespace string, uid types.UID, namespacedKind, clusterKind string) *aimv1.AIMResolvedReference {
	if ScopeOf(namespace) == aimv1.AIMResolutionScopeCluster {
		return &aimv1.AIMResolvedReference{Name: name, UID: uid, Kind: clusterKind, Scope: aimv1.AIMResolutionScopeCluster}
	}
	return &aimv1.AIMResolvedReference{Name: name, Namespace: namespace, UID: uid, Kind: namespacedKind, Scope: aimv1.AIMResolutionScopeNamespace}
}

// ScopeOf is the scope of an object in namespace: Cluster without one.
func ScopeOf(namespace string) aimv1.AIMResolutionScope {
	if namespace == "" {
		return aimv1.AIMResolutionScopeCluster
	}
	return aimv1.AIMResolutionScopeNamespace
}
