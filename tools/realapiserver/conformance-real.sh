#!/bin/sh
# conformance-real.sh starts the real etcd + kube-apiserver (bin/realapiserver,
# built by `make conformance-real`), runs lw-sim's conformance suite against
# it and against the embedded fake in one `go test`, prints the comparison
# table, and stops the server. Run from the repository root.
#
# Exit status: that of `go test` (non-zero if any case fails on either
# target), or 2 if the server did not come up.
set -eu

bin=tools/realapiserver/bin/realapiserver
dir=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-real.XXXXXX")
table="${LWSIM_TABLE:-$dir/table.md}"
log="$dir/realapiserver.log"

REALAPISERVER_DIR="$dir" "$bin" -test.run='^TestServe$' -test.timeout=0 -test.v >"$log" 2>&1 &
pid=$!
stop() {
	# Only the server this script started, by its id.
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
trap stop EXIT INT TERM

start=$(date +%s)
while [ ! -f "$dir/ready" ]; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "realapiserver exited before it was ready; log:" >&2
		tail -50 "$log" >&2
		exit 2
	fi
	if [ $(( $(date +%s) - start )) -gt 120 ]; then
		echo "realapiserver not ready after 120s; log in $log" >&2
		exit 2
	fi
	sleep 0.2
done
echo "real kube-apiserver ready after $(( $(date +%s) - start ))s (kubeconfig $dir/kubeconfig)"

rc=0
LWSIM_KUBECONFIG="$dir/kubeconfig" \
LWSIM_CONTROL_URL="$(cat "$dir/control-url")" \
LWSIM_BOTH=1 \
LWSIM_TABLE="$table" \
	go test ./conformance/ -run '^(TestConformance|TestDifferential)$' -count=1 ${CONFORMANCE_TESTFLAGS:-} >"$dir/go-test.log" 2>&1 || rc=$?
grep -E '^\s*--- FAIL' "$dir/go-test.log" | sed 's/ (.*//' | grep -Ev 'TestConformance(/[a-z]+)?(/(shared|exclusive))?$' || true
[ -f "$table" ] && cat "$table"
echo "full go test output: $dir/go-test.log; server log: $log"
exit $rc
