package fakeapiserver

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// TestCompactionInterval runs kube-apiserver's periodic policy in a
// synctest bubble: each tick is a write of its own (the RV grows by one)
// and compacts to the RV of the previous tick's write, so an RV stays
// readable for at least one interval.
func TestCompactionInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, WithConfig(func(c *Config) {
			c.Compaction = CompactionConfig{Interval: time.Minute, KeepRevisions: -1}
		}))
		ensureNamespace(t, b.cs, "t1")
		var written, ticked []int64
		for i := range 3 {
			written = append(written, createCM(t, b.cs, newCM("t1", "cm-"+strconv.Itoa(i), i, nil)))
			time.Sleep(time.Minute)
			synctest.Wait() // the tick is handled
			ticked = append(ticked, b.srv.store.CurrentRV())
		}
		// Every tick wrote once: one RV past the create before it.
		for i := range ticked {
			if ticked[i] != written[i]+1 {
				t.Errorf("RV after tick %d = %d, want %d (the create's %d plus the tick's own write)", i+1, ticked[i], written[i]+1, written[i])
			}
		}
		// Tick 1 only wrote; tick 3 compacted to tick 2's write.
		if diff := cmp.Diff(ticked[1], b.srv.CompactedRV()); diff != "" {
			t.Errorf("CompactedRV() after 3 ticks (-want +got):\n%s", diff)
		}
	})
}

// TestCompactionExpiresContinueWhenIdle is the Kubernetes e2e chunking
// spec's scenario on virtual time: on a server nobody writes to, a
// continue token survives one compaction tick and expires at the second,
// because each tick's own write moves the revision past the token's.
func TestCompactionExpiresContinueWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t) // the default policy: every 5 minutes
		ensureNamespace(t, b.cs, "t1")
		for i := range 2 {
			createCM(t, b.cs, newCM("t1", "cm-"+strconv.Itoa(i), i, nil))
		}
		cms := b.cs.CoreV1().ConfigMaps("t1")
		first, err := cms.List(t.Context(), metav1.ListOptions{Limit: 1})
		if err != nil || first.Continue == "" {
			t.Fatalf("first page: continue %q, err %v; want a token", first.Continue, err)
		}
		next := func() error {
			_, err := cms.List(t.Context(), metav1.ListOptions{Limit: 1, Continue: first.Continue})
			return err
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if err := next(); err != nil {
			t.Fatalf("continue after one tick: %v, want the second page", err)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		err = next()
		if !apierrors.IsResourceExpired(err) {
			t.Fatalf("continue after two ticks: %v, want 410 Expired", err)
		}
		const wantPrefix = "The provided continue parameter is too old to display a consistent list result."
		if !strings.HasPrefix(err.Error(), wantPrefix) {
			t.Errorf("continue after two ticks: %q, want it to start %q", err.Error(), wantPrefix)
		}
	})
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
