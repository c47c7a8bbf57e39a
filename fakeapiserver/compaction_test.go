package fakeapiserver

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// startWithCompaction starts a server whose compaction policy is cc.
func startWithCompaction(t *testing.T, cc CompactionConfig, opts ...Option) (*Server, *compactor) {
	t.Helper()
	srv := Start(t, append(opts, WithConfig(func(c *Config) { c.Compaction = cc }))...)
	return srv, srv.compactor
}

func TestCompactionConfigDefaults(t *testing.T) {
	tests := []struct {
		in, want CompactionConfig
	}{
		{CompactionConfig{}, CompactionConfig{Interval: 5 * time.Minute, KeepRevisions: 100_000}},
		{CompactionConfig{Interval: -1, KeepRevisions: -1}, CompactionConfig{}},
		{CompactionConfig{Interval: time.Second, KeepRevisions: 7}, CompactionConfig{Interval: time.Second, KeepRevisions: 7}},
	}
	for _, tt := range tests {
		if got := tt.in.withDefaults(); got != tt.want {
			t.Errorf("%+v.withDefaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestCompact checks the Go API: CompactedRV, no-op backwards, the error
// for a future RV, and the LIST header.
func TestCompact(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	rvs := fiveCMs(t, cs)
	if got := srv.CompactedRV(); got != 0 {
		t.Errorf("CompactedRV() of a fresh server = %d, want 0", got)
	}
	if err := srv.Compact(rvs[2]); err != nil {
		t.Fatalf("Compact(%d) = %v", rvs[2], err)
	}
	if err := srv.Compact(rvs[0]); err != nil {
		t.Fatalf("Compact(%d) backwards = %v, want nil (no-op)", rvs[0], err)
	}
	if got := srv.CompactedRV(); got != rvs[2] {
		t.Errorf("CompactedRV() = %d, want %d", got, rvs[2])
	}
	future := srv.store.CurrentRV() + 1
	if err := srv.Compact(future); !errors.Is(err, store.ErrFutureRV) {
		t.Errorf("Compact(%d) = %v, want store.ErrFutureRV", future, err)
	}
	got := newListClient(t, srv).get(t, listPath("t1", nil))
	if h := got.header.Get("X-Lwsim-Compacted-Revision"); h != strconv.FormatInt(rvs[2], 10) {
		t.Errorf("LIST X-Lwsim-Compacted-Revision = %q, want %d", h, rvs[2])
	}
}

// TestCompactionKeepRevisions checks the revision-count policy: after each
// write the newest K RVs stay readable, older ones give 410.
func TestCompactionKeepRevisions(t *testing.T) {
	const keep = 8
	srv, _ := startWithCompaction(t, CompactionConfig{Interval: -1, KeepRevisions: keep})
	cs := srv.Clientset()
	ensureNamespace(t, cs, "t1")
	c := newListClient(t, srv)
	for i := range 20 {
		createCM(t, cs, newCM("t1", "cm-"+strconv.Itoa(i), i, nil))
		cur, compacted := srv.store.CurrentRV(), srv.CompactedRV()
		// Batches of keep/4 = 2: between keep and keep+2-1 RVs are retained.
		if retained := cur - compacted + 1; cur > keep && (retained < keep || retained > keep+1) {
			t.Fatalf("after write %d: current %d, compacted %d: %d RVs retained, want %d or %d", i, cur, compacted, retained, keep, keep+1)
		}
	}
	oldest := srv.store.CurrentRV() - keep + 1
	exact := func(rv int64) int {
		return c.get(t, listPath("t1", query("resourceVersion", strconv.FormatInt(rv, 10), "resourceVersionMatch", "Exact"))).code
	}
	if code := exact(oldest); code != http.StatusOK {
		t.Errorf("Exact LIST at the oldest kept rv %d = %d, want 200", oldest, code)
	}
	if code := exact(srv.CompactedRV() - 1); code != http.StatusGone {
		t.Errorf("Exact LIST below the compaction point = %d, want 410", code)
	}
}

// TestCompactionInterval runs kube-apiserver's periodic policy on a fake
// clock: each tick compacts to the RV recorded at the previous tick, so an
// RV stays readable for at least one interval.
func TestCompactionInterval(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, comp := startWithCompaction(t, CompactionConfig{Interval: time.Minute, KeepRevisions: -1}, WithClock(clk))
	cs := srv.Clientset()
	ensureNamespace(t, cs, "t1")
	tick := func() {
		t.Helper()
		want := comp.ticks.Load() + 1
		clk.Step(time.Minute)
		hung := hangGuard(t)
		for comp.ticks.Load() < want {
			select {
			case <-hung:
				t.Fatalf("compactor handled %d ticks, want %d before the test's deadline", comp.ticks.Load(), want)
			case <-time.After(time.Millisecond):
			}
		}
	}
	var recorded []int64
	for i := range 3 {
		createCM(t, cs, newCM("t1", "cm-"+strconv.Itoa(i), i, nil))
		recorded = append(recorded, srv.store.CurrentRV())
		tick()
	}
	// Tick 1 only recorded; ticks 2 and 3 compacted to what ticks 1 and 2 saw.
	if diff := cmp.Diff(recorded[1], srv.CompactedRV()); diff != "" {
		t.Errorf("CompactedRV() after 3 ticks (-want +got):\n%s", diff)
	}
}

// TestCompactorStopsWithServer checks the shutdown chain: Close cancels
// the compactor's context and stop waits for it (goleak checks the rest).
func TestCompactorStopsWithServer(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv, comp := startWithCompaction(t, CompactionConfig{Interval: time.Second}, WithClock(clk))
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	comp.stop()
	comp.stop() // idempotent
	var nilCompactor *compactor
	nilCompactor.stop()
}
