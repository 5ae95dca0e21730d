#!/usr/bin/env bash
# make bench-controller: a fresh local control plane (hack/local-up.sh) whose aim-apiserver resyncs every
# BENCH_RESYNC_PERIOD (10s unless set), the controller scale benchmark (hack/bench-controller) against it, and
# the control plane down again. Arguments go to the benchmark (go run ./hack/bench-controller -h lists them).
set -o errexit -o nounset -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

for pid in _output/local/pids/*.pid; do
	if [[ -f "${pid}" ]] && kill -0 "$(cat "${pid}")" 2>/dev/null; then
		echo "bench-controller: a local control plane is running (${pid}); stop it with hack/local-down.sh first" >&2
		exit 1
	fi
done
trap 'hack/local-down.sh --purge' EXIT
RESYNC="${BENCH_RESYNC_PERIOD:-10s}"
AIM_RESYNC_PERIOD="${RESYNC}" hack/local-up.sh
go run ./hack/bench-controller --resync-period "${RESYNC}" "$@"
