#!/usr/bin/env bash
# Stops every process hack/local-up.sh started, by recorded PID. kube-controller-manager goes first: while its
# watches on aim-apiserver are open, aim-apiserver's shutdown would wait them out. --purge also deletes the
# state (etcd data, PKI, logs).
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${HARNESS_DIR:-${ROOT}/_output}/local"
PIDS="${OUT}/pids"

stop() {
	local name="$1" pidfile="${PIDS}/$1.pid"
	[[ -f "${pidfile}" ]] || return 0
	local pid
	pid="$(cat "${pidfile}")"
	if kill -0 "${pid}" 2>/dev/null; then
		kill -TERM "${pid}" 2>/dev/null || true
		for _ in $(seq 1 100); do
			kill -0 "${pid}" 2>/dev/null || break
			sleep 0.2
		done
		if kill -0 "${pid}" 2>/dev/null; then
			echo "[local-down] ${name} (pid ${pid}) ignored SIGTERM for 20s; killing it"
			kill -KILL "${pid}" 2>/dev/null || true
		fi
		echo "[local-down] stopped ${name} (pid ${pid})"
	fi
	rm -f "${pidfile}"
}

for name in kube-controller-manager aim-apiserver kube-apiserver etcd; do
	stop "${name}"
done
if [[ "${1:-}" == "--purge" ]]; then
	rm -rf "${OUT}"
	echo "[local-down] removed ${OUT}"
fi
