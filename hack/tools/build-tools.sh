#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kubectl, etcd and helm at the versions in versions.env into
# _output/bin, promrules (promrules/, which checks Prometheus rule files for the chart test) into _output/bin, and
# with KUBE_COMPAT=1 also kube-apiserver and kube-controller-manager of COMPAT_KUBE_VERSION into
# _output/bin/compat. Skips a build when its binaries exist and were built from the same versions (or sources).
set -o errexit -o nounset -o pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "${TOOLS_DIR}/../.." && pwd)"
BIN="${ROOT}/_output/bin"
source "${TOOLS_DIR}/versions.env"

# The checksum database does not list every k8s.io/kubernetes release; go.sum pins its hash instead.
export GONOSUMDB="k8s.io/kubernetes${GONOSUMDB:+,${GONOSUMDB}}"
export CGO_ENABLED=0

# kube_ldflags VERSION: the version stamps Kubernetes' own build sets, so that the binaries report VERSION.
kube_ldflags() {
	local minor="${1#v1.}" flags="-s -w"
	minor="${minor%%.*}"
	for kv in "gitVersion=$1" "gitMajor=1" "gitMinor=${minor}" "gitTreeState=clean" "gitCommit=$1"; do
		flags+=" -X k8s.io/component-base/version.${kv} -X k8s.io/client-go/pkg/version.${kv}"
	done
	echo "${flags}"
}

if [[ "${KUBE_COMPAT:-}" == "1" ]]; then
	compat_stamp="${BIN}/compat/.tools-version"
	compat_want="$({ echo "${COMPAT_KUBE_VERSION}"; cat "${TOOLS_DIR}/compat/go.sum"; } | sha256sum | cut -d' ' -f1)"
	if [[ -f "${compat_stamp}" && "$(cat "${compat_stamp}")" == "${compat_want}" &&
		-x "${BIN}/compat/kube-apiserver" && -x "${BIN}/compat/kube-controller-manager" ]]; then
		echo "control plane ${COMPAT_KUBE_VERSION} is up to date in ${BIN}/compat"
	else
		mkdir -p "${BIN}/compat"
		start=$(date +%s)
		for cmd in kube-apiserver kube-controller-manager; do
			echo "building ${cmd} ${COMPAT_KUBE_VERSION} ..."
			(cd "${TOOLS_DIR}/compat" && go build -trimpath -ldflags "$(kube_ldflags "${COMPAT_KUBE_VERSION}")" \
				-o "${BIN}/compat/${cmd}" "k8s.io/kubernetes/cmd/${cmd}")
		done
		echo "${compat_want}" >"${compat_stamp}"
		echo "built control plane ${COMPAT_KUBE_VERSION} in $(( $(date +%s) - start ))s into ${BIN}/compat"
	fi
fi

# promrules: a module of its own (Prometheus's dependencies stay out of go.mod here), built from its sources, so
# its stamp covers them with its go.mod and go.sum.
promrules_stamp="${BIN}/.promrules-version"
promrules_want="$(cd "${TOOLS_DIR}/promrules" && cat go.mod go.sum ./*.go | sha256sum | cut -d' ' -f1)"
if [[ -f "${promrules_stamp}" && "$(cat "${promrules_stamp}")" == "${promrules_want}" && -x "${BIN}/promrules" ]]; then
	echo "promrules is up to date in ${BIN}"
else
	mkdir -p "${BIN}"
	start=$(date +%s)
	echo "building promrules ..."
	(cd "${TOOLS_DIR}/promrules" && go build -trimpath -ldflags "-s -w" -o "${BIN}/promrules" .)
	echo "${promrules_want}" >"${promrules_stamp}"
	echo "built promrules in $(( $(date +%s) - start ))s into ${BIN}"
fi

stamp="${BIN}/.tools-version"
want="$({ echo "${KUBE_VERSION} ${ETCD_VERSION} ${HELM_VERSION}"; cat "${TOOLS_DIR}/go.sum"; } | sha256sum | cut -d' ' -f1)"
if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]] &&
	[[ -x "${BIN}/kube-apiserver" && -x "${BIN}/kube-controller-manager" && -x "${BIN}/kubectl" && -x "${BIN}/etcd" &&
		-x "${BIN}/helm" ]]; then
	echo "control-plane tools ${KUBE_VERSION} / etcd ${ETCD_VERSION} / helm ${HELM_VERSION} are up to date in ${BIN}"
	exit 0
fi

mkdir -p "${BIN}"
minor="${KUBE_VERSION#v1.}"
minor="${minor%%.*}"
ldflags="$(kube_ldflags "${KUBE_VERSION}")"

cd "${TOOLS_DIR}"
start=$(date +%s)
for cmd in kube-apiserver kube-controller-manager kubectl; do
	echo "building ${cmd} ${KUBE_VERSION} ..."
	go build -trimpath -ldflags "${ldflags}" -o "${BIN}/${cmd}" "k8s.io/kubernetes/cmd/${cmd}"
done
echo "building etcd ${ETCD_VERSION} ..."
go build -trimpath -ldflags "-s -w" -o "${BIN}/etcd" go.etcd.io/etcd/server/v3
# helm's version, and the Kubernetes version it assumes without a cluster (helm template, helm lint: the
# .Capabilities.KubeVersion charts see), as helm's own Makefile sets them; the latter is the pinned release.
echo "building helm ${HELM_VERSION} ..."
helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
helm_ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
	helm_ldflags+=" -X ${pkg}.k8sVersionMajor=1 -X ${pkg}.k8sVersionMinor=${minor}"
done
go build -trimpath -ldflags "${helm_ldflags}" -o "${BIN}/helm" helm.sh/helm/v3/cmd/helm
echo "${want}" > "${stamp}"
echo "built control-plane tools in $(( $(date +%s) - start ))s into ${BIN}"
