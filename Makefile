# lw-sim: the commands a newcomer and CI use. Go is at /usr/local/go on a
# fresh machine; a Go already on PATH comes first.
export PATH := $(PATH):/usr/local/go/bin

GO  ?= go
BIN ?= bin

.PHONY: test test-loaded watchmem demo bench build fuzz load html-check soak article fakeclient-proof

# FUZZTIME is how long `make fuzz` runs each fuzz target.
FUZZTIME ?= 60s
# FUZZ_TARGETS are the native fuzz targets, as package:Target
# (fakeapiserver/fuzz_test.go, internal/kubewire/fuzz_test.go); their seeds
# (f.Add and the package's testdata/fuzz) run in `make test`.
FUZZ_TARGETS := fakeapiserver:FuzzContinueToken fakeapiserver:FuzzRequestPath \
	fakeapiserver:FuzzListWatchOptions fakeapiserver:FuzzWriteBody fakeapiserver:FuzzPatch \
	internal/kubewire:FuzzParsePath internal/kubewire:FuzzContinueCodec

# TEST_TIMEOUT is go test's -timeout per package in `make test`.
TEST_TIMEOUT ?= 14m

## test: vet, then every test under the race detector (CI runs this; well
## under 15 minutes on 2 cores). The package timeout is go test's default
## 10 minutes raised to 14: fakeapiserver takes about 2 minutes alone but
## 7.5 on a machine loaded 3.5x, and a timeout there is no verdict. No test
## has a wall-clock budget of its own: only the package timeout ends a hang.
test:
	$(GO) vet ./...
	$(GO) test -race -timeout $(TEST_TIMEOUT) ./...

# LOAD_FACTOR is how many busy loops per CPU `make test-loaded` runs.
LOAD_FACTOR ?= 10

## test-loaded: make test while LOAD_FACTOR busy loops per CPU compete for
## the CPUs (all at nice 19), with the package timeout scaled to 180m: no
## test may depend on the machine's speed (tools/loaded/test-loaded.sh;
## CI runs it with LWSIM_CI_LOADED=1)
test-loaded:
	LOAD_FACTOR=$(LOAD_FACTOR) sh tools/loaded/test-loaded.sh

## watchmem: the memory bound of an open HTTP/2 watch (CI runs this after
## make test; about a second once built): TestWatchMemoryBound, built
## without -race, opens 1 000 watches to a server in a process of its own
## and fails if, per watch, its goroutine stacks (idle: 5 KiB, after 10
## events: 6 KiB; a watch's handler stays at 4 KiB), live heap (14 000 B)
## or goroutines (1.05) exceed their bound (the test's comment has the
## measurements behind each)
watchmem:
	LWSIM_WATCHMEM_BOUND=1 $(GO) test -count=1 -run '^TestWatchMemoryBound$$' -v ./fakeapiserver/

## demo: start a fake API server in-process, LIST pods, WATCH from the list's
## resourceVersion, make changes and print what the watcher saw
demo:
	$(GO) run ./cmd/lw-sim demo

## article: run one of the List & Watch article's programs (PROG=list|watch|listwatch;
## README.md, "The List & Watch article")
## against a running `lw-sim serve --kubeconfig k8s_watch/kubeconfig-local.conf`;
## they are kept as main.go.txt, byte for byte, and built through an overlay
PROG ?= listwatch
article:
	@dir="$(CURDIR)/cmd/lw-sim/testdata/article/$(PROG)"; overlay=$$(mktemp); \
	printf '{"Replace":{"%s/main.go":"%s/main.go.txt"}}' "$$dir" "$$dir" >"$$overlay"; \
	$(GO) run -overlay "$$overlay" ./cmd/lw-sim/testdata/article/$(PROG); rc=$$?; rm -f "$$overlay"; exit $$rc

## bench: every benchmark, no tests (numbers, not pass/fail); issue 14's
## LIST, create, fan-out and memory workloads are cmd/lw-sim/internal/bench's
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## fuzz: run each fuzz target for FUZZTIME (default 60s), one after the
## other; a failing input is saved under its package's testdata/fuzz
## (tools/fuzz/fuzz.sh: Go 1.26's deadline race at -fuzztime, with no
## input written, is not counted as a failure)
fuzz:
	@for pt in $(FUZZ_TARGETS); do \
		p=$${pt%%:*}; t=$${pt#*:}; \
		echo "== $$p $$t ($(FUZZTIME))"; \
		PATH="$$(dirname $$(command -v $(GO))):$$PATH" sh tools/fuzz/fuzz.sh $$p $$t $(FUZZTIME) || exit 1; \
	done

# LOAD_WATCHERS and LOAD_WRITES size `make load`.
LOAD_WATCHERS ?= 1000
LOAD_WRITES   ?= 1000

## load: LOAD_WATCHERS watches over LOAD_WRITES writes through real HTTP on
## loopback (not in CI): every event once and in order, RSS per 1 000
## watches, goroutines and fds back to idle after; then the memory bar: the
## costliest bodies (issue 21's YAML aliases, the largest JSON, YAML and
## protobuf bodies, every patch type), each raising the server's peak RSS
## by at most the documented 384 MiB (TestRequestMemory)
load:
	LWSIM_LOAD_WATCHERS=$(LOAD_WATCHERS) LWSIM_LOAD_WRITES=$(LOAD_WRITES) LWSIM_LOAD_MEMORY=1 \
		$(GO) test -count=1 -run '^(TestLoad|TestRequestMemory)$$' -v -timeout 14m ./fakeapiserver/

## html-check: render scenarios' HTML pages (lw-sim explain NAME --html OUT)
## in headless Chromium and check the DOM and the screenshot; installs
## Debian's chromium (and a CJK font for the article's questions) if missing.
## LWSIM_SCREENSHOTS=DIR keeps the screenshots (DIR/<scenario>.png).
html-check:
	command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium fonts-wqy-zenhei; }
	$(GO) test -race -count=1 -run 'TestHTML' -v ./scenarios/

## soak: the chaos property machines (watchcheck, the server's watch
## machine, the client machine) with SOAK_CHECKS rapid checks each (default
## 3000) under SOAK_TIME (default 30m); prints checks per second. Then the
## race run: SOAK_WRITERS writers (32) and SOAK_WATCHERS watchers (200) over
## HTTP for SOAK_DURATION (2m30s) under -race, with its figures: events
## delivered, lost, duplicated, reordered, and leaks
soak:
	GO=$(GO) sh tools/soak/soak.sh

## fakeclient-proof: client-go's examples/fake-client, the unit tests of
## k8s.io/cloud-provider's controllers and k8s.io/dynamic-resource-allocation,
## and controller-runtime's tests of and with its fake client, copied from the
## module cache at run time, run with the upstream fake and with only the
## constructor's package swapped for fakeclientset or fakeclientset/crfake;
## prints pass counts and times side by side (tools/fakeclient-proof/run.sh)
fakeclient-proof:
	GO=$(GO) bash tools/fakeclient-proof/run.sh

## build: the lw-sim binary in $(BIN)/
build:
	$(GO) build -o $(BIN)/lw-sim ./cmd/lw-sim

# conformance and conformance-real (the suite against a real kube-apiserver).
include conformance.mk

# envtest-suites and envtest-suites-real (controller-runtime's envtest suites
# on lw-sim's kube-apiserver and etcd stand-ins, and on real ones).
include envtest.mk

# BENCH_FLAGS are extra flags for lw-sim bench in `make bench-real`, e.g.
# BENCH_FLAGS='--pods 2000 --watchers 500'.
BENCH_FLAGS ?=

.PHONY: bench-real
## bench-real: start the real kube-apiserver (tools/realapiserver, built on
## first use like conformance-real) and run `lw-sim bench --against` it: the
## fake and the real server on the same workloads, side by side
bench-real: $(REALAPISERVER_BIN)
	BENCH_FLAGS="$(BENCH_FLAGS)" sh $(REALAPISERVER_DIR)/bench-real.sh
