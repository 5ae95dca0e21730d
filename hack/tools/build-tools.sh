#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kubectl and etcd at the versions in versions.env into
# _output/bin. Skips the build when the binaries exist and were built from the same versions.
set -o errexit -o nounset -o pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "${TOOLS_DIR}/../.." && pwd)"
BIN="${ROOT}/_output/bin"
source "${TOOLS_DIR}/versions.env"

# The checksum database does not list every k8s.io/kubernetes release; go.sum pins its hash instead.
export GONOSUMDB="k8s.io/kubernetes${GONOSUMDB:+,${GONOSUMDB}}"
export CGO_ENABLED=0

stamp="${BIN}/.tools-version"
want="$({ echo "${KUBE_VERSION} ${ETCD_VERSION}"; cat "${TOOLS_DIR}/go.sum"; } | sha256sum | cut -d' ' -f1)"
if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]] &&
	[[ -x "${BIN}/kube-apiserver" && -x "${BIN}/kube-controller-manager" && -x "${BIN}/kubectl" && -x "${BIN}/etcd" ]]; then
	echo "control-plane tools ${KUBE_VERSION} / etcd ${ETCD_VERSION} are up to date in ${BIN}"
	exit 0
fi

mkdir -p "${BIN}"
minor="${KUBE_VERSION#v1.}"
minor="${minor%%.*}"
ldflags="-s -w"
for kv in "gitVersion=${KUBE_VERSION}" "gitMajor=1" "gitMinor=${minor}" "gitTreeState=clean" "gitCommit=${KUBE_VERSION}"; do
	ldflags+=" -X k8s.io/component-base/version.${kv} -X k8s.io/client-go/pkg/version.${kv}"
done

cd "${TOOLS_DIR}"
start=$(date +%s)
for cmd in kube-apiserver kube-controller-manager kubectl; do
	echo "building ${cmd} ${KUBE_VERSION} ..."
	go build -trimpath -ldflags "${ldflags}" -o "${BIN}/${cmd}" "k8s.io/kubernetes/cmd/${cmd}"
done
echo "building etcd ${ETCD_VERSION} ..."
go build -trimpath -ldflags "-s -w" -o "${BIN}/etcd" go.etcd.io/etcd/server/v3
echo "${want}" > "${stamp}"
echo "built control-plane tools in $(( $(date +%s) - start ))s into ${BIN}"
