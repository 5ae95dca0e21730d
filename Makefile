# aim-apiserver: `make run` starts local mode, `make test` runs every test tier that exists.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -o errexit -o nounset -o pipefail -c

OUT       ?= _output
BIN       := $(OUT)/bin
RUN_DIR   ?= $(OUT)/run
PORT      ?= 8443
# The short form in make test is bounded by executions, not time: Go 1.26's fuzz coordinator can fail a
# duration-bounded run with "context deadline exceeded" at the deadline without any crasher (go.dev/issue/75804,
# fixed in Go 1.27). 15,000 executions take about 10 s here.
FUZZTIME  ?= 15000x
LONG_FUZZTIME ?= 5m
GO        ?= go

# One build of every package serves the tests, the binaries and the image's linux/amd64 binary: static, without
# paths of the build machine.
export CGO_ENABLED := 0
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

# The release (hack/version.sh: git describe, or v0.0.0-<n>-g<hash> before the first tag), stamped into the
# binary (its /version and --version), the image tag and labels and the chart's appVersion.
VERSION     ?= $(shell hack/version.sh)
GIT_COMMIT  := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
GIT_TREE    := $(if $(findstring -dirty,$(VERSION)),dirty,clean)
COMMIT_TIME := $(shell git show -s --format=%ct HEAD 2>/dev/null || echo 0)
BUILD_DATE  := $(shell date -u -d @$(COMMIT_TIME) +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS     := -s -w -X k8s.io/component-base/version.gitVersion=$(VERSION) \
  -X k8s.io/component-base/version.gitCommit=$(GIT_COMMIT) -X k8s.io/component-base/version.gitTreeState=$(GIT_TREE) \
  -X k8s.io/component-base/version.buildDate=$(BUILD_DATE)
export AIM_LDFLAGS := $(LDFLAGS)

.PHONY: all build run test verify unit race fuzz fuzz-short update-codegen verify-codegen clean tools image release chart e2e e2e-compat e2e-versions crash bench bench-controller soak bench-migrate local-up local-down version

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/aim-apiserver ./cmd/apiserver

version:
	@echo $(VERSION)

## run: local mode with embedded etcd in $(RUN_DIR), serving on 127.0.0.1:$(PORT); prints how to use kubectl.
run: build
	$(BIN)/aim-apiserver --local --data-dir $(RUN_DIR) --secure-port $(PORT)

## test: static checks, generated-code verification, unit + in-process integration tests, a short fuzz run,
## the release build (image for both architectures, packaged chart), the Helm chart against artifacts/deploy,
## and the end-to-end suite on a real control plane, against both Kubernetes minors at once.
test: verify unit fuzz-short release chart e2e-versions

verify: verify-codegen
	@bad=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './_output/*')); \
	  if [[ -n "$$bad" ]]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	hack/verify-imports.sh
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

# Fuzz targets: decode -> default -> validate never panics and errors name a field.
FUZZ_TARGETS := FuzzDecodeDefaultValidate
FUZZ_PKG := ./pkg/apis/aim/validation

fuzz-short:
	@for t in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $(FUZZ_PKG); done

# The controller's parsers of user and container input (path templates, check-size and discovery output), the
# redaction of outside text, the field format check and the reading of stored values.
# Their seed corpora run with the unit tests; make fuzz explores them.
CONTROLLER_FUZZ := ./pkg/controller/gateway:FuzzRenderPath ./pkg/controller/artifact:FuzzParseSizeOutput ./pkg/controller/discovery:FuzzParse \
  ./pkg/controller/redact:FuzzExcerpt ./pkg/controller/redact:FuzzTextIsIdempotent ./pkg/fieldformat:FuzzCheck \
  ./pkg/storage/compression:FuzzTransformFromStorage ./pkg/controller/mirrors:FuzzParse

## race: the unit tests of ./pkg and the in-process integration tests under the race detector. It needs cgo
## and a C compiler (Debian's gcc, installed when missing) and builds every package again, so make test does not
## run it.
race:
	@hack/apt-install.sh gcc gcc libc6-dev
	CGO_ENABLED=1 $(GO) test -race -count=1 ./pkg/... ./test/integration/...

## fuzz: the same targets for longer (LONG_FUZZTIME), and the controller's parsers.
fuzz:
	@for t in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(LONG_FUZZTIME) $(FUZZ_PKG); done
	@for pt in $(CONTROLLER_FUZZ); do $(GO) test -run '^$$' -fuzz "^$${pt#*:}$$" -fuzztime $(LONG_FUZZTIME) $${pt%%:*}; done

## tools: kube-apiserver, kube-controller-manager, kubectl, etcd and helm at the pinned releases, into $(BIN).
tools:
	hack/tools/build-tools.sh

IMAGE_REPOSITORY ?= ghcr.io/aim-apiserver/aim-apiserver
IMAGE_TARBALL := $(OUT)/aim-apiserver-image.tar
IMAGE_PLATFORMS := linux/amd64 linux/arm64
RELEASE_DIR := $(OUT)/release
CHART_VERSION = $(patsubst v%,%,$(VERSION))

## image: the container image of $(IMAGE_PLATFORMS) as one archive ($(IMAGE_TARBALL): an OCI layout with the
## index of both, and docker load's manifest.json for linux/amd64), built without a container engine, then tested:
## the linux/amd64 image's file system runs the binary with nothing of the host visible (trusted CAs, a private
## CA mounted as the chart mounts it, --version against the labels, the arguments of the chart's containers and of
## the migrate Job).
image: tools
	@for p in $(IMAGE_PLATFORMS); do \
	  echo "building $$p"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/$${p/\//-}/aim-apiserver ./cmd/apiserver; \
	done
	$(GO) run ./hack/image $(foreach p,$(IMAGE_PLATFORMS),--binary $(p)=$(BIN)/$(subst /,-,$(p))/aim-apiserver) \
	  --out $(IMAGE_TARBALL) --repository $(IMAGE_REPOSITORY) --version $(VERSION) --revision $(GIT_COMMIT) --created $(COMMIT_TIME)
	IMAGE_TARBALL=$(CURDIR)/$(IMAGE_TARBALL) IMAGE_VERSION=$(VERSION) HELM=$(CURDIR)/$(BIN)/helm \
	  $(GO) test -tags image -count=1 -run '^TestImage' ./hack/image

## release: the image archive, the chart packaged with the same version (appVersion $(VERSION)) and a SHA-256
## checksum file, in $(RELEASE_DIR); then checks that the packaged chart reports the image's version.
release: image
	rm -rf $(RELEASE_DIR) && mkdir -p $(RELEASE_DIR)
	cp $(IMAGE_TARBALL) $(RELEASE_DIR)/aim-apiserver-image-$(VERSION).tar
	$(BIN)/helm package artifacts/charts/aim-apiserver --version $(CHART_VERSION) --app-version $(VERSION) -d $(RELEASE_DIR)
	cd $(RELEASE_DIR) && sha256sum aim-apiserver-image-$(VERSION).tar aim-apiserver-$(CHART_VERSION).tgz > SHA256SUMS
	RELEASE_DIR=$(CURDIR)/$(RELEASE_DIR) IMAGE_VERSION=$(VERSION) HELM=$(CURDIR)/$(BIN)/helm \
	  $(GO) test -tags image -count=1 -run '^TestRelease$$' ./hack/image
	@echo "release $(VERSION) in $(RELEASE_DIR):" && ls -1 $(RELEASE_DIR)

## chart: lint the Helm chart in every mode and check that it renders the objects of artifacts/deploy (and of its
## cert-manager overlay), with the pinned helm and kubectl; no cluster.
chart: tools
	$(GO) test -tags chart -count=1 ./test/chart/

## e2e: local control plane up, end-to-end suite with the pinned kubectl, down again (KEEP_UP=1 keeps it). The
## migration test runs the image's binary, so the image is built first (once per make run: make test's release
## target has built it already).
e2e: tools image
	hack/e2e.sh

## e2e-compat: the end-to-end suite against kube-apiserver and kube-controller-manager of COMPAT_KUBE_VERSION
## (hack/tools/versions.env: the previous Kubernetes minor), built into _output/bin/compat on first use.
e2e-compat: tools image
	KUBE_COMPAT=1 hack/e2e.sh

## e2e-versions: make e2e and make e2e-compat at the same time (make test runs it): the second on a harness of its
## own, its state in _output/compat and its servers in a network namespace of their own (root, or an unprivileged
## user namespace), so that both keep the same loopback ports. About the time of one run: the suite mostly waits.
## Tests of aim-apiserver's own processes under faults (the soak, leader failover, etcd outages, the crash run)
## and the tiny benchmark runs run in one of the two only (hack/e2e.sh lists them); make e2e and make e2e-compat
## alone run every test.
e2e-versions: tools image
	E2E_COMPAT=1 hack/e2e.sh

## bench: the AIM API side by side with a CRD twin of the same kinds (same schemas, served by kube-apiserver) on
## a fresh local control plane with the controller off: creates, updates, status updates, LISTs, watch delivery,
## memory and etcd bytes, through the aggregator, to the twin, to aim-apiserver directly and as raw etcd puts;
## prints one table with ratios and the targets, asserts nothing (BENCH_ARGS, e.g. BENCH_ARGS="-objects 2000
## -rounds 1"). make e2e runs a tiny form of it.
bench: tools
	hack/bench.sh api $(BENCH_ARGS)

## bench-controller: the controller at cluster scale on a fresh local control plane (100 GPU Nodes, 20 cluster
## models, 1,000 AIMServices by default; BENCH_ARGS passes flags, e.g. BENCH_ARGS="-services 200"); prints a
## table with the targets, asserts nothing. make e2e runs a tiny form of it.
BENCH_ARGS ?=
bench-controller: tools
	hack/bench.sh controller $(BENCH_ARGS)

## soak: the controller and its store under faults at fleet scale, on a fresh local control plane: two
## aim-apiserver replicas on a three-member etcd of their own, 10,000 AIMServices over 100 GPU Nodes, a churn
## whose every acknowledged write is kept in a ledger, noisy clients, and kill -9 of the leading replica, a
## rolling restart, an etcd follower and leader killed and etcd cut off for 30 s. About 10 minutes; prints one
## table; fails only on the ledger (lost or resurrected writes, duplicate children). SOAK_ARGS passes flags, e.g.
## SOAK_ARGS="-services 1000 -hold 10s"; make e2e runs a short form (1,000 services, two faults).
SOAK_ARGS ?=
soak: tools
	hack/bench.sh soak $(SOAK_ARGS)

## bench-migrate: `aim-apiserver migrate` of stores of MIGRATE_OBJECTS AIMModels (one run each) on a fresh
## local control plane: how long writes are refused (the freeze), the copy and the whole run, as one table
## (docs/migration.md records it). make e2e runs it with 200 objects.
MIGRATE_OBJECTS ?= 1000,10000
bench-migrate: tools
	hack/e2e.sh -run '^TestMigrationFreeze$$' -v -migrate.objects=$(MIGRATE_OBJECTS)

## crash: the crash-consistency test alone, with CRASH_KILLS kill -9 rounds of aim-apiserver during a write
## churn (make e2e runs it with 3), then the ledger check.
CRASH_KILLS ?= 15
crash: tools
	hack/e2e.sh -run '^TestCrashConsistency$$' -crash.kills=$(CRASH_KILLS)

local-up:
	hack/local-up.sh

local-down:
	hack/local-down.sh

update-codegen:
	hack/update-codegen.sh

verify-codegen:
	hack/verify-codegen.sh

clean:
	rm -rf $(OUT)
