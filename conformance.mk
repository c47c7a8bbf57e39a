# conformance.mk — the conformance suite against a real kube-apiserver.
# Included from the Makefile (`include conformance.mk`).
#
#   make conformance        the suite against the embedded fake (part of go test ./...)
#   make conformance-real   build tools/realapiserver (first time ~15 min on 2 cores,
#                           then cached), start etcd + kube-apiserver v1.37.2 on
#                           loopback, run the suite against it and the fake, print
#                           the case | fake | real | agree table.
#
# tools/realapiserver is a separate Go module (k8s.io/kubernetes stays out of
# the main module's go.mod); it is built from the Go module proxy alone.

REALAPISERVER_DIR := tools/realapiserver
REALAPISERVER_BIN := $(REALAPISERVER_DIR)/bin/realapiserver
REALAPISERVER_SRC := $(REALAPISERVER_DIR)/go.mod $(REALAPISERVER_DIR)/go.sum $(wildcard $(REALAPISERVER_DIR)/*.go)

.PHONY: conformance conformance-real realapiserver

conformance:
	go test -count=1 ./conformance/...

realapiserver: $(REALAPISERVER_BIN)

# A test binary, not a main program: RunEtcd and StartTestServer need a real
# *testing.T (see tools/realapiserver/doc.go). Rebuilt only when its sources
# change; Go's build cache makes a rebuild after a small change quick.
$(REALAPISERVER_BIN): $(REALAPISERVER_SRC)
	cd $(REALAPISERVER_DIR) && go test -c -o bin/realapiserver .

conformance-real: $(REALAPISERVER_BIN)
	$(REALAPISERVER_DIR)/conformance-real.sh

# capture-apiserver: record the real kube-apiserver's discovery and OpenAPI
# documents into fakeapiserver/internal/captured (see its README.md).
.PHONY: capture-apiserver
capture-apiserver: $(REALAPISERVER_BIN)
	sh tools/capture-apiserver/capture.sh
