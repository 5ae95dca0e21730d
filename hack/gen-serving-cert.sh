#!/usr/bin/env bash
# Creates a CA and a serving certificate for aim-apiserver in artifacts/deploy/certs (git-ignored), which the
# kustomize base turns into the serving Secret and the APIService caBundle. Existing files are kept unless
# --force is given. Extra SANs: AIM_CERT_EXTRA_SANS="DNS:foo,IP:127.0.0.1".
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${AIM_CERT_DIR:-${ROOT}/artifacts/deploy/certs}"
NAMESPACE="${AIM_NAMESPACE:-aim-system}"
SERVICE="${AIM_SERVICE:-aim-apiserver}"
DAYS="${AIM_CERT_DAYS:-365}"

if [[ "${1:-}" != "--force" && -s "${DIR}/tls.crt" && -s "${DIR}/tls.key" && -s "${DIR}/ca.crt" ]]; then
	echo "serving certificate exists in ${DIR} (use --force to replace it)"
	exit 0
fi
command -v openssl >/dev/null || { echo "openssl is required (apt-get install openssl)" >&2; exit 1; }
mkdir -p "${DIR}"
chmod 700 "${DIR}"
sans="DNS:${SERVICE},DNS:${SERVICE}.${NAMESPACE},DNS:${SERVICE}.${NAMESPACE}.svc,DNS:${SERVICE}.${NAMESPACE}.svc.cluster.local"
[[ -n "${AIM_CERT_EXTRA_SANS:-}" ]] && sans+=",${AIM_CERT_EXTRA_SANS}"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days "$((DAYS * 10))" \
	-subj "/CN=aim-apiserver-ca" -keyout "${DIR}/ca.key" -out "${DIR}/ca.crt" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-subj "/CN=${SERVICE}.${NAMESPACE}.svc" -addext "subjectAltName=${sans}" \
	-keyout "${DIR}/tls.key" -out "${DIR}/tls.csr" 2>/dev/null
openssl x509 -req -in "${DIR}/tls.csr" -CA "${DIR}/ca.crt" -CAkey "${DIR}/ca.key" -CAcreateserial \
	-days "${DAYS}" -copy_extensions copyall -out "${DIR}/tls.crt" 2>/dev/null
rm -f "${DIR}/tls.csr" "${DIR}/ca.srl"
chmod 600 "${DIR}/tls.key" "${DIR}/ca.key"
echo "wrote serving certificate for ${sans} to ${DIR}"
