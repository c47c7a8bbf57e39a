#!/bin/sh
# capture.sh starts the real etcd + kube-apiserver (bin/realapiserver, built by
# `make realapiserver`), records its discovery and OpenAPI documents into
# fakeapiserver/internal/captured with tools/capture-apiserver, and stops the server.
# Run from the repository root.
set -eu

. tools/realapiserver/start.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-capture.XXXXXX")
start_realapiserver "$dir"
go run ./tools/capture-apiserver -kubeconfig "$dir/kubeconfig" -out fakeapiserver/internal/captured
echo "captured into fakeapiserver/internal/captured (server log: $dir/realapiserver.log)"
