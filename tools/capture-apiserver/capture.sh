#!/bin/sh
# capture.sh starts the real etcd + kube-apiserver (bin/realapiserver, built by
# `make realapiserver`), records its discovery and OpenAPI documents into
# fakeapiserver/captured with tools/capture-apiserver, and stops the server.
# Run from the repository root.
set -eu

bin=tools/realapiserver/bin/realapiserver
dir=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-capture.XXXXXX")
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
go run ./tools/capture-apiserver -kubeconfig "$dir/kubeconfig" -out fakeapiserver/captured
echo "captured into fakeapiserver/captured (server log: $log)"
