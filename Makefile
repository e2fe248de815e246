# ctrlgen — see README.md. `make demo` runs the main job, `make test` every test.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go

.PHONY: all build controlplane test test-unit test-controlplane test-bench-module generate verify bench demo clean

all: build

build:
	$(GO) build ./...

# The local control plane (etcd, kube-apiserver, kube-controller-manager from
# k8s.io/kubernetes) as one binary in .cache/bin. Minutes the first time,
# about a second when up to date.
controlplane:
	$(GO) run ./testenv/cmd/testenv --build-only

# Every test: the main module with the race detector (the end-to-end tests
# start the control plane), the control plane module, then the bench
# module's own tests (its benchmarks are `make bench`).
test: controlplane test-unit test-controlplane test-bench-module

test-unit:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 40m ./...

test-controlplane:
	cd controlplane && $(GO) vet ./...

test-bench-module:
	@if [ -f bench/go.mod ]; then cd bench && $(GO) vet ./... && $(GO) test -count=1 ./...; fi

# Regenerates the committed generated code (examples/mydemo).
generate:
	@echo "make generate: the generator (issue 3) and examples/mydemo (issue 4) have not landed yet" >&2; exit 1

# Fails when committed generated code is stale.
verify:
	@echo "make verify: the generator (issue 3) and examples/mydemo (issue 4) have not landed yet" >&2; exit 1

# Runtime and generator benchmarks, ours and the incumbents' side by side;
# bench/README.md holds the results and how to read them.
bench:
	@if [ ! -f bench/go.mod ]; then echo "make bench: bench/ has not landed yet" >&2; exit 1; fi
	cd bench && ./run.sh

# Generate, start a local control plane, run the mydemo controller, show a
# reconciled object.
demo:
	@echo "make demo: examples/mydemo and the local control plane (issue 4) have not landed yet" >&2; exit 1

clean:
	rm -rf .cache bin
