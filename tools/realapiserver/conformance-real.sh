#!/bin/sh
# conformance-real.sh starts the real etcd + kube-apiserver (bin/realapiserver,
# built by `make conformance-real`), runs lw-sim's conformance suite against
# it and against the embedded fake in one `go test`, prints the comparison
# table, and stops the server. Run from the repository root.
#
# Exit status: that of `go test` (non-zero if any case fails on either
# target), or 2 if the server did not come up.
set -eu

. tools/realapiserver/start.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-real.XXXXXX")
table="${LWSIM_TABLE:-$dir/table.md}"
start_realapiserver "$dir"

rc=0
LWSIM_KUBECONFIG="$dir/kubeconfig" \
LWSIM_CONTROL_URL="$(cat "$dir/control-url")" \
LWSIM_CLIENT_CA="$dir/client-ca" \
LWSIM_BOTH=1 \
LWSIM_SLOW=1 \
LWSIM_TABLE="$table" \
	go test ./conformance/ -run '^(TestConformance|TestDifferential)$' -count=1 -timeout 30m ${CONFORMANCE_TESTFLAGS:-} >"$dir/go-test.log" 2>&1 || rc=$?
grep -E '^\s*--- FAIL' "$dir/go-test.log" | sed 's/ (.*//' | grep -Ev 'TestConformance(/[a-z]+)?(/(shared|exclusive))?$' || true
# A differential failure prints its op sequence and diff: the log is gone
# once a CI machine is.
grep -A40 -E '^\s+--- FAIL: TestDifferential/' "$dir/go-test.log" | head -200 || true
[ -f "$table" ] && cat "$table"
# A failure that is no case's (a build error, a panic, go test's timeout)
# prints no FAIL line and no table: show the log's end.
if [ $rc -ne 0 ] && ! grep -qE '^\s*--- FAIL' "$dir/go-test.log"; then
	tail -60 "$dir/go-test.log"
fi
echo "full go test output: $dir/go-test.log; server log: $dir/realapiserver.log"
exit $rc
