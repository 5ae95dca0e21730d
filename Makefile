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

.PHONY: all build run test verify unit fuzz fuzz-short update-codegen verify-codegen clean

all: build

build:
	$(GO) build -o $(BIN)/aim-apiserver ./cmd/apiserver

## run: local mode with embedded etcd in $(RUN_DIR), serving on 127.0.0.1:$(PORT); prints how to use kubectl.
run: build
	$(BIN)/aim-apiserver --local --data-dir $(RUN_DIR) --secure-port $(PORT)

## test: static checks, generated-code verification, unit + in-process integration tests, a short fuzz run.
test: verify unit fuzz-short

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

## fuzz: the same targets for longer (LONG_FUZZTIME).
fuzz:
	@for t in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(LONG_FUZZTIME) $(FUZZ_PKG); done

update-codegen:
	hack/update-codegen.sh

verify-codegen:
	hack/verify-codegen.sh

clean:
	rm -rf $(OUT)
