#!/usr/bin/env bash
# Prints the release version of this checkout: git describe of the newest v* tag (v0.2.0, or
# v0.2.0-3-gabc123456789 three commits later), or v0.0.0-<commits>-g<hash> before the first tag, with -dirty when
# tracked files differ from the commit. It is the binary's gitVersion, the image tag and the chart's appVersion.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if v="$(git describe --tags --match 'v[0-9]*' --abbrev=12 --dirty 2>/dev/null)"; then
	echo "${v}"
	exit 0
fi
dirty=""
git diff --quiet HEAD -- 2>/dev/null || dirty="-dirty"
echo "v0.0.0-$(git rev-list --count HEAD)-g$(git rev-parse --short=12 HEAD)${dirty}"
