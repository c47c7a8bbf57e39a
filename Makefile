# lw-sim: the commands a newcomer and CI use. Go is at /usr/local/go on a
# fresh machine; a Go already on PATH comes first.
export PATH := $(PATH):/usr/local/go/bin

GO  ?= go
BIN ?= bin

.PHONY: test demo bench build

## test: vet, then every test under the race detector (CI runs this; well
## under 15 minutes on 2 cores)
test:
	$(GO) vet ./...
	$(GO) test -race ./...

## demo: start a fake API server in-process, LIST pods, WATCH from the list's
## resourceVersion, make changes and print what the watcher saw
demo:
	$(GO) run ./cmd/lw-sim demo

## bench: every benchmark, no tests (numbers, not pass/fail)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## build: the lw-sim binary in $(BIN)/
build:
	$(GO) build -o $(BIN)/lw-sim ./cmd/lw-sim

# conformance and conformance-real (the suite against a real kube-apiserver).
include conformance.mk
