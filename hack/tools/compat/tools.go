//go:build tools

// Package compat pins the control plane of the other Kubernetes minor that make e2e-compat runs the end-to-end
// suite against (COMPAT_KUBE_VERSION in ../versions.env): kube-apiserver and kube-controller-manager; kubectl,
// etcd and helm stay those of ../.
package compat

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
