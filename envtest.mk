# envtest.mk — controller-runtime's own envtest suites, run in envtest's
# normal mode (KUBEBUILDER_ASSETS) against lw-sim's stand-ins and against a
# real kube-apiserver and etcd. Included from the Makefile.
#
#   make envtest-suites        bin/lw-sim envtest-assets bin/envtest-assets, then the
#                              suites against it: the table (real vs lw-sim), and exit 1
#                              if a spec that passes on the real server fails on lw-sim
#                              (exempt.json lists the known ones, each with its reason)
#   make envtest-suites-real   build a real kube-apiserver v1.37.2 and etcd v3.7.0 from Go
#                              modules (tools/envtestsuites/build-real.sh), run the suites
#                              against them and rewrite tools/envtestsuites/expected.json
#
# The suites come from the module cache (sigs.k8s.io/controller-runtime,
# ENVTEST_SUITES_VERSION), copied to a work directory in $TMPDIR; nothing of
# them is kept in the repository. ENVTEST_SUITES_FLAGS passes more flags to
# tools/envtestsuites, e.g. ENVTEST_SUITES_FLAGS='-packages pkg/cache'.

ENVTEST_SUITES_DIR     := tools/envtestsuites
ENVTEST_SUITES_VERSION ?= v0.25.3
ENVTEST_SUITES_FLAGS   ?=
ENVTEST_LWSIM_ASSETS   := $(BIN)/envtest-assets
ENVTEST_REAL_ASSETS    := $(REALAPISERVER_DIR)/bin/envtest
ENVTEST_SUITES_RUN      = $(GO) run ./$(ENVTEST_SUITES_DIR) -version $(ENVTEST_SUITES_VERSION) \
	-expected $(ENVTEST_SUITES_DIR)/expected.json $(ENVTEST_SUITES_FLAGS)

.PHONY: envtest-suites envtest-suites-real

envtest-suites: build
	$(BIN)/lw-sim envtest-assets $(ENVTEST_LWSIM_ASSETS)
	$(ENVTEST_SUITES_RUN) -assets $(ENVTEST_LWSIM_ASSETS) -label lw-sim -exempt $(ENVTEST_SUITES_DIR)/exempt.json

$(ENVTEST_REAL_ASSETS)/kube-apiserver: $(REALAPISERVER_DIR)/go.mod $(REALAPISERVER_DIR)/go.sum $(ENVTEST_SUITES_DIR)/build-real.sh
	sh $(ENVTEST_SUITES_DIR)/build-real.sh $(ENVTEST_REAL_ASSETS)

envtest-suites-real: $(ENVTEST_REAL_ASSETS)/kube-apiserver
	$(ENVTEST_SUITES_RUN) -assets $(ENVTEST_REAL_ASSETS) -label real -update
