#!/usr/bin/env bash
# Regenerates deepcopy, defaulters, conversions, protobuf, OpenAPI definitions, the clientset, listers, informers
# and apply configurations from the types under pkg/apis. Run it after changing an API type and commit the result.
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
MODULE="$(go list -m)"
# go list -m reports no directory for a module not yet in the module cache (a fresh machine): download it first.
go mod download k8s.io/code-generator
CODEGEN_PKG="$(go list -m -f '{{.Dir}}' k8s.io/code-generator)"
# kube_codegen.sh installs the generators into GOBIN; keep them inside the tree so a clean clone works.
export GOBIN="${ROOT}/_output/codegen-bin"
mkdir -p "${GOBIN}"

# shellcheck source=/dev/null
source "${CODEGEN_PKG}/kube_codegen.sh"

REPORT_FLAGS=(--report-filename "${ROOT}/api/api-rules/violation_exceptions.list")
if [[ "${VERIFY_ONLY:-}" != "true" ]]; then
	REPORT_FLAGS+=(--update-report)
fi

kube::codegen::gen_helpers \
	--boilerplate "${ROOT}/hack/boilerplate.go.txt" \
	"${ROOT}/pkg/apis"

kube::codegen::gen_openapi \
	--output-dir "${ROOT}/pkg/generated/openapi" \
	--output-pkg "${MODULE}/pkg/generated/openapi" \
	--extra-pkgs k8s.io/api/core/v1 \
	--extra-pkgs k8s.io/apimachinery/pkg/api/resource \
	--extra-pkgs k8s.io/apimachinery/pkg/util/intstr \
	"${REPORT_FLAGS[@]}" \
	--boilerplate "${ROOT}/hack/boilerplate.go.txt" \
	"${ROOT}/pkg/apis"

# Core types inside AIM types use client-go's apply configurations, so every field stays optional.
APPLYCONFIG_EXTERNALS="k8s.io/api/core/v1.EnvVar:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.LocalObjectReference:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.Toleration:k8s.io/client-go/applyconfigurations/core/v1,k8s.io/api/core/v1.NodeAffinity:k8s.io/client-go/applyconfigurations/core/v1"

kube::codegen::gen_client \
	--with-watch \
	--with-applyconfig \
	--applyconfig-externals "${APPLYCONFIG_EXTERNALS}" \
	--output-dir "${ROOT}/pkg/generated" \
	--output-pkg "${MODULE}/pkg/generated" \
	--boilerplate "${ROOT}/hack/boilerplate.go.txt" \
	"${ROOT}/pkg/apis"

# Protobuf for the versioned types (generated.proto, generated.pb.go, and protobuf tags written into the type
# files). kube_codegen.sh has no protobuf step, so go-to-protobuf runs here; it needs protoc (Debian's
# protobuf-compiler, installed when missing), protoc-gen-gogo and goimports on the PATH.
"${ROOT}/hack/apt-install.sh" protoc protobuf-compiler
go install golang.org/x/tools/cmd/goimports k8s.io/code-generator/cmd/go-to-protobuf \
	k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo
go mod download k8s.io/apimachinery k8s.io/api github.com/gogo/protobuf
modDir() { go list -m -f '{{.Dir}}' "$1"; }
# go-to-protobuf still works in GOPATH layout: give it one in a temporary directory that links to this tree.
PROTO_GOPATH="$(mktemp -d)"
trap 'rm -rf "${PROTO_GOPATH}"' EXIT
mkdir -p "${PROTO_GOPATH}/$(dirname "${MODULE}")"
ln -s "${ROOT}" "${PROTO_GOPATH}/${MODULE}"
# The "-" prefix marks packages whose generated.proto already exists (imported, never regenerated).
APIMACHINERY_PKGS="-k8s.io/apimachinery/pkg/util/intstr,-k8s.io/apimachinery/pkg/api/resource"
APIMACHINERY_PKGS+=",-k8s.io/apimachinery/pkg/runtime/schema,-k8s.io/apimachinery/pkg/runtime"
APIMACHINERY_PKGS+=",-k8s.io/apimachinery/pkg/apis/meta/v1,-k8s.io/api/core/v1"
PATH="${GOBIN}:${PATH}" "${GOBIN}/go-to-protobuf" \
	--go-header-file "${ROOT}/hack/boilerplate.go.txt" \
	--output-dir "${PROTO_GOPATH}" \
	--packages "${MODULE}/pkg/apis/aim/v1alpha1" \
	--apimachinery-packages "${APIMACHINERY_PKGS}" \
	--proto-import "k8s.io/apimachinery=$(modDir k8s.io/apimachinery)" \
	--proto-import "k8s.io/api=$(modDir k8s.io/api)" \
	--proto-import "github.com/gogo/protobuf=$(modDir github.com/gogo/protobuf)"
