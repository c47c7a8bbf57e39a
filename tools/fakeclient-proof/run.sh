#!/usr/bin/env bash
# fakeclient-proof: run upstream test suites that use client-go's fake
# clientset or controller-runtime's fake client twice, as published and with
# only the constructor's package swapped for lw-sim's, and print pass counts
# and times side by side.
#
# Upstream code is copied from the Go module cache into a temporary
# directory at run time and never committed. The swap is a sed over the
# copied test files:
#   - client-go's examples/fake-client: fake.NewSimpleClientset() becomes
#     fakeclientset.NewClientset(t) (t is in scope);
#   - module suites (k8s.io/cloud-provider, k8s.io/dynamic-resource-allocation):
#     the import "k8s.io/client-go/kubernetes/fake" becomes
#     "github.com/lw-sim/lw-sim/fakeclientset/fake", whose NewSimpleClientset
#     and NewClientset return the same *fake.Clientset type; in files that
#     use testing/synctest, fake.NewClientset() becomes
#     fakeclientset.NewClientset(t).Clientset, closed by t before the bubble
#     ends;
#   - controller-runtime's users of its fake client (pkg/client's
#     WithFieldOwner, WithStrictFieldValidation and consistency tests,
#     pkg/envtest/komega): the import "sigs.k8s.io/controller-runtime/pkg/client/fake"
#     becomes "github.com/lw-sim/lw-sim/fakeclientset/crfake/fake"; in files
#     that use testing/synctest it becomes crfake itself (named fake) and
#     fake.NewClientBuilder() becomes fake.NewClientBuilder(t);
#   - controller-runtime's pkg/client/fake tests, which are in the package
#     itself and call NewClientBuilder() unqualified: NewClientBuilder() and
#     AddIndex( become lwfake.NewClientBuilder() and lwfake.AddIndex( of
#     that package (the swap the import path makes in any other package).
# A go.mod replace points at this repository. Everything builds from the
# module cache; the Go module proxy is asked only for what a suite's module
# graph needs that the cache lacks (a go.mod file, once).
#
# Usage: tools/fakeclient-proof/run.sh [TARGET...]   (default: all)
# Environment: PROOF_KEEP=1 keeps the temporary directory; PROOF_RUN passes
# -run to go test.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
GO=${GO:-go}
modcache=$("$GO" env GOMODCACHE)
work=$(mktemp -d)
if [ "${PROOF_KEEP:-}" != 1 ]; then trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT; else echo "keeping $work"; fi
export GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local

clientgo=$modcache/k8s.io/client-go@v0.37.2
crversion=$(cd "$repo" && "$GO" list -m -f '{{.Version}}' sigs.k8s.io/controller-runtime)
cr=$modcache/sigs.k8s.io/controller-runtime@$crversion
# The pkg/client tests that use the fake client (the package's Ginkgo
# suite, TestClient, needs envtest's binaries and uses no fake).
crclientrun='^(TestWithFieldOwner|TestWithFieldOwnerOverridden|TestWithStrictFieldValidation|TestWithStrictFieldValidationOverridden|TestConsistentFakeClient|TestConsistentFakeClientDisableReadYourWritesConsistency|Test(Default)?(Get|List|Update|UpdateStatus|Object|ObjectList)|TestEqualObjectMatcher)$'

# targets: name|module dir|packages|swap (clientgo, crfake, crfake-internal)|-run
targets=(
	"client-go/examples/fake-client|example|./...|clientgo|"
	"k8s.io/cloud-provider@v0.37.2|$modcache/k8s.io/cloud-provider@v0.37.2|./controllers/...|clientgo|"
	"k8s.io/dynamic-resource-allocation@v0.37.2|$modcache/k8s.io/dynamic-resource-allocation@v0.37.2|./resourceslice/... ./deviceclass/... ./client/...|clientgo|"
	"controller-runtime@$crversion pkg/client/fake|$cr|./pkg/client/fake/|crfake-internal|"
	"controller-runtime@$crversion fake users|$cr|./pkg/client/ ./pkg/envtest/komega/|crfake|$crclientrun"
)

# prepare copies a target into $2 (as a module) and, for the swapped run,
# rewrites its tests.
prepare() {
	local src=$1 dst=$2 swap=$3 kind=$4
	if [ "$src" = example ]; then
		mkdir -p "$dst"
		cp "$clientgo"/examples/fake-client/*.go "$dst"/
		sed 's#^module .*#module fakeclientproof#' "$repo/go.mod" >"$dst/go.mod"
		cp "$repo/go.sum" "$dst/go.sum"
		printf '\nreplace github.com/lw-sim/lw-sim => %s\n' "$repo" >>"$dst/go.mod"
		chmod -R u+w "$dst"
		if [ "$swap" = 1 ]; then
			sed -i -e 's#"k8s.io/client-go/kubernetes/fake"#"github.com/lw-sim/lw-sim/fakeclientset"#' \
				-e 's#fake\.NewSimpleClientset()#fakeclientset.NewClientset(t)#' "$dst"/main_test.go
		fi
		return
	fi
	cp -r "$src" "$dst"
	chmod -R u+w "$dst"
	if [ "$swap" = 1 ] && [ "$kind" != clientgo ]; then
		swapcrfake "$dst" "$kind"
		printf '\nrequire github.com/lw-sim/lw-sim v0.0.0\nreplace github.com/lw-sim/lw-sim => %s\n' "$repo" >>"$dst/go.mod"
		cat "$repo/go.sum" >>"$dst/go.sum"
		return
	fi
	if [ "$swap" = 1 ]; then
		grep -rl --include='*_test.go' '"k8s.io/client-go/kubernetes/fake"' "$dst" | xargs sed -i \
			's#"k8s.io/client-go/kubernetes/fake"#"github.com/lw-sim/lw-sim/fakeclientset/fake"#'
		# A fake built inside a testing/synctest bubble must be closed
		# before the bubble ends, which only a t can do: there the call
		# becomes fakeclientset.NewClientset(t).Clientset (t is in scope).
		# (grep finds no such file in most suites: not an error.)
		{ grep -rl --include='*_test.go' 'testing/synctest' "$dst" || true; } | xargs -r grep -l 'fake\.NewClientset()' | while read -r f; do
			sed -i -e 's#\bfake\.NewClientset()#fakeclientset.NewClientset(t).Clientset#' \
				-e 's#^import (#import (\n\t"github.com/lw-sim/lw-sim/fakeclientset"#' "$f"
		done || true
		printf '\nrequire github.com/lw-sim/lw-sim v0.0.0\nreplace github.com/lw-sim/lw-sim => %s\n' "$repo" >>"$dst/go.mod"
		cat "$repo/go.sum" >>"$dst/go.sum"
	fi
}

# swapcrfake rewrites controller-runtime's tests in $1 to lw-sim's fake
# client: the import path in packages that import the fake ($2 crfake), the
# unqualified calls in the fake's own package ($2 crfake-internal).
swapcrfake() {
	local dst=$1 kind=$2
	if [ "$kind" = crfake ]; then
		# A client built inside a testing/synctest bubble must be closed
		# before the bubble ends, which only a t can do: there the import
		# is crfake itself (as fake) and the constructors take t.
		{ grep -rl --include='*_test.go' '"sigs.k8s.io/controller-runtime/pkg/client/fake"' "$dst" || true; } | { xargs -r grep -l 'testing/synctest' || true; } | xargs -r sed -i \
			-e 's#"sigs.k8s.io/controller-runtime/pkg/client/fake"#fake "github.com/lw-sim/lw-sim/fakeclientset/crfake"#' \
			-e 's#\bfake\.NewClientBuilder()#fake.NewClientBuilder(t)#g' -e 's#\bfake\.NewFakeClient(#fake.NewFakeClient(t, #g'
		grep -rl --include='*_test.go' '"sigs.k8s.io/controller-runtime/pkg/client/fake"' "$dst" | xargs -r sed -i \
			's#"sigs.k8s.io/controller-runtime/pkg/client/fake"#"github.com/lw-sim/lw-sim/fakeclientset/crfake/fake"#'
		return
	fi
	local f
	for f in "$dst"/pkg/client/fake/*_test.go; do
		grep -q -E '\bNewClientBuilder\(\)|\bAddIndex\(' "$f" || continue
		sed -i -E -e 's#(^|[^.[:alnum:]_])NewClientBuilder\(\)#\1lwfake.NewClientBuilder()#g' \
			-e 's#(^|[^.[:alnum:]_])AddIndex\(#\1lwfake.AddIndex(#g' \
			-e 's#\*ClientBuilder\b#*lwfake.ClientBuilder#g' \
			-e '0,/^import \(/s##import (\n\tlwfake "github.com/lw-sim/lw-sim/fakeclientset/crfake/fake"#' "$f"
	done
}

# runsuite runs go test -v in $1 over packages $2 and prints
# "PASS FAIL SKIP SECONDS" (subtests counted; seconds are the packages' own
# test times, compile excluded).
runsuite() {
	local dir=$1 pkgs=$2 log=$3 run=${PROOF_RUN:-$4}
	(cd "$dir" && "$GO" test -count=1 -v ${run:+-run "$run"} $pkgs >"$log" 2>&1) || true
	local pass fail skip secs
	pass=$(grep -c -- '--- PASS:' "$log" || true)
	fail=$(grep -c -- '--- FAIL:' "$log" || true)
	skip=$(grep -c -- '--- SKIP:' "$log" || true)
	# A Ginkgo suite is one Go test: count its specs instead, from its
	# summary line ("FAIL! -- 3 Passed | 1 Failed | 0 Pending | 2 Skipped").
	local gp gf gs
	read -r gp gf gs < <(awk '/-- [0-9]+ Passed \| [0-9]+ Failed/ {
		for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^Passed/) p += $i; if ($(i+1) ~ /^Failed/) { f += $i; if ($i > 0) wf++; else wp++ }
			if ($(i+1) ~ /^(Pending|Skipped)/) s += $i }
	} END { printf "%d %d %d %d %d\n", p, f, s, wp, wf }' < <(sed 's/\x1b\[[0-9;]*m//g' "$log") | { read -r p f s wp wf; echo "$((p - wp)) $((f - wf)) $s"; })
	pass=$((pass + gp)) fail=$((fail + gf)) skip=$((skip + gs))
	secs=$(awk '/^(ok|FAIL)[ \t]+[^ \t]+[ \t]+[0-9.]+s$/ {sub("s$", "", $3); t += $3} END {printf "%.2f", t}' "$log")
	if grep -q -E '^(FAIL|ok)[[:space:]]' "$log"; then :; else fail=$((fail + 1)); fi
	if grep -q -E '\[build failed\]|\[setup failed\]' "$log"; then echo "build failed: see $log" >&2; fail=$((fail + 1)); fi
	echo "$pass $fail $skip $secs"
}

printf '%-46s %-28s %-28s\n' target "upstream fake (pass/fail/skip, s)" "lw-sim (pass/fail/skip, s)"
status=0
for t in "${targets[@]}"; do
	IFS='|' read -r name src pkgs kind run <<<"$t"
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$name"; then continue; fi
	slug=$(echo "$name" | tr '/@ ' '___')
	prepare "$src" "$work/$slug-base" 0 "$kind"
	prepare "$src" "$work/$slug-swap" 1 "$kind"
	read -r bp bf bs bt < <(runsuite "$work/$slug-base" "$pkgs" "$work/$slug-base.log" "$run")
	read -r sp sf ss st < <(runsuite "$work/$slug-swap" "$pkgs" "$work/$slug-swap.log" "$run")
	printf '%-46s %-28s %-28s\n' "$name" "$bp/$bf/$bs, ${bt}s" "$sp/$sf/$ss, ${st}s"
	if [ "$sf" != 0 ]; then
		grep -E -- '--- FAIL:|^  \[FAIL\]' "$work/$slug-swap.log" | sed 's/^/    lw-sim: /' | head -60
		status=1
	fi
done
exit $status
