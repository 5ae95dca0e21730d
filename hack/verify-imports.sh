#!/usr/bin/env bash
# Checks that every import block of hand-written Go code is in three groups, in this order: the standard library,
# other modules, this module's packages. goimports sorts within a group but files a new import into whichever
# group it finds first; `goimports -local github.com/aim-apiserver/aim-apiserver` files them where this wants.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
git ls-files --cached --others --exclude-standard '*.go' |
	grep -v -e '^pkg/generated/' -e 'zz_generated' -e 'generated\.pb\.go$' |
	xargs awk '
		FNR == 1 { inblock = 0 }
		/^import \($/ { inblock = 1; last = -1; blank = 0; next }
		inblock && /^\)$/ { inblock = 0; next }
		inblock && /^$/ { blank = 1; next }
		inblock && /^[ \t]*\/\// { next }
		inblock {
			path = $0; sub(/^[^"]*"/, "", path); sub(/".*$/, "", path)
			first = path; sub(/\/.*$/, "", first)
			# 0: standard library (no dot in the first element), 1: other modules, 2: this module.
			class = index(path, "github.com/aim-apiserver/aim-apiserver") == 1 ? 2 : (index(first, ".") ? 1 : 0)
			if (last >= 0 && (class < last || (class != last && !blank))) {
				printf "%s:%d: %s is out of its group: the standard library, other modules, then this module'"'"'s packages, each a group of its own\n", FILENAME, FNR, path
				bad = 1
			}
			last = class; blank = 0
		}
		END { exit bad }'
