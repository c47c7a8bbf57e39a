#!/bin/sh
# soak.sh: run the chaos property machines with many rapid checks, under a
# time limit, and print checks per second for each. Used by "make soak".
#
#   SOAK_CHECKS  rapid checks per machine (default 3000)
#   SOAK_TIME    go test -timeout for the whole run (default 30m)
#   GO           the go command (default go)
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
