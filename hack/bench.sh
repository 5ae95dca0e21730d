#!/usr/bin/env bash
# make bench / make bench-controller: a fresh local control plane (hack/local-up.sh), one benchmark against it,
# and the control plane down again. The first argument picks the benchmark, the rest go to its program
# (go run ./hack/bench -h, go run ./hack/bench-controller -h list them):
#   api         hack/bench, with aim-apiserver's controller off (the CRD twin has no controller either, so
#               both serve only the benchmark) and without its audit log, as artifacts/deploy runs it
#               (kube-apiserver keeps the harness's audit policy, which both paths pass)
#   controller  hack/bench-controller, with aim-apiserver resyncing every BENCH_RESYNC_PERIOD (10s unless set)
#   soak        hack/bench-controller -soak (10,000 services unless -services says otherwise), with aim-apiserver
#               resyncing every SOAK_RESYNC_PERIOD (10m unless set: the production default)
set -o errexit -o nounset -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

kind="${1:-}"
shift || true
case "${kind}" in
api)
	export AIM_RUN_CONTROLLER=false AIM_AUDIT=false
	program=./hack/bench
	;;
controller)
	export AIM_RESYNC_PERIOD="${BENCH_RESYNC_PERIOD:-10s}"
	program=./hack/bench-controller
	set -- --resync-period "${AIM_RESYNC_PERIOD}" "$@"
	;;
soak)
	export AIM_RESYNC_PERIOD="${SOAK_RESYNC_PERIOD:-10m}"
	program=./hack/bench-controller
	set -- -soak -services 10000 -timeout 45m --resync-period "${AIM_RESYNC_PERIOD}" "$@"
	;;
*)
	echo "usage: hack/bench.sh api|controller|soak [flags of the benchmark]" >&2
	exit 2
	;;
esac

for pid in "${HARNESS_DIR:-_output}"/local/pids/*.pid; do
	if [[ -f "${pid}" ]] && kill -0 "$(cat "${pid}")" 2>/dev/null; then
		echo "bench: a local control plane is running (${pid}); stop it with hack/local-down.sh first" >&2
		exit 1
	fi
done
trap 'hack/local-down.sh --purge' EXIT
hack/local-up.sh
go run "${program}" "$@"
