#!/usr/bin/env bash
# Brings up the local control plane (hack/local-up.sh), runs the end-to-end suite against it with the pinned
# kubectl, and stops it again. KEEP_UP=1 leaves the stack running for debugging.
set -o errexit -o nounset -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

# On a failure the servers' logs are kept in _output/e2e-logs (the stack itself is removed): a flake seen once
# in CI can be read afterwards.
keep_logs() {
	local rc=$?
	if [[ ${rc} -ne 0 && -d _output/local/logs ]]; then
		rm -rf _output/e2e-logs && cp -r _output/local/logs _output/e2e-logs
		echo "e2e: failed; the servers' logs are in ${ROOT}/_output/e2e-logs" >&2
	fi
	if [[ "${KEEP_UP:-}" != "1" ]]; then
		hack/local-down.sh --purge
	fi
	exit "${rc}"
}
trap keep_logs EXIT
hack/local-up.sh
start=$(date +%s)
go test -tags e2e -count=1 -timeout 15m ./test/e2e/ "$@"
echo "e2e suite took $(( $(date +%s) - start ))s (bring-up excluded)"
