#!/bin/sh
# run.sh runs Kubernetes' own e2e specs, selected by a ginkgo focus, against
# `lw-sim serve`, where they live: k8s.io/kubernetes/test/e2e at the version
# tools/realapiserver's go.mod pins, from the module cache (go fetches it on
# first use), never copied into this repository. The e2e.test binary is
# built in a throwaway module holding a copy of that go.mod and go.sum (so
# tools/realapiserver's own files are never touched), and kept in
# E2E_SPECS_DIR between runs (a first build takes long on 2 cores; later
# ones reuse the build cache).
#
#   tools/e2especs/run.sh [FOCUS]   default FOCUS: AdmissionPolicy
#
# The server runs with the namespace, service account, garbage collector
# and ValidatingAdmissionPolicy status controllers (the framework's
# AfterEach deletes its namespace; the type-checking specs wait for the
# policy's status).
# Its BeforeEach would also wait for the namespace's kube-root-ca.crt
# ConfigMap, which kube-controller-manager's root-ca-cert-publisher writes
# and lw-sim has no controller for: --e2e-verify-service-account=false
# skips that wait (and the default ServiceAccount's). The cluster has no nodes: the suite's
# node and kube-system pod checks are turned off (--allowed-not-ready-nodes
# -1, --minStartupPods 0, --num-nodes 1 so it does not count them), as for
# a control plane alone. Exit status: that
# of e2e.test. Run from the repository root; E2E_SERVER=real runs the same
# specs against tools/realapiserver instead, with kube-controller-manager's
# own controllers of the same names (make realapiserver first).
set -eu

focus=${1:-AdmissionPolicy}
dir=${E2E_SPECS_DIR:-${TMPDIR:-/tmp}/lwsim-e2especs}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

if [ ! -x "$dir/e2e.test" ] || [ tools/realapiserver/go.mod -nt "$dir/e2e.test" ]; then
	mod="$dir/module"
	rm -rf "$mod"
	mkdir -p "$mod"
	cp tools/realapiserver/go.mod tools/realapiserver/go.sum "$mod/"
	echo 'package e2especs' >"$mod/doc.go"
	(cd "$mod" && go mod edit -module lwsim.local/e2especs &&
		echo "e2especs: building k8s.io/kubernetes/test/e2e $(go list -m -f '{{.Version}}' k8s.io/kubernetes)" &&
		GOFLAGS=-mod=mod go test -c -o "$dir/e2e.test" k8s.io/kubernetes/test/e2e)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-e2e-run.XXXXXX")
controllers=serviceaccount-controller,namespace-controller,garbage-collector-controller,validatingadmissionpolicy-status-controller
kubeconfig="$work/kubeconfig"
case ${E2E_SERVER:-lw-sim} in
real)
	# The same controllers, kube-controller-manager's own, run by
	# realapiserver beside its kube-apiserver (its control endpoint).
	. tools/realapiserver/start.sh
	start_realapiserver "$work"
	control=$(cat "$work/control-url")
	# Its kubeconfig names the serving certificate by tls-server-name,
	# which the e2e framework drops (it overrides the server with --host's
	# value, and clientcmd clears tls-server-name with it): the e2e
	# client skips verification instead, on loopback.
	sed -e '/certificate-authority-data:/d' -e '/tls-server-name:/d' \
		-e 's/^\( *\)server: /\1insecure-skip-tls-verify: true\
\1server: /' "$work/kubeconfig" >"$work/e2e.kubeconfig"
	kubeconfig="$work/e2e.kubeconfig"
	for c in $(echo "$controllers" | tr , ' '); do
		curl -fsS -X POST "$control/controllers/start?name=$c" >/dev/null
	done
	;;
lw-sim)
	server_pid=
	cleanup() {
		if [ -n "$server_pid" ]; then
			kill "$server_pid" 2>/dev/null || true
			wait "$server_pid" 2>/dev/null || true
		fi
	}
	trap cleanup EXIT INT TERM

	go build -o "$work/lw-sim" ./cmd/lw-sim
	"$work/lw-sim" serve --listen 127.0.0.1:0 --kubeconfig "$kubeconfig" \
		--controllers "$controllers" >"$work/server.log" 2>&1 &
	server_pid=$!
	i=0
	until [ -s "$kubeconfig" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$server_pid" 2>/dev/null; then
			echo "e2especs: lw-sim serve did not come up:" >&2
			cat "$work/server.log" >&2
			exit 2
		fi
		sleep 0.1
	done
	;;
*)
	echo "e2especs: E2E_SERVER=$E2E_SERVER: want lw-sim or real" >&2
	exit 2
	;;
esac

cd "$work"
rc=0
"$dir/e2e.test" --kubeconfig "$kubeconfig" --provider skeleton \
	--allowed-not-ready-nodes -1 --minStartupPods 0 --num-nodes 1 \
	--e2e-verify-service-account=false \
	--ginkgo.focus "$focus" --ginkgo.no-color --ginkgo.v --ginkgo.timeout "${E2E_TIMEOUT:-20m}" \
	--report-dir "$work" >"$work/e2e.log" 2>&1 || rc=$?
grep -E '^(•|\[FAIL\]|\[PANICKED\]|Ran [0-9]+ of|FAIL!|SUCCESS!)|^\s+\[FAIL\]' "$work/e2e.log" || true
echo "e2especs: full log $work/e2e.log; exit $rc"
exit $rc
