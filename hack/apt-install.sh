#!/usr/bin/env bash
# apt-install.sh <command> <package>...: installs the Debian packages when <command> is not on the PATH, with sudo
# when not root. For the tools a make target needs that Go cannot build (protoc, a C compiler).
set -o errexit -o nounset -o pipefail
command -v "$1" >/dev/null && exit 0
cmd=$1
shift
echo "installing $* for $cmd" >&2
SUDO=""
[[ "$(id -u)" -ne 0 ]] && SUDO="sudo"
${SUDO} apt-get update -qq && ${SUDO} apt-get install -y -qq "$@" >/dev/null
