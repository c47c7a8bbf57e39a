package conformance

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// compactionIdleCases are the cases of this file, in the order [Cases] runs them.
func compactionIdleCases() []Case {
	return []Case{
		{Name: "ListContinueExpiresWhenIdle", Run: runListContinueExpiresWhenIdle, Slow: true},
	}
}

const (
	// compactionInterval is kube-apiserver's --etcd-compaction-interval
	// default, which both targets run with.
	compactionInterval = 5 * time.Minute
	// idleExpiryPoll is how often the real target's case retries its
	// continue token while it waits for the compactor.
	idleExpiryPoll = 10 * time.Second
	// slowEnv runs Slow cases on targets without a Clock (a real server,
	// where they wait minutes); conformance-real.sh sets it.
	slowEnv = "LWSIM_SLOW"
)

// runListContinueExpiresWhenIdle is the Kubernetes e2e [Conformance]
// chunking spec "should support continue listing from the last key if the
// continue token is expired", which waits on a real cluster for its token
// to expire with nobody writing: kube-apiserver's compactor
// (apiserver pkg/storage/etcd3/compact.go) writes compact_rev_key at every
// tick, which advances the revision, and compacts to the previous tick's
// revision, so a token lives between one and two compaction intervals.
//
// On a target with a Clock the case moves it one interval at a time and
// checks the token survives the first tick; on a real server it retries
// the token until the 410 comes (at most two intervals plus the watch
// cache's 15 s compaction poll).
func runListContinueExpiresWhenIdle(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b")
	p1 := e.list(ctx, "limit", "1")
	if p1.Metadata.Continue == "" {
		t.Fatal("first page of two objects with limit=1 has no continue token")
	}
	next := func() response {
		return e.c.do(ctx, t, request{Path: e.cms(), Query: q("limit", "1", "continue", p1.Metadata.Continue)})
	}
	if clk, ok := target.(Clock); ok {
		e.tickCompactor(ctx, clk)
		if r := next(); r.Code != http.StatusOK {
			t.Fatalf("continue after one compaction tick = %d, want 200 (the token lives at least one interval):\n%s", r.Code, r.Body)
		}
		e.tickCompactor(ctx, clk)
	}
	r := next()
	for r.Code == http.StatusOK {
		select {
		case <-ctx.Done():
			t.Fatalf("continue token still served after %v: %v", 2*compactionInterval, ctx.Err())
		case <-time.After(idleExpiryPoll):
		}
		r = next()
	}
	want := wantStatus(http.StatusGone, metav1.StatusReasonExpired, inconsistentContinueMsg, nil)
	want.Continue = true
	checkStatus(t, "continue after two compaction ticks", r, want)
}

// tickCompactor moves clk one compaction interval, which crosses exactly
// one tick of the fake's compactor, and waits until the tick has written:
// the case runs exclusive, so nothing else moves the revision.
func (e *env) tickCompactor(ctx context.Context, clk Clock) {
	e.t.Helper()
	before := e.currentRV(ctx)
	clk.Advance(compactionInterval)
	for e.currentRV(ctx) == before {
		select {
		case <-ctx.Done():
			e.t.Fatalf("the compactor's tick did not advance the revision past %d: %v", before, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// slowCaseAllowed reports whether a Slow case may run on target: always
// where it can move the clock, elsewhere only when LWSIM_SLOW is set.
func slowCaseAllowed(target Target) bool {
	_, clock := target.(Clock)
	return clock || os.Getenv(slowEnv) != ""
}
