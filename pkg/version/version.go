// Package version is aim-apiserver's release, as the build stamps it into k8s.io/component-base/version
// (the Makefile's VERSION, from git describe), and the Kubernetes version its API machinery behaves as.
package version

import (
	utilversion "k8s.io/apimachinery/pkg/util/version"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	basecompatibility "k8s.io/component-base/compatibility"
	baseversion "k8s.io/component-base/version"
)

// Get is the release this binary was built as: gitVersion (served at /version and printed by --version),
// commit, tree state and build date.
func Get() apimachineryversion.Info {
	return baseversion.Get()
}

// Effective is the version k8s.io/apiserver's feature gates and API emulation follow. It is the Kubernetes
// release of the k8s.io libraries this binary is built with, never aim-apiserver's own release: a v0.x release
// would otherwise be taken as Kubernetes 0.x and turn off every feature gate introduced since. /version still
// reports aim-apiserver's gitVersion (major and minor there are the Kubernetes ones).
func Effective() basecompatibility.EffectiveVersion {
	binary := utilversion.MustParse(baseversion.DefaultKubeBinaryVersion)
	// k8s.io/apiserver allows emulating the three previous minors, never before 1.31 (DefaultBuildEffectiveVersion).
	floor := binary.WithPatch(0).SubtractMinor(3)
	if minimum := utilversion.MajorMinor(1, 31); floor.LessThan(minimum) {
		floor = minimum
	}
	return basecompatibility.NewEffectiveVersion(binary, false, floor, floor)
}
