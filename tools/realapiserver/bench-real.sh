#!/bin/sh
# bench-real.sh starts the real etcd + kube-apiserver (bin/realapiserver,
# built by `make bench-real`) and runs `lw-sim bench --against` it: the
# same workloads against the in-process fake and the real server, one
# table. Extra flags for lw-sim bench go in BENCH_FLAGS. Run from the
# repository root.
#
# Exit status: that of lw-sim bench, or 2 if the server did not come up.
set -eu

. tools/realapiserver/start.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-bench-real.XXXXXX")
go build -o "$dir/lw-sim" ./cmd/lw-sim
start_realapiserver "$dir"
rc=0
"$dir/lw-sim" bench --against "$dir/kubeconfig" ${BENCH_FLAGS:-} || rc=$?
echo "server log: $dir/realapiserver.log"
exit $rc
