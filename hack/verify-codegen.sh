#!/usr/bin/env bash
# Fails when the checked-in generated code differs from what hack/update-codegen.sh produces.
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "${TMP}"' EXIT

# Regenerate in a copy of the tree so a failed verify leaves the work tree untouched.
tar -C "${ROOT}" --exclude=./_output --exclude=./.git -cf - . | tar -C "${TMP}" -xf -
mkdir -p "${TMP}/_output"
[[ -d "${ROOT}/_output/codegen-bin" ]] && cp -a "${ROOT}/_output/codegen-bin" "${TMP}/_output/"
VERIFY_ONLY=true "${TMP}/hack/update-codegen.sh" >/dev/null

status=0
for dir in pkg api; do
	if ! diff -Naupr "${ROOT}/${dir}" "${TMP}/${dir}"; then
		status=1
	fi
done
if [[ ${status} -ne 0 ]]; then
	echo "Generated code is out of date: run hack/update-codegen.sh and commit the result." >&2
	exit 1
fi
echo "Generated code is up to date."
