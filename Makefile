# aim-apiserver: `make run` starts local mode, `make test` runs every test tier that exists.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -o errexit -o nounset -o pipefail -c

OUT       ?= _output
BIN       := $(OUT)/bin
RUN_DIR   ?= $(OUT)/run
PORT      ?= 8443
FUZZTIME  ?= 10s
LONG_FUZZTIME ?= 5m
GO        ?= go

.PHONY: all build run test verify unit fuzz fuzz-short update-codegen verify-codegen clean tools image chart e2e crash bench bench-controller local-up local-down

all: build

build:
	$(GO) build -o $(BIN)/aim-apiserver ./cmd/apiserver

## run: local mode with embedded etcd in $(RUN_DIR), serving on 127.0.0.1:$(PORT); prints how to use kubectl.
run: build
	$(BIN)/aim-apiserver --local --data-dir $(RUN_DIR) --secure-port $(PORT)

## test: static checks, generated-code verification, unit + in-process integration tests, a short fuzz run,
## the image build, the Helm chart against artifacts/deploy, and the end-to-end suite on a real control plane.
test: verify unit fuzz-short image chart e2e

verify: verify-codegen
	@bad=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './_output/*')); \
	  if [[ -n "$$bad" ]]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
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
CONTROLLER_FUZZ := ./pkg/controller/service:FuzzRenderPath ./pkg/controller/artifact:FuzzParseSizeOutput ./pkg/controller/discovery:FuzzParse \
  ./pkg/controller/redact:FuzzExcerpt ./pkg/controller/redact:FuzzTextIsIdempotent ./pkg/fieldformat:FuzzCheck \
  ./pkg/storage/compression:FuzzTransformFromStorage

## fuzz: the same targets for longer (LONG_FUZZTIME), and the controller's parsers.
fuzz:
	@for t in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(LONG_FUZZTIME) $(FUZZ_PKG); done
	@for pt in $(CONTROLLER_FUZZ); do $(GO) test -run '^$$' -fuzz "^$${pt#*:}$$" -fuzztime $(LONG_FUZZTIME) $${pt%%:*}; done

## tools: kube-apiserver, kube-controller-manager, kubectl, etcd and helm at the pinned releases, into $(BIN).
tools:
	hack/tools/build-tools.sh

VERSION ?= dev
IMAGE_TARBALL := $(OUT)/aim-apiserver-image.tar

## image: the container image as a tarball ($(IMAGE_TARBALL)), built without a container engine, then inspected.
image:
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -ldflags "-s -w" -o $(BIN)/linux-amd64/aim-apiserver ./cmd/apiserver
	$(GO) run ./hack/image --binary $(BIN)/linux-amd64/aim-apiserver --out $(IMAGE_TARBALL) --version $(VERSION)
	IMAGE_TARBALL=$(CURDIR)/$(IMAGE_TARBALL) $(GO) test -count=1 -run '^TestImageTarball$$' ./hack/image

## chart: lint the Helm chart in every mode and check that it renders the objects of artifacts/deploy (and of its
## cert-manager overlay), with the pinned helm and kubectl; no cluster.
chart: tools
	$(GO) test -tags chart -count=1 ./test/chart/

## e2e: local control plane up, end-to-end suite with the pinned kubectl, down again (KEEP_UP=1 keeps it).
e2e: tools
	hack/e2e.sh

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
