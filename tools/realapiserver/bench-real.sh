#!/bin/sh
# bench-real.sh starts the real etcd + kube-apiserver (bin/realapiserver,
# built by `make bench-real`) and a fake (`lw-sim serve`), each in its own
# process, and runs `lw-sim bench --fake ... --against ...` on them: the
# same workloads against both, one table, the bench's clients in a third
# process. (A fake inside the bench's process would share its threads,
# heap and collector with the clients, and on a busy machine get half the
# CPU the real server and its clients get: BENCH_FAKE_INPROCESS=1 measures
# it that way anyway.) Extra flags for lw-sim bench go in BENCH_FLAGS. Run
# from the repository root.
#
# Exit status: that of lw-sim bench, or 2 if a server did not come up.
set -eu

. tools/realapiserver/start.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/lwsim-bench-real.XXXXXX")
go build -o "$dir/lw-sim" ./cmd/lw-sim
start_realapiserver "$dir"
fake_flags=
if [ -z "${BENCH_FAKE_INPROCESS:-}" ]; then
	# No slow-watcher limits: the in-process fake's defaults (Config{}).
	"$dir/lw-sim" serve --listen 127.0.0.1:0 --kubeconfig "$dir/fake.kubeconfig" \
		--watch-max-lag 0 --watch-write-timeout 0 >"$dir/fake.log" 2>&1 &
	fake_pid=$!
	trap 'kill -TERM "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true
		kill -TERM "$rs_pid" 2>/dev/null || true; wait "$rs_pid" 2>/dev/null || true' EXIT INT TERM
	i=0
	until grep -q '^lw-sim serve: kubeconfig' "$dir/fake.log" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$fake_pid" 2>/dev/null; then
			echo "lw-sim serve did not come up; log:" >&2
			cat "$dir/fake.log" >&2
			exit 2
		fi
		sleep 0.1
	done
	fake_flags="--fake $dir/fake.kubeconfig"
fi
rc=0
"$dir/lw-sim" bench $fake_flags --against "$dir/kubeconfig" ${BENCH_FLAGS:-} || rc=$?
echo "server log: $dir/realapiserver.log"
exit $rc
