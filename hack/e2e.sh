#!/usr/bin/env bash
# Brings up the local control plane (hack/local-up.sh), runs the end-to-end suite against it with the pinned
# kubectl, and stops it again. KEEP_UP=1 leaves the stack running for debugging.
set -o errexit -o nounset -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

if [[ "${KEEP_UP:-}" != "1" ]]; then
	trap 'hack/local-down.sh --purge' EXIT
fi
hack/local-up.sh
start=$(date +%s)
go test -tags e2e -count=1 -timeout 15m ./test/e2e/ "$@"
echo "e2e suite took $(( $(date +%s) - start ))s (bring-up excluded)"
