package fakeapiserver

import (
	"errors"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// watchWindow decides which RVs a watch can still resume from. The store
// keeps every event since its last compaction; the watch cache of a real
// server keeps less, a ring per resource of 100 to 102 400 events that grows
// to hold about 75 s of history (cacher watch_cache.go resizeCacheLocked).
// The window emulates that ring on top of the store: an event of a resource
// is in the window if it is one of the newest HistoryMinEvents, or one of the
// newest HistoryMaxEvents and younger than HistoryMinAge.
//
// Ages need the time of each event, which the store does not record, so the
// window stamps events with [Config.Clock] when the WATCH path first sees
// them (observe); a stamp is never earlier than the write.
type watchWindow struct {
	cfg WatchConfig
	clk clock.PassiveClock

	// mu guards the fields below.
	mu sync.Mutex
	// logs holds per resource the stamps of the events seen so far.
	logs map[string]*stampLog
	// floor is the RV of the last CompactWatchHistory: no watch resumes
	// from below it, in any resource.
	floor int64
}

// stampLog is the RV-ordered clock readings of one resource's events.
type stampLog struct {
	rvs   []int64
	times []time.Time
}

func newWatchWindow(cfg WatchConfig, clk clock.PassiveClock) *watchWindow {
	return &watchWindow{cfg: cfg, clk: clk, logs: make(map[string]*stampLog)}
}

// observe stamps the events not seen before with the current time. events
// are RV-ordered events of resource, as store.Changes returns them.
func (ww *watchWindow) observe(resource string, events []store.Event) {
	if len(events) == 0 || ww.cfg.HistoryMinAge < 0 {
		return
	}
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.observeLocked(resource, events)
}

func (ww *watchWindow) observeLocked(resource string, events []store.Event) *stampLog {
	l := ww.logs[resource]
	if l == nil {
		l = &stampLog{}
		ww.logs[resource] = l
	}
	last := int64(-1)
	if n := len(l.rvs); n > 0 {
		last = l.rvs[n-1]
	}
	if len(events) == 0 || events[len(events)-1].RV <= last {
		return l
	}
	now := ww.clk.Now()
	for _, ev := range events[sort.Search(len(events), func(i int) bool { return events[i].RV > last }):] {
		l.rvs = append(l.rvs, ev.RV)
		l.times = append(l.times, now)
	}
	if len(l.rvs) > 2*ww.cfg.HistoryMaxEvents {
		// Events that many writes ago are out of the window whatever their
		// age; forget them even if no watch start pruned the log.
		l.pruneBefore(l.rvs[len(l.rvs)-ww.cfg.HistoryMaxEvents])
	}
	return l
}

// resumeFloor returns M, the RV below which a watch of resource cannot
// resume ("too old resource version: N (M)" for N < M). retained are all the
// resource's events after compactedRV. As in watch_cache_history.go
// GetIntervalLocked, M is the RV of the oldest event in the window minus one,
// or compactedRV when nothing was evicted.
func (ww *watchWindow) resumeFloor(resource string, retained []store.Event, compactedRV int64) int64 {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	m := max(compactedRV, ww.floor)
	var l *stampLog
	if ww.cfg.HistoryMinAge > 0 {
		l = ww.observeLocked(resource, retained)
	}
	n := len(retained)
	if n <= ww.cfg.HistoryMinEvents {
		return m
	}
	// Candidates for eviction are retained[:n-HistoryMinEvents]; those
	// beyond HistoryMaxEvents are evicted whatever their age.
	lo, hi := max(0, n-ww.cfg.HistoryMaxEvents), n-ww.cfg.HistoryMinEvents
	first := hi
	if l != nil {
		cutoff := ww.clk.Now().Add(-ww.cfg.HistoryMinAge)
		first = lo + sort.Search(hi-lo, func(i int) bool { return l.stampOf(retained[lo+i].RV).After(cutoff) })
		l.pruneBefore(retained[first].RV)
	}
	if first == 0 {
		return m
	}
	return max(m, retained[first].RV-1)
}

// stampOf returns the stamp of an observed event's RV.
func (l *stampLog) stampOf(rv int64) time.Time {
	i := sort.Search(len(l.rvs), func(i int) bool { return l.rvs[i] >= rv })
	if i == len(l.rvs) {
		return time.Time{}
	}
	return l.times[i]
}

// pruneBefore forgets the stamps of events before rv, which are out of the
// window, so the log stays about as long as the window.
func (l *stampLog) pruneBefore(rv int64) {
	i := sort.Search(len(l.rvs), func(i int) bool { return l.rvs[i] >= rv })
	if i > len(l.rvs)/2 { // amortise the copy
		l.rvs = append([]int64(nil), l.rvs[i:]...)
		l.times = append([]time.Time(nil), l.times[i:]...)
	}
}

// CompactWatchHistory does what a watch cache re-list does (cacher.go
// startCaching → terminateAllWatchers, watch_cache.go Replace →
// history.ResetLocked): it ends every open watch, with no ERROR event, and
// empties the watch window of every resource up to the current RV, so a
// watch from an older RV gets HTTP 200 and one ERROR event "too old
// resource version" and its client has to list again. Unlike
// [Server.Compact] it leaves LISTs at older RVs alone. It returns the new
// floor RV.
func (s *Server) CompactWatchHistory() int64 {
	rv := s.store.CurrentRV()
	ww := s.watch.window
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.floor = max(ww.floor, rv)
	clear(ww.logs)
	// Under the window's lock, so a watch start that finds the new floor
	// finds the watches registered before it ended (watch.go run).
	s.watch.endAll()
	for _, inst := range s.apiservers.instances {
		inst.wake() // the watches wait on their instance's changes (watch.go follow)
		inst.storage.wake()
	}
	return ww.floor
}

// checkWatchWindow fails with the watch cache's 410 when a watch from rv
// cannot be served from the window of resource in inst's cache: the shared
// window (the ring every instance's cache keeps alike, as each holds the
// same events), raised to the instance's last restart (a re-initialised
// cache's history starts at the RV it listed at: watch_cache.go Replace).
//
// A storage view (a resource with no watch cache) has no window and no
// restart floor: etcd serves a watch from rv unless its compaction removed
// revision rv+1, where the watch starts (etcd3 watcher.go startWatching),
// and then it is etcd's 410.
func (s *Server) checkWatchWindow(inst *apiserverInstance, resource string, rv int64) error {
	if inst.uncached {
		if rv+1 < s.store.CompactedRV() {
			return etcdWatchTooOld()
		}
		return nil
	}
	for {
		compacted := s.store.CompactedRV()
		retained, _, err := s.store.Changes(resource, compacted)
		if errors.Is(err, store.ErrCompacted) {
			continue // compacted between the two calls: read again
		}
		if err != nil {
			return err
		}
		if m := max(s.watch.window.resumeFloor(resource, retained, compacted), inst.resumeFloor()); rv < m {
			return tooOldResourceVersion(rv, m)
		}
		return nil
	}
}

// etcdWatchTooOld is etcd3's error for a watch from a compacted revision
// (apiserver pkg/storage/etcd3/errors.go interpretWatchError).
func etcdWatchTooOld() error {
	return apierrors.NewResourceExpired("The resourceVersion for the provided watch is too old.")
}

// tooOldResourceVersion is the watch cache's error for a watch from before
// its window (watch_cache_history.go GetIntervalLocked).
func tooOldResourceVersion(rv, floor int64) error {
	return kubewire.TooOldResourceVersion(rv, floor)
}
