#!/bin/sh
# soak.sh: run the chaos property machines with many rapid checks, under a
# time limit, and print checks per second for each; then issue 21's race
# run (fakeapiserver TestSoakRace): writers and watchers over real HTTP for
# a few minutes under -race, and its figures. Used by "make soak".
#
#   SOAK_CHECKS    rapid checks per machine (default 3000)
#   SOAK_TIME      go test -timeout for each part (default 30m)
#   SOAK_WRITERS   writers of the race run (default 32)
#   SOAK_WATCHERS  watchers of the race run (default 200)
#   SOAK_DURATION  how long the race run writes (default 2m30s)
#   GO             the go command (default go)
set -eu
GO=${GO:-go}
checks=${SOAK_CHECKS:-3000}
limit=${SOAK_TIME:-30m}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$GO" test -race -count=1 -timeout "$limit" -v \
	-run '^(TestRapidCorrectStreamsPass|TestRapidMutatedStreamsFail|TestRapidWatchChaos|TestRapidClientChaos)$' \
	./watchcheck/ ./fakeapiserver/ ./listwatch/ -rapid.checks="$checks" >"$out" 2>&1 || status=$?
# rapid's own duration is on the bubble's virtual clock for the machines,
# so the rate uses go test's wall-clock time of each test.
awk '
	/\[rapid\] OK, passed [0-9]+ tests/ { for (i = 1; i <= NF; i++) if ($i == "passed") n = $(i + 1) }
	/^--- (PASS|FAIL): TestRapid/ {
		t = $4; gsub(/[()s]/, "", t)
		st = $2; sub(/:/, "", st); printf "%-32s %-4s %6d checks %8.1f s %8.1f checks/s\n", $3, st, n, t, (t > 0 ? n / t : 0)
		total += n; secs += t; n = 0
	}
	END { if (secs > 0) printf "%-32s      %6d checks %8.1f s %8.1f checks/s\n", "total", total, secs, total / secs }
' "$out"
if [ "$status" -ne 0 ]; then
	grep -v '^\s*$' "$out" | grep -E -- '--- FAIL|rapid\]|panic|timed out' | head -40
	exit "$status"
fi

# The race run: its figures are its log line (events delivered and
# expected, losses, duplicates, reorders, re-watches, and the goroutines and
# fds back to idle).
race=$(mktemp)
trap 'rm -f "$out" "$race"' EXIT
rstatus=0
LWSIM_SOAK_WRITERS=${SOAK_WRITERS:-32} LWSIM_SOAK_WATCHERS=${SOAK_WATCHERS:-200} LWSIM_SOAK_DURATION=${SOAK_DURATION:-2m30s} \
	"$GO" test -race -count=1 -timeout "$limit" -v -run '^TestSoakRace$' ./fakeapiserver/ >"$race" 2>&1 || rstatus=$?
grep -E 'soak:|idle again|--- (PASS|FAIL)|DATA RACE' "$race" | sed 's/^ *//'
if [ "$rstatus" -ne 0 ]; then
	grep -v '^\s*$' "$race" | grep -E -- '--- FAIL|soak|panic|timed out|WARNING: DATA RACE' | head -40
	exit "$rstatus"
fi
