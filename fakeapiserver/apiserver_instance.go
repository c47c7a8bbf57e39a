package fakeapiserver

import (
	"sort"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// apiserverInstance is one kube-apiserver in front of the server's one
// store (the cluster's etcd): a view whose watch cache has seen the store up
// to its position, the RV it serves cache reads at (apiserver
// pkg/storage/cacher/watch_cache.go, watchCache.resourceVersion).
//
// An instance with no lag and no freeze is fresh: its cache follows the
// store exactly, and every read behaves as the single-apiserver server did
// before instances existed (reads at "the latest state", store waits). The
// faults make it stale:
//
//	fresh ──SetLag/Freeze──► stale (position ≤ store RV, only grows)
//	stale ──ClearLag+Unfreeze──► fresh
//	any ──Restart──► same state, position = store RV, watches ended,
//	                 no watch resumes below the restart RV
//
// Each instance has a second view, storage: how it reads the resources
// kube-apiserver keeps no watch cache of (events, watch_cache.go
// hasWatchCache), which it serves from etcd directly. That view has no lag
// and no freeze of its own; it shares the instance's partition (etcd is
// unreachable for both) and its restart (the process's watches end), but
// not the restart floor (an etcd watch resumes from any RV etcd still
// has).
//
// The position of a stale cache is monotonic (a watch cache never goes
// back): max of its last value and the lag target, and never below the
// store's compaction point (the cacher's reflector, whose etcd watch is
// compacted away, relists: apiserver pkg/storage/cacher/cacher.go
// startCaching, so the cache jumps forward).
type apiserverInstance struct {
	name string
	clk  clock.PassiveClock
	st   *store.Store
	// uncached marks the storage view of an instance (see storage).
	uncached bool
	// storage is the instance's view for resources it serves from storage
	// directly (nil on that view itself); set once at construction.
	storage *apiserverInstance

	// mu guards the fields below.
	mu sync.Mutex
	// lagEvents delays the cache by that many store writes; lagTime by
	// that long on the server's clock (each write is visible lagTime after
	// it was stamped). At most one is set.
	lagEvents int64
	lagTime   time.Duration
	// frozen stops the cache at pos; partitioned also cuts it off the store
	// (reads the cacher delegates and writes fail).
	frozen, partitioned bool
	// pos is the position of a stale cache (unused while fresh).
	pos int64
	// floor is the RV of the last restart: no watch resumes below it
	// (the re-initialised cache's history starts there).
	floor int64
	// stamps are the store RVs with the clock reading they were first seen
	// at, kept while lagTime is set.
	stamps []rvStamp
	// changed is closed when the settings change (waiters recompute).
	changed chan struct{}
	// restarted is closed by Restart to end this instance's watches.
	restarted chan struct{}
	// served counts the requests balanced to this instance.
	served int64
}

// rvStamp is when the store was seen at rv.
type rvStamp struct {
	rv int64
	at time.Time
}

// newAPIServerInstance returns a fresh instance over st.
func newAPIServerInstance(name string, st *store.Store, clk clock.PassiveClock) *apiserverInstance {
	a := &apiserverInstance{name: name, clk: clk, st: st, changed: make(chan struct{}), restarted: make(chan struct{})}
	a.storage = &apiserverInstance{name: name, clk: clk, st: st, changed: make(chan struct{}), restarted: make(chan struct{}), uncached: true}
	return a
}

// isFreshLocked reports whether the cache follows the store exactly.
func (a *apiserverInstance) isFreshLocked() bool {
	return a.lagEvents == 0 && a.lagTime == 0 && !a.frozen && !a.partitioned
}

// cacheRV returns the position of the cache and whether it is fresh (then
// the position is the store's current RV, read now).
func (a *apiserverInstance) cacheRV() (int64, bool) {
	cur := a.st.CurrentRV()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.isFreshLocked() {
		return cur, true
	}
	return a.positionLocked(cur), false
}

// positionLocked advances and returns the stale cache's position given the
// store's current RV.
func (a *apiserverInstance) positionLocked(cur int64) int64 {
	target := a.pos
	switch {
	case a.frozen || a.partitioned:
	case a.lagEvents > 0:
		target = cur - a.lagEvents
	case a.lagTime > 0:
		a.stampLocked(cur)
		target = a.visibleStampLocked(a.clk.Now().Add(-a.lagTime))
	}
	a.pos = min(max(a.pos, target, a.st.CompactedRV()), cur)
	return a.pos
}

// stampLocked records that the store is at cur now, if that is news.
func (a *apiserverInstance) stampLocked(cur int64) {
	if n := len(a.stamps); n == 0 || a.stamps[n-1].rv < cur {
		a.stamps = append(a.stamps, rvStamp{rv: cur, at: a.clk.Now()})
	}
}

// visibleStampLocked returns the highest stamped RV seen no later than
// cutoff (or pos), and forgets the stamps below it.
func (a *apiserverInstance) visibleStampLocked(cutoff time.Time) int64 {
	i := sort.Search(len(a.stamps), func(i int) bool { return a.stamps[i].at.After(cutoff) })
	if i == 0 {
		return a.pos
	}
	rv := a.stamps[i-1].rv
	a.stamps = a.stamps[i-1:]
	return rv
}

// noteWrite stamps a write as it commits, so a time lag counts from the
// write and not from when somebody next looks.
func (a *apiserverInstance) noteWrite(rv int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lagTime > 0 {
		a.stampLocked(rv)
	}
}

// wakeups returns what a waiter on this instance's position selects on
// besides the store's own channels: the settings-changed channel, the
// store's global notify for a stale cache (a write elsewhere moves an
// event-lagged cache), and the clock channel of the next time-lagged RV
// becoming visible (nil when none is pending). stop releases the timer.
func (a *apiserverInstance) wakeups() (changed, anyWrite <-chan struct{}, due <-chan time.Time, stop func()) {
	cur := a.st.CurrentRV()
	a.mu.Lock()
	defer a.mu.Unlock()
	changed, stop = a.changed, func() {}
	if a.isFreshLocked() {
		return changed, nil, nil, stop
	}
	anyWrite = a.st.Notify()
	if a.lagTime > 0 && !a.frozen && !a.partitioned {
		a.stampLocked(cur)
		pos := a.positionLocked(cur)
		i := sort.Search(len(a.stamps), func(i int) bool { return a.stamps[i].rv > pos })
		if i < len(a.stamps) {
			d := a.stamps[i].at.Add(a.lagTime).Sub(a.clk.Now())
			if clk, ok := a.clk.(clock.Clock); ok {
				t := clk.NewTimer(max(d, 0))
				due, stop = t.C(), func() { t.Stop() }
			}
		}
	}
	return changed, anyWrite, due, stop
}

// restartedChan returns the channel the next Restart closes.
func (a *apiserverInstance) restartedChan() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.restarted
}

// resumeFloor is the RV below which no watch of this instance resumes.
func (a *apiserverInstance) resumeFloor() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.floor
}

// isPartitioned reports whether the instance is cut off the store.
func (a *apiserverInstance) isPartitioned() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.partitioned
}

// update changes the settings under the lock, starts a stale cache at the
// store's current RV when it was fresh, and wakes every waiter; the
// storage view follows the instance's partition.
func (a *apiserverInstance) update(change func()) {
	a.updateView(change)
	if v := a.storage; v != nil {
		partitioned := a.isPartitioned()
		v.updateView(func() { v.partitioned = partitioned })
	}
}

// updateView is update of this view alone.
func (a *apiserverInstance) updateView(change func()) {
	cur := a.st.CurrentRV()
	a.mu.Lock()
	defer a.mu.Unlock()
	wasFresh := a.isFreshLocked()
	if !wasFresh {
		a.positionLocked(cur) // settle the old settings first
	}
	change()
	if wasFresh {
		a.pos = cur
	}
	a.stamps = nil
	if a.lagTime > 0 {
		a.stamps = []rvStamp{{rv: a.pos, at: a.clk.Now()}}
	}
	a.wakeLocked()
}

// restart re-initialises the cache from the store (apiserver
// pkg/storage/cacher/cacher.go startCaching → terminateAllWatchers, then
// watch_cache.go Replace at the store's current RV): every watch of the
// instance ends without an ERROR, no watch resumes below the restart RV,
// and a stale cache starts again from the store's current RV.
func (a *apiserverInstance) restart() int64 {
	cur := a.st.CurrentRV()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.floor = max(a.floor, cur)
	if !a.partitioned { // a partitioned instance cannot list the store
		a.pos = max(a.pos, cur)
	}
	a.stamps = nil
	if a.lagTime > 0 {
		a.stamps = []rvStamp{{rv: a.pos, at: a.clk.Now()}}
	}
	close(a.restarted)
	a.restarted = make(chan struct{})
	a.wakeLocked()
	if v := a.storage; v != nil {
		v.endWatches()
	}
	return a.floor
}

// endWatches ends the storage view's watches at a restart of its
// instance: the process's etcd watches end with it, and their clients
// resume from their last RV, which etcd serves unless compacted.
func (a *apiserverInstance) endWatches() {
	a.mu.Lock()
	defer a.mu.Unlock()
	close(a.restarted)
	a.restarted = make(chan struct{})
	a.wakeLocked()
}

// wake wakes every waiter on the instance (its settings-changed channel),
// to recompute: a re-list (CompactWatchHistory) wakes them so, its watches
// to end.
func (a *apiserverInstance) wake() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.wakeLocked()
}

// wakeLocked is wake under a.mu. A restart, a re-list and a change of the
// settings all close the channel, after what ends the watches (restarted,
// the hub's relisted), so a watch waits on the one channel for all three
// (watch.go follow).
func (a *apiserverInstance) wakeLocked() {
	close(a.changed)
	a.changed = make(chan struct{})
}
