#!/usr/bin/env bash
# Creates an etcd PKI as files, for an etcd that runs outside the cluster (hack/local-up.sh's): a CA, a server
# certificate (the client Service and every member's DNS name), a peer certificate, and a client certificate for
# aim-apiserver, in $AIM_ETCD_CERT_DIR (default _output/local/pki/etcd). In a cluster, aim-apiserver's etcd-certs
# init container makes the same set in Secrets. Existing files are kept unless --force is given.
#   AIM_ETCD_CERT_EXTRA_SANS="DNS:foo,IP:127.0.0.1"   extra names on the server and peer certificates
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${AIM_ETCD_CERT_DIR:-${HARNESS_DIR:-${ROOT}/_output}/local/pki/etcd}"
NAMESPACE="${AIM_NAMESPACE:-aim-system}"
DAYS="${AIM_CERT_DAYS:-365}"

complete=1
for f in ca.crt ca.key server.crt server.key peer.crt peer.key client.crt client.key; do
	[[ -s "${DIR}/${f}" ]] || complete=0
done
if [[ "${1:-}" != "--force" ]] && ((complete)); then
	echo "etcd certificates exist in ${DIR} (use --force to replace them)"
	exit 0
fi
command -v openssl >/dev/null || { echo "openssl is required (apt-get install openssl)" >&2; exit 1; }
mkdir -p "${DIR}"
chmod 700 "${DIR}"

members="DNS:*.aim-etcd.${NAMESPACE}.svc,DNS:*.aim-etcd.${NAMESPACE}.svc.cluster.local"
client_service="DNS:aim-etcd-client,DNS:aim-etcd-client.${NAMESPACE},DNS:aim-etcd-client.${NAMESPACE}.svc,DNS:aim-etcd-client.${NAMESPACE}.svc.cluster.local"
extra="${AIM_ETCD_CERT_EXTRA_SANS:+,${AIM_ETCD_CERT_EXTRA_SANS}}"

# sign NAME SUBJECT USAGE [SANS]
sign() {
	local ext=(-addext "extendedKeyUsage=$3" -addext "keyUsage=critical,digitalSignature,keyEncipherment")
	[[ -n "${4:-}" ]] && ext+=(-addext "subjectAltName=$4")
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "$2" "${ext[@]}" \
		-keyout "${DIR}/$1.key" -out "${DIR}/$1.csr" 2>/dev/null
	openssl x509 -req -in "${DIR}/$1.csr" -CA "${DIR}/ca.crt" -CAkey "${DIR}/ca.key" -CAcreateserial \
		-days "${DAYS}" -copy_extensions copyall -out "${DIR}/$1.crt" 2>/dev/null
	rm -f "${DIR}/$1.csr"
	chmod 600 "${DIR}/$1.key"
}

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days "$((DAYS * 10))" \
	-subj "/CN=aim-etcd-ca" -keyout "${DIR}/ca.key" -out "${DIR}/ca.crt" 2>/dev/null
chmod 600 "${DIR}/ca.key"
# Client auth too: etcd's gRPC gateway (its JSON API) connects to etcd itself with the server certificate.
sign server "/CN=aim-etcd" "serverAuth,clientAuth" "${client_service},${members},DNS:localhost,IP:127.0.0.1${extra}"
sign peer "/CN=aim-etcd-peer" "serverAuth,clientAuth" "${members}${extra}"
sign client "/CN=aim-apiserver" clientAuth
rm -f "${DIR}/ca.srl"
echo "wrote etcd CA, server, peer and client certificates to ${DIR}"
