package fakeapiserver

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

const (
	// defaultCompactionInterval is kube-apiserver's --etcd-compaction-interval
	// default (apiserver pkg/server/options/etcd.go): every 5 minutes it asks
	// etcd to compact to the revision it saw at the previous tick, so etcd
	// keeps between 5 and 10 minutes of history. That is well above the 75 s
	// a re-list or re-watch needs (the watch cache's eventFreshDuration) and
	// bounds memory by the write rate.
	defaultCompactionInterval = 5 * time.Minute
	// defaultKeepRevisions caps the history by count on top of the interval,
	// so a long load test at thousands of writes per second cannot grow the
	// store without bound (a retained write costs a few KiB: the object plus
	// O(log n) tree nodes). 100 000 revisions keep the 75 s re-watch window
	// intact up to about 1 300 writes/s, and cost at most ~0.5 GiB.
	defaultKeepRevisions = 100_000

	// compactedRevisionHeader is set on every LIST response, success or
	// error: the oldest resourceVersion the server can still serve an exact
	// list, a continue token or a watch from ([Server.CompactedRV]). It is a
	// fake-only header, so tests and the lw-sim CLI can see why a 410 came.
	compactedRevisionHeader = "X-Lwsim-Compacted-Revision"
)

// CompactionConfig sets when the server compacts its history, the way etcd
// under kube-apiserver does. After a compaction to RV c, exact lists and
// continue tokens at RVs below c get 410 Expired and watches from below c
// get the "too old resource version" ERROR event. Both policies may be on at
// once; [Server.Compact] compacts by hand whatever the policy.
type CompactionConfig struct {
	// Interval compacts periodically, on [Config.Clock], as
	// kube-apiserver's compactor does (apiserver
	// pkg/storage/etcd3/compact.go): every tick is a write that advances
	// the RV by one (no object changes, no watch event), and compacts to
	// the RV of the previous tick's write (the first tick only writes), so
	// every RV stays readable for at least Interval and at most
	// 2*Interval, on an idle server too. If zero, 5 minutes; negative
	// disables it.
	Interval time.Duration
	// KeepRevisions keeps at least the newest KeepRevisions RVs readable and
	// compacts older ones as writes come, in batches of a quarter of
	// KeepRevisions (etcd's revision-based auto-compaction). It is checked
	// synchronously on each write. If zero, 100 000; negative disables it.
	KeepRevisions int64
}

// withDefaults resolves zero fields to their defaults and negative ones to
// 0 ("off").
func (cc CompactionConfig) withDefaults() CompactionConfig {
	switch {
	case cc.Interval == 0:
		cc.Interval = defaultCompactionInterval
	case cc.Interval < 0:
		cc.Interval = 0
	}
	switch {
	case cc.KeepRevisions == 0:
		cc.KeepRevisions = defaultKeepRevisions
	case cc.KeepRevisions < 0:
		cc.KeepRevisions = 0
	}
	return cc
}

// compactor runs the Interval policy in one goroutine owned by the server.
//
// Shutdown chain: Server.Close cancels stopCtx (or stop cancels the
// compactor's own context) → run returns → stop's wg.Wait returns.
type compactor struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// ticks counts the ticks run has handled, so tests on a fake clock
	// can tell when a tick is done.
	ticks atomic.Int64
}

// startCompactor applies cc to the server: it sets the store's revision
// cap and, for a periodic policy, starts the goroutine that compacts on
// s.cfg.Clock. The returned compactor must be stopped (nil-safe) by Close.
func (s *Server) startCompactor(cc CompactionConfig) *compactor {
	cc = cc.withDefaults()
	s.store.SetRetention(cc.KeepRevisions)
	ctx, cancel := context.WithCancel(s.stopCtx)
	c := &compactor{cancel: cancel}
	if cc.Interval > 0 {
		ticker := s.cfg.Clock.NewTicker(cc.Interval)
		c.wg.Go(func() { s.runCompactor(ctx, c, ticker) })
	}
	return c
}

// runCompactor is the periodic loop of kube-apiserver's compactor
// (etcd3/compact.go runCompactLoop + Compact). Each tick:
//
//  1. writes compact_rev_key, its lease and clock, which is itself a write:
//     the revision grows by one although no object changed
//     ([store.Store.AdvanceRV]);
//  2. compacts to the revision recorded at the previous tick, except at
//     the first ("We don't compact on bootstrap");
//  3. records the revision of its own write for the next tick.
//
// Step 1 is why history runs out on an idle cluster too: a continue token
// or an exact RV from before one tick is compacted at the next but one, so
// it lives between one and two intervals (the Kubernetes e2e chunking spec
// "should support continue listing from the last key if the continue token
// is expired" waits for exactly that).
func (s *Server) runCompactor(ctx context.Context, c *compactor, ticker clock.Ticker) {
	defer ticker.Stop()
	var prev int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		rv := s.store.AdvanceRV()
		if prev > 0 {
			// prev < rv <= CurrentRV, so Compact cannot fail.
			_ = s.Compact(prev)
		}
		prev = rv
		c.ticks.Add(1)
	}
}

// stop ends the goroutine and waits for it. It is safe on a nil compactor
// and safe to call more than once.
func (c *compactor) stop() {
	if c == nil {
		return
	}
	c.cancel()
	c.wg.Wait()
}

// Compact makes rv the oldest resourceVersion the server serves, like an
// etcd compaction: afterwards an exact LIST (resourceVersionMatch=Exact, or
// a legacy resourceVersion with limit) below rv gets 410 Expired "The
// resourceVersion for the provided list is too old.", a continue token
// whose RV is below rv gets the inconsistent-continue 410 with an rv -1
// token, and a watch from below rv gets the "too old resource version"
// ERROR event. Reads at rv itself still work.
//
// Compact does nothing if rv is at or below [Server.CompactedRV]. It fails,
// wrapping store.ErrFutureRV, if rv is above the server's current RV.
func (s *Server) Compact(rv int64) error {
	if err := s.store.Compact(rv); err != nil {
		return fmt.Errorf("fakeapiserver: %w", err)
	}
	return nil
}

// CompactedRV returns the oldest resourceVersion the server can still
// serve exactly: 0 until the first compaction. Every LIST response carries
// it in the X-Lwsim-Compacted-Revision header too.
func (s *Server) CompactedRV() int64 { return s.store.CompactedRV() }

// setCompactedHeader adds the compaction point to a LIST response.
func (s *Server) setCompactedHeader(w http.ResponseWriter) {
	w.Header().Set(compactedRevisionHeader, strconv.FormatInt(s.store.CompactedRV(), 10))
}
