#!/usr/bin/env bash
# Starts a real control plane on this machine, without Docker: etcd, kube-apiserver and kube-controller-manager
# built from the pinned Kubernetes release, the KServe and Gateway API CRDs, and aim-apiserver in cluster mode
# registered through the APIService of artifacts/deploy (patched for loopback). Ends when the APIService is
# Available. Idempotent: a running, healthy stack is left alone.
#
#   hack/local-up.sh            # then: export KUBECONFIG=_output/local/kubeconfig
#   hack/local-down.sh [--purge]
#
# Ports (override with the environment): ETCD_PORT, ETCD_PEER_PORT, ETCD_METRICS_PORT, KUBE_APISERVER_PORT,
# KCM_PORT, AIM_PORT. etcd serves TLS only and admits clients with a certificate of its CA (kube-apiserver's
# and aim-apiserver's), as artifacts/deploy runs it. kube-apiserver and aim-apiserver write audit logs of every
# write to _output/local/logs/*-audit.log.
# AIM_DISCOVERY_BACKOFF_BASE (default 3s) shortens discovery retries so that tests see them; AIM_RESYNC_PERIOD
# (default 5s) makes resyncs frequent enough to show they write nothing.
# AIM_RUN_CONTROLLER=false starts aim-apiserver without its controller, AIM_AUDIT=false without its audit log,
# as artifacts/deploy runs it (make bench).
# AIM_IMAGE_METADATA_REGISTRIES (default 127.0.0.1,localhost): registries models may read labels from; this
# machine reaches no public registry, and tests serve images from loopback.
# KUBE_COMPAT=1 runs kube-apiserver and kube-controller-manager of COMPAT_KUBE_VERSION (hack/tools/compat, built
# into _output/bin/compat) instead of KUBE_VERSION: the other Kubernetes minor make e2e-compat tests.
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
source hack/tools/versions.env

# HARNESS_DIR (default _output): where the stack keeps its state, in local/; a second harness runs beside the
# first with a directory and a network namespace of its own (hack/e2e.sh does so for the second Kubernetes minor).
OUT="${HARNESS_DIR:-${ROOT}/_output}/local"
BIN="${ROOT}/_output/bin"
# kube-apiserver and kube-controller-manager; kubectl, etcd and helm are always those of ${BIN}.
CONTROL_PLANE_BIN="${BIN}"
if [[ "${KUBE_COMPAT:-}" == "1" ]]; then
	CONTROL_PLANE_BIN="${BIN}/compat"
fi
PKI="${OUT}/pki"
LOGS="${OUT}/logs"
PIDS="${OUT}/pids"
KUBECONFIG_ADMIN="${OUT}/kubeconfig"
ETCD_PORT="${ETCD_PORT:-23790}"
ETCD_PEER_PORT="${ETCD_PEER_PORT:-23800}"
ETCD_METRICS_PORT="${ETCD_METRICS_PORT:-23810}"
# etcd's PKI (hack/gen-etcd-certs.sh): the names and usages the etcd-certs init container gives a cluster's. It is
# made before kube-apiserver runs, because kube-apiserver shares this etcd here.
ETCD_PKI="${PKI}/etcd"
KUBE_APISERVER_PORT="${KUBE_APISERVER_PORT:-16443}"
KCM_PORT="${KCM_PORT:-20257}"
AIM_PORT="${AIM_PORT:-18443}"
KUBECTL=("${BIN}/kubectl" --kubeconfig "${KUBECONFIG_ADMIN}")

log() { printf '[local-up %s] %s\n' "$(date +%T)" "$*"; }
fail() {
	printf '[local-up] ERROR: %s\n' "$*" >&2
	exit 1
}

running() { [[ -f "${PIDS}/$1.pid" ]] && kill -0 "$(cat "${PIDS}/$1.pid")" 2>/dev/null; }

# wait_for DESCRIPTION TIMEOUT_SECONDS LOGFILE COMMAND...: retries COMMAND; on timeout shows the log tail.
wait_for() {
	local what="$1" timeout="$2" logfile="$3"
	shift 3
	local deadline=$((SECONDS + timeout))
	until "$@" >/dev/null 2>&1; do
		if ((SECONDS >= deadline)); then
			[[ -n "${logfile}" && -f "${logfile}" ]] && tail -n 30 "${logfile}" >&2
			fail "${what} not ready after ${timeout}s${logfile:+ (log: ${logfile})}"
		fi
		sleep 0.3
	done
}

start() {
	local name="$1"
	shift
	"$@" >"${LOGS}/${name}.log" 2>&1 &
	echo $! >"${PIDS}/${name}.pid"
	log "started ${name} (pid $!, log ${LOGS}/${name}.log)"
}

port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

if running etcd && running kube-apiserver && running kube-controller-manager && running aim-apiserver &&
	"${KUBECTL[@]}" get apiservice v1alpha1.aim.eai.amd.com \
		-o jsonpath='{.status.conditions[?(@.type=="Available")].status}' 2>/dev/null | grep -qx True; then
	log "already up: export KUBECONFIG=${KUBECONFIG_ADMIN}"
	exit 0
fi
if [[ -d "${PIDS}" ]] && ls "${PIDS}"/*.pid >/dev/null 2>&1; then
	log "a previous stack is partly running; stopping it first (data is kept)"
	hack/local-down.sh
fi

if [[ -d "${OUT}/etcd" && ! -f "${OUT}/etcd-tls" ]]; then
	fail "${OUT} holds the state of an older harness (plain-HTTP etcd); remove it with hack/local-down.sh --purge"
fi
for p in "${ETCD_PORT}" "${ETCD_PEER_PORT}" "${ETCD_METRICS_PORT}" "${KUBE_APISERVER_PORT}" "${KCM_PORT}" "${AIM_PORT}"; do
	port_free "${p}" || fail "port ${p} on 127.0.0.1 is in use; stop what uses it or set the *_PORT variables"
done
command -v openssl >/dev/null || fail "openssl is required (apt-get install openssl)"
mkdir -p "${PKI}" "${LOGS}" "${PIDS}" "${BIN}"

log "building control-plane tools (cached after the first build) ..."
hack/tools/build-tools.sh
log "building aim-apiserver ..."
go build -ldflags "${AIM_LDFLAGS:-}" -o "${BIN}/aim-apiserver" ./cmd/apiserver

# ---- PKI ------------------------------------------------------------------------------------------------------
ca() { # NAME CN
	[[ -s "${PKI}/$1.crt" ]] && return
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj "/CN=$2" \
		-keyout "${PKI}/$1.key" -out "${PKI}/$1.crt" 2>/dev/null
}
cert() { # NAME CA SUBJECT [SANS] [USAGE]; CA is a name in ${PKI} or a path without .crt/.key
	[[ -s "${PKI}/$1.crt" ]] && return
	local ca="$2"
	[[ "${ca}" == */* ]] || ca="${PKI}/${ca}"
	local ext=(-addext "extendedKeyUsage=${5:-clientAuth}")
	[[ -n "${4:-}" ]] && ext+=(-addext "subjectAltName=$4")
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "$3" "${ext[@]}" \
		-keyout "${PKI}/$1.key" -out "${PKI}/$1.csr" 2>/dev/null
	openssl x509 -req -in "${PKI}/$1.csr" -CA "${ca}.crt" -CAkey "${ca}.key" -CAcreateserial -days 365 \
		-copy_extensions copyall -out "${PKI}/$1.crt" 2>/dev/null
	rm -f "${PKI}/$1.csr"
}
log "generating PKI in ${PKI} (kept across runs) ..."
ca ca kubernetes-ca
ca front-proxy-ca front-proxy-ca
cert kube-apiserver ca "/CN=kube-apiserver" \
	"IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc" serverAuth
cert admin ca "/O=system:masters/CN=admin"
cert kube-controller-manager ca "/CN=system:kube-controller-manager"
cert front-proxy-client front-proxy-ca "/CN=front-proxy-client"
ca egress-ca "aim-apiserver harness egress CA"
mkdir -p "${PKI}/egress-trust" && cp "${PKI}/egress-ca.crt" "${PKI}/egress-trust/ca.crt"
[[ -s "${PKI}/sa.key" ]] || {
	openssl genrsa -out "${PKI}/sa.key" 2048 2>/dev/null
	openssl rsa -in "${PKI}/sa.key" -pubout -out "${PKI}/sa.pub" 2>/dev/null
}
# etcd's server, peer and aim-apiserver client certificates are the deploy base's; kube-apiserver, which
# shares this etcd here, gets its own client certificate of the etcd CA.
AIM_ETCD_CERT_DIR="${ETCD_PKI}" AIM_ETCD_CERT_EXTRA_SANS="DNS:localhost,IP:127.0.0.1" hack/gen-etcd-certs.sh
cert kube-apiserver-etcd-client "${ETCD_PKI}/ca" "/CN=kube-apiserver"

kubeconfig() { # FILE USER CERT
	local file="$1"
	"${BIN}/kubectl" config --kubeconfig "${file}" set-cluster local --server "https://127.0.0.1:${KUBE_APISERVER_PORT}" \
		--certificate-authority "${PKI}/ca.crt" --embed-certs >/dev/null
	"${BIN}/kubectl" config --kubeconfig "${file}" set-credentials "$2" --client-certificate "${PKI}/$3.crt" \
		--client-key "${PKI}/$3.key" --embed-certs >/dev/null
	"${BIN}/kubectl" config --kubeconfig "${file}" set-context local --cluster local --user "$2" >/dev/null
	"${BIN}/kubectl" config --kubeconfig "${file}" use-context local >/dev/null
}
kubeconfig "${KUBECONFIG_ADMIN}" admin admin
kubeconfig "${OUT}/kube-controller-manager.kubeconfig" kube-controller-manager kube-controller-manager

# ---- etcd, kube-apiserver, kube-controller-manager -----------------------------------------------------------
touch "${OUT}/etcd-tls"
start etcd "${BIN}/etcd" --name local --data-dir "${OUT}/etcd" \
	--listen-client-urls "https://127.0.0.1:${ETCD_PORT}" --advertise-client-urls "https://127.0.0.1:${ETCD_PORT}" \
	--client-cert-auth --trusted-ca-file "${ETCD_PKI}/ca.crt" \
	--cert-file "${ETCD_PKI}/server.crt" --key-file "${ETCD_PKI}/server.key" \
	--listen-peer-urls "https://127.0.0.1:${ETCD_PEER_PORT}" --initial-advertise-peer-urls "https://127.0.0.1:${ETCD_PEER_PORT}" \
	--initial-cluster "local=https://127.0.0.1:${ETCD_PEER_PORT}" \
	--peer-client-cert-auth --peer-trusted-ca-file "${ETCD_PKI}/ca.crt" \
	--peer-cert-file "${ETCD_PKI}/peer.crt" --peer-key-file "${ETCD_PKI}/peer.key" \
	--listen-metrics-urls "http://127.0.0.1:${ETCD_METRICS_PORT}" \
	--unsafe-no-fsync --log-level warn
wait_for etcd 30 "${LOGS}/etcd.log" curl -fsS "http://127.0.0.1:${ETCD_METRICS_PORT}/health"

start kube-apiserver "${CONTROL_PLANE_BIN}/kube-apiserver" \
	--etcd-servers "https://127.0.0.1:${ETCD_PORT}" --etcd-cafile "${ETCD_PKI}/ca.crt" \
	--etcd-certfile "${PKI}/kube-apiserver-etcd-client.crt" --etcd-keyfile "${PKI}/kube-apiserver-etcd-client.key" \
	--audit-policy-file "${ROOT}/hack/audit-policy.yaml" --audit-log-path "${LOGS}/kube-apiserver-audit.log" \
	--bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "${KUBE_APISERVER_PORT}" \
	--endpoint-reconciler-type none \
	--tls-cert-file "${PKI}/kube-apiserver.crt" --tls-private-key-file "${PKI}/kube-apiserver.key" \
	--client-ca-file "${PKI}/ca.crt" \
	--authorization-mode RBAC \
	--service-account-issuer https://kubernetes.default.svc \
	--service-account-key-file "${PKI}/sa.pub" --service-account-signing-key-file "${PKI}/sa.key" \
	--service-cluster-ip-range 10.96.0.0/16 \
	--requestheader-client-ca-file "${PKI}/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
	--requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
	--requestheader-extra-headers-prefix X-Remote-Extra- \
	--proxy-client-cert-file "${PKI}/front-proxy-client.crt" --proxy-client-key-file "${PKI}/front-proxy-client.key" \
	--enable-aggregator-routing=true
wait_for kube-apiserver 90 "${LOGS}/kube-apiserver.log" "${KUBECTL[@]}" get --raw /readyz

# The PVC protection controller releases model cache volumes of deleted namespaces; without it their
# kubernetes.io/pvc-protection finalizer keeps the namespace terminating forever.
# The ReplicaSet controller creates the pods of the ReplicaSets the tests make as KServe's Deployments would, and
# reports the API refusing them (FailedCreate), which services quote.

start kube-controller-manager "${CONTROL_PLANE_BIN}/kube-controller-manager" \
	--kubeconfig "${OUT}/kube-controller-manager.kubeconfig" \
	--authentication-kubeconfig "${OUT}/kube-controller-manager.kubeconfig" \
	--authorization-kubeconfig "${OUT}/kube-controller-manager.kubeconfig" \
	--bind-address 127.0.0.1 --secure-port "${KCM_PORT}" --cert-dir "${OUT}/kcm-certs" --leader-elect=false \
	--use-service-account-credentials=true --service-account-private-key-file "${PKI}/sa.key" \
	--root-ca-file "${PKI}/ca.crt" --kube-api-qps 200 --kube-api-burst 400 \
	--controllers job-controller,replicaset-controller,garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,clusterrole-aggregation-controller,persistentvolumeclaim-protection-controller
wait_for kube-controller-manager 60 "${LOGS}/kube-controller-manager.log" "${KUBECTL[@]}" get serviceaccount default -n default

# ---- CRDs of the workloads the controller manages ------------------------------------------------------------
crd_dir() { GOFLAGS=-mod=mod go mod download -json "$1@$2" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }
KSERVE_DIR="$(crd_dir github.com/kserve/kserve "${KSERVE_VERSION}")"
GATEWAY_DIR="$(crd_dir sigs.k8s.io/gateway-api "${GATEWAY_API_VERSION}")"
[[ -d "${KSERVE_DIR}" && -d "${GATEWAY_DIR}" ]] || fail "could not download the KServe or Gateway API module for their CRDs"
log "installing KServe ${KSERVE_VERSION} and Gateway API ${GATEWAY_API_VERSION} CRDs ..."
# Server-side: the InferenceService CRD is too large for client-side apply's annotation.
"${KUBECTL[@]}" apply --server-side --force-conflicts --field-manager local-up \
	-f "${KSERVE_DIR}/config/crd/full/serving.kserve.io_inferenceservices.yaml" \
	-f "${KSERVE_DIR}/config/crd/full/serving.kserve.io_servingruntimes.yaml" \
	-f "${KSERVE_DIR}/config/crd/full/serving.kserve.io_clusterservingruntimes.yaml" \
	-f "${GATEWAY_DIR}/config/crd/standard/" >"${LOGS}/crds.log"
"${KUBECTL[@]}" wait --for condition=Established --timeout 60s \
	crd/inferenceservices.serving.kserve.io crd/httproutes.gateway.networking.k8s.io >/dev/null

# ---- artifacts/deploy, patched for loopback ------------------------------------------------------------------
# No kubelet runs pods here: aim-apiserver runs as a process, so the overlay drops the Deployment, the etcd
# StatefulSet and the etcd maintenance CronJobs and their volume, and points the Service at 127.0.0.1 through an
# FQDN EndpointSlice (IP endpoints reject loopback).
OVERLAY="${OUT}/deploy-overlay"
mkdir -p "${OVERLAY}"
cat >"${OVERLAY}/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $(realpath --relative-to "${OVERLAY}" "${ROOT}/artifacts/deploy")
  - endpointslice.yaml
patches:
  - target: {kind: Deployment, name: aim-apiserver}
    patch: '{"\$patch": "delete", "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "aim-apiserver"}}'
  - target: {kind: PodDisruptionBudget, name: aim-apiserver}
    patch: '{"\$patch": "delete", "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "aim-apiserver"}}'
  - target: {kind: StatefulSet, name: aim-etcd}
    patch: '{"\$patch": "delete", "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "aim-etcd"}}'
  - target: {kind: Service, name: aim-etcd}
    patch: '{"\$patch": "delete", "apiVersion": "v1", "kind": "Service", "metadata": {"name": "aim-etcd"}}'
  - target: {kind: Service, name: aim-etcd-client}
    patch: '{"\$patch": "delete", "apiVersion": "v1", "kind": "Service", "metadata": {"name": "aim-etcd-client"}}'
  - target: {kind: CronJob, name: aim-etcd-snapshot}
    patch: '{"\$patch": "delete", "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "aim-etcd-snapshot"}}'
  - target: {kind: CronJob, name: aim-etcd-defrag}
    patch: '{"\$patch": "delete", "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "aim-etcd-defrag"}}'
  - target: {kind: PersistentVolumeClaim, name: aim-etcd-snapshots}
    patch: '{"\$patch": "delete", "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "aim-etcd-snapshots"}}'
  - target: {kind: Service, name: aim-apiserver}
    patch: '[{"op": "remove", "path": "/spec/selector"}]'
EOF
cat >"${OVERLAY}/endpointslice.yaml" <<EOF
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: aim-apiserver-loopback
  namespace: aim-system
  labels:
    kubernetes.io/service-name: aim-apiserver
addressType: FQDN
endpoints:
  - addresses: ["127.0.0.1"]
    conditions: {ready: true}
ports:
  - name: https
    port: ${AIM_PORT}
    protocol: TCP
EOF
log "applying artifacts/deploy (loopback overlay) ..."
"${KUBECTL[@]}" apply --server-side --force-conflicts --field-manager local-up -k "${OVERLAY}" >"${LOGS}/deploy.log" ||
	fail "applying artifacts/deploy failed: $(cat "${LOGS}/deploy.log")"

# aim-apiserver authenticates to kube-apiserver as its ServiceAccount, so the RBAC of artifacts/deploy is what
# it runs with, as in a real cluster.
wait_for "service account aim-system/aim-apiserver" 30 "" "${KUBECTL[@]}" -n aim-system get serviceaccount aim-apiserver
TOKEN="$("${KUBECTL[@]}" -n aim-system create token aim-apiserver --duration 48h)"
AIM_KUBECONFIG="${OUT}/aim-apiserver.kubeconfig"
"${BIN}/kubectl" config --kubeconfig "${AIM_KUBECONFIG}" set-cluster local --server "https://127.0.0.1:${KUBE_APISERVER_PORT}" \
	--certificate-authority "${PKI}/ca.crt" --embed-certs >/dev/null
"${BIN}/kubectl" config --kubeconfig "${AIM_KUBECONFIG}" set-credentials aim-apiserver --token "${TOKEN}" >/dev/null
"${BIN}/kubectl" config --kubeconfig "${AIM_KUBECONFIG}" set-context local --cluster local --user aim-apiserver >/dev/null
"${BIN}/kubectl" config --kubeconfig "${AIM_KUBECONFIG}" use-context local >/dev/null

AIM_AUDIT_ARGS=(--audit-policy-file "${ROOT}/hack/audit-policy.yaml" --audit-log-path "${LOGS}/aim-apiserver-audit.log")
if [[ "${AIM_AUDIT:-true}" == "false" ]]; then
	AIM_AUDIT_ARGS=()
fi
# Registry mirrors: empty at start; e2e tests write mirrors into it, and aim-apiserver reads it again on change.
REGISTRY_CONFIG="${OUT}/registries.yaml"
echo 'registries: {}' >"${REGISTRY_CONFIG}"
# Egress: the harness has no internet. aim-apiserver reaches public registries and APIs (Docker Hub, ghcr.io,
# GitHub's API) through a proxy on loopback, which e2e tests serve when they play those services, and trusts the
# harness's egress CA in SSL_CERT_DIR: the chart's proxy and extraCACertificates values, as a cluster behind a
# TLS-inspecting proxy sets them. Loopback addresses are never proxied.
EGRESS_PROXY_PORT="${EGRESS_PROXY_PORT:-23128}"
start aim-apiserver env HTTPS_PROXY="http://127.0.0.1:${EGRESS_PROXY_PORT}" SSL_CERT_DIR="${PKI}/egress-trust" \
	"${BIN}/aim-apiserver" \
	--etcd-servers "https://127.0.0.1:${ETCD_PORT}" --etcd-cafile "${ETCD_PKI}/ca.crt" \
	--etcd-certfile "${ETCD_PKI}/client.crt" --etcd-keyfile "${ETCD_PKI}/client.key" \
	"${AIM_AUDIT_ARGS[@]}" \
	--bind-address 127.0.0.1 --secure-port "${AIM_PORT}" \
	--serving-cert-secret aim-system/aim-apiserver-serving-cert \
	--default-runtime-config-configmap aim-system/aim-apiserver-default-runtime-config \
	--cluster-model-source-configmap aim-system/aim-apiserver-cluster-model-source \
	--serving-cert-hosts aim-apiserver.aim-system.svc,aim-apiserver.aim-system.svc.cluster.local,localhost,127.0.0.1 \
	--kubeconfig "${AIM_KUBECONFIG}" --authentication-kubeconfig "${AIM_KUBECONFIG}" --authorization-kubeconfig "${AIM_KUBECONFIG}" \
	--system-namespace aim-system --discovery-backoff-base "${AIM_DISCOVERY_BACKOFF_BASE:-3s}" \
	--controller-resync-period "${AIM_RESYNC_PERIOD:-5s}" --run-controller="${AIM_RUN_CONTROLLER:-true}" \
	--image-metadata-registries "${AIM_IMAGE_METADATA_REGISTRIES:-127.0.0.1,localhost}" --registry-config "${REGISTRY_CONFIG}"
wait_for "APIService v1alpha1.aim.eai.amd.com Available" 90 "${LOGS}/aim-apiserver.log" \
	"${KUBECTL[@]}" wait --for condition=Available --timeout 2s apiservice/v1alpha1.aim.eai.amd.com

# aim-apiserver made its serving certificate (as the deploy base runs it: Secret aim-apiserver-serving-cert, its
# ca.crt in the APIService's caBundle); tests and benchmarks that reach it directly on loopback verify it with this.
"${KUBECTL[@]}" -n aim-system get secret aim-apiserver-serving-cert -o jsonpath='{.data.ca\.crt}' | base64 -d \
	>"${PKI}/aim-apiserver-ca.crt"

# kube-apiserver aggregates the OpenAPI document shortly after the APIService turns Available; kubectl explain
# and client-side validation need it.
wait_for "OpenAPI of aim.eai.amd.com aggregated by kube-apiserver" 60 "${LOGS}/kube-apiserver.log" \
	"${KUBECTL[@]}" explain aimservice.spec.model

log "up: etcd :${ETCD_PORT}, kube-apiserver :${KUBE_APISERVER_PORT}, aim-apiserver :${AIM_PORT}"
log "export KUBECONFIG=${KUBECONFIG_ADMIN}; ${BIN}/kubectl api-resources --api-group=aim.eai.amd.com"
