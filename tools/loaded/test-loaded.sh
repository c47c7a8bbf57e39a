#!/bin/sh
# test-loaded.sh runs `make test` on a machine loaded LOAD_FACTOR times
# over (`make test-loaded`): LOAD_FACTOR × (number of CPUs) busy loops
# compete with the tests for every CPU, so each test gets about a
# LOAD_FACTOR+1-th of the CPU time it gets on a quiet machine. It proves
# that no test depends on how fast the machine is (issue 21: tests wait on
# virtual time or on events, never on a wall-clock budget).
#
# The busy loops and the tests all run at nice 19, so they compete with
# each other as LOAD_FACTOR says while a shared machine's other work goes
# first. The loops are this script's children and are ended, by their ids,
# when it exits.
#
#   LOAD_FACTOR   busy loops per CPU (default 10)
#   TEST_TIMEOUT  go test's -timeout per package (default 180m: the quiet
#                 14m scaled for the load)
#   GOMAXPROCS    passed on when set (e.g. 1, for one scheduler thread)
set -eu
factor=${LOAD_FACTOR:-10}
timeout=${TEST_TIMEOUT:-180m}
cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
loops=$((factor * cpus))
pids=""
stop_loops() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
}
trap stop_loops EXIT INT TERM
i=0
while [ "$i" -lt "$loops" ]; do
	nice -n 19 sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
echo "test-loaded: $loops busy loops on $cpus CPUs (load factor $factor), go test -timeout $timeout${GOMAXPROCS:+, GOMAXPROCS=$GOMAXPROCS}"
start=$(date +%s)
status=0
nice -n 19 make test TEST_TIMEOUT="$timeout" || status=$?
end=$(date +%s)
echo "test-loaded: make test exited $status after $(((end - start) / 60))m$(((end - start) % 60))s under load factor $factor"
exit "$status"
