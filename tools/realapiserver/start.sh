# start.sh is sourced (". tools/realapiserver/start.sh") by the scripts that
# need a running real etcd + kube-apiserver (conformance-real.sh, and
# tools/capture-apiserver/capture.sh). It defines start_realapiserver.
#
# start_realapiserver DIR starts bin/realapiserver with REALAPISERVER_DIR=DIR
# (log in DIR/realapiserver.log), stops it when the calling script exits
# (only the server it started, by its id), and returns once DIR/ready
# exists: DIR/kubeconfig and DIR/control-url are then written. If the
# server exits first or is not ready within 120 s, the script exits 2.

start_realapiserver() {
	rs_dir=$1
	rs_log="$rs_dir/realapiserver.log"
	REALAPISERVER_DIR="$rs_dir" tools/realapiserver/bin/realapiserver \
		-test.run='^TestServe$' -test.timeout=0 -test.v >"$rs_log" 2>&1 &
	rs_pid=$!
	trap 'kill -TERM "$rs_pid" 2>/dev/null || true; wait "$rs_pid" 2>/dev/null || true' EXIT INT TERM
	rs_start=$(date +%s)
	while [ ! -f "$rs_dir/ready" ]; do
		if ! kill -0 "$rs_pid" 2>/dev/null; then
			echo "realapiserver exited before it was ready; log:" >&2
			tail -50 "$rs_log" >&2
			exit 2
		fi
		if [ $(( $(date +%s) - rs_start )) -gt 120 ]; then
			echo "realapiserver not ready after 120s; log in $rs_log" >&2
			exit 2
		fi
		sleep 0.2
	done
	echo "real kube-apiserver ready after $(( $(date +%s) - rs_start ))s (kubeconfig $rs_dir/kubeconfig)"
}
