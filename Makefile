# ctrlgen — see README.md. `make demo` runs the main job, `make test` every test.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go

.PHONY: all build controlplane test test-unit test-controlplane test-bench-module generate verify bench demo clean

all: build

build:
	$(GO) build ./...
	for m in $(RUNTIME_MODULES); do (cd $$m && $(GO) build ./...); done

# The local control plane (etcd, kube-apiserver, kube-controller-manager from
# k8s.io/kubernetes) as one binary, built by testenv in the user cache
# directory (see docs/testing.md). Minutes the first time, a few seconds when
# up to date.
controlplane:
	$(GO) run ./testenv/cmd/testenv --build-only

# Every test: the main module with the race detector (the end-to-end tests
# start the control plane), the control plane's code, then the bench
# module's own tests (its benchmarks are `make bench`).
test: controlplane verify test-unit test-controlplane test-bench-module

# The runtime's modules (runtime/, runtime/manager/) are nested modules,
# which ./... in the main module does not reach.
RUNTIME_MODULES := runtime runtime/manager

test-unit:
	$(GO) vet ./...
	for m in $(RUNTIME_MODULES); do (cd $$m && $(GO) vet ./...); done
	$(GO) test -race -count=1 -timeout 40m ./...
	for m in $(RUNTIME_MODULES); do (cd $$m && $(GO) test -race -count=1 -timeout 10m ./...); done

# Vets the control plane's module (embedded in testenv) where testenv writes
# and builds it, with the settings it builds with, so that vet reuses that
# build's compiled packages instead of compiling k8s.io/kubernetes again.
test-controlplane:
	dir="$$($(GO) run ./testenv/cmd/testenv --module-dir)" && cd "$$dir" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOWORK=off $(GO) vet ./...

test-bench-module:
	@if [ -f bench/go.mod ]; then cd bench && $(GO) vet ./... && $(GO) test -count=1 -timeout 60m ./...; fi

# Regenerates the committed generated code: the informers and listers of
# k8s.io/api the runtime ships (runtime/kube/, see its doc.go), the JSON
# decoders of apimachinery's types it ships (runtime/jsoncodec), the
# examples, and the golden types of the JSON decoders (internal/decodetest).
generate:
	cd runtime && $(GO) generate ./kube
	$(GO) test -count=1 -run TestShippedDecoders ./generators/jsondecode -update
	$(GO) generate ./examples/mydemo ./examples/samplecontroller ./examples/configmapset ./internal/decodetest

# Fails, showing the difference, when committed generated code is stale.
# The flags are those of the go:generate lines in runtime/kube/doc.go, the
# examples and internal/decodetest.
verify:
	$(GO) run ./cmd/ctrlgen --verify --generators lister,informer --versioned-clientset-package k8s.io/client-go/kubernetes --single-directory --output-dir runtime/kube k8s.io/api/...
	cd examples/mydemo && $(GO) run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --verify --output-dir generated --crd-dir config/crd --rbac-dir config/rbac --webhook-dir config/webhook ./apis/...
	cd examples/mydemo && $(GO) run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --verify --generators rbac --output-dir generated --rbac-dir config/rbac-namespaced --rbac-namespaces system ./apis/...
	cd examples/samplecontroller && $(GO) run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --verify --output-dir generated --crd-dir config/crd ./apis/...
	cd examples/configmapset && $(GO) run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --verify --output-dir generated --crd-dir config/crd --rbac-dir config/rbac ./apis/...
	cd internal/decodetest && $(GO) run github.com/ctrlgen/ctrlgen/cmd/ctrlgen --verify --generators deepcopy,register,clientset --with-applyconfig=false --output-dir generated ./apis/...
	$(GO) test -count=1 -run TestShippedDecoders ./generators/jsondecode

# Runtime and generator benchmarks, ours and the incumbents' side by side;
# bench/README.md holds the results and how to read them.
bench:
	@if [ ! -f bench/go.mod ]; then echo "make bench: bench/ has not landed yet" >&2; exit 1; fi
	cd bench && ./run.sh

# Build, regenerate, start a local control plane, install (and print) the
# generated CRD, run the mydemo controller, apply a sample Mydemo, show what
# it reconciled, and scrape its metrics over HTTPS without and with a token.
demo: build generate controlplane
	$(GO) run ./examples/mydemo/demo

clean:
	rm -rf .cache bin
