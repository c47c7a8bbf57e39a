package fakeapiserver

import (
	"time"
)

// Defaults of [WatchConfig], each the value kube-apiserver v1.37 uses.
const (
	// defaultHistoryMinEvents is the watch cache's smallest history ring
	// (cacher watch_cache.go defaultLowerBoundCapacity).
	defaultHistoryMinEvents = 100
	// defaultHistoryMaxEvents is its largest (defaultUpperBoundCapacity).
	defaultHistoryMaxEvents = 100 * 1024
	// defaultHistoryMinAge is how long the ring grows to keep events
	// (storagebackend DefaultEventsHistoryWindow, cacher
	// DefaultEventFreshDuration = 1m15s).
	defaultHistoryMinAge = 75 * time.Second
	// defaultBookmarkInterval is how often a watch gets a BOOKMARK (cacher
	// cache_watcher.go defaultBookmarkFrequency).
	defaultBookmarkInterval = time.Minute
	// defaultEncodeCacheEntries bounds the shared cache of encoded events:
	// enough for every watcher of a busy resource to find the events of the
	// last few thousand writes encoded, a few MiB at most.
	defaultEncodeCacheEntries = 4096
)

// WatchConfig configures the WATCH path: the retained watch window, the
// bookmark cadence, the slow-consumer rule and the shared encoding cache.
// The zero value is kube-apiserver's behaviour; every field documents its
// default.
type WatchConfig struct {
	// HistoryMinEvents is the number of newest events of each resource a
	// watch can always resume from, whatever their age. A watch from an RV
	// older than the window gets HTTP 200, one ERROR event (410 Expired,
	// "too old resource version: N (M)") and the end of the stream. If zero,
	// 100, the watch cache's smallest ring. The window never reaches below
	// the store's compaction ([CompactionConfig]).
	HistoryMinEvents int
	// HistoryMaxEvents caps the window of one resource. If zero, 102 400,
	// the watch cache's largest ring.
	HistoryMaxEvents int
	// HistoryMinAge keeps events younger than this in the window (up to
	// HistoryMaxEvents), as the watch cache grows its ring to hold at least
	// this much history. If zero, 75 s; negative means count only. An
	// event's age is measured on [Config.Clock] from when the WATCH path
	// first saw it (a watch start or a delivery), never before its write,
	// so events may stay a little longer than on a real server.
	HistoryMinAge time.Duration
	// BookmarkInterval is how often a watch with allowWatchBookmarks gets a
	// BOOKMARK when the RV moved past what it has; one more goes out 2 s
	// before its deadline. If zero, 60 s.
	BookmarkInterval time.Duration
	// SlowWatcherMaxLag ends a watch, with no ERROR event, when it comes back
	// for more and finds more than this many events waiting that it would
	// send (the cacher ends a watcher whose buffer stays full); events
	// outside its namespace or selectors do not count. The replay at the
	// start of a watch is exempt, and so is a watch of a resource with no
	// watch cache (events: etcd's watcher ends none). If zero, no limit (tests stay
	// deterministic); lw-sim serve sets 200, the cacher's buffers for one
	// watcher.
	SlowWatcherMaxLag int
	// SlowWatcherWriteTimeout ends a watch, with no ERROR event, when its
	// client has not taken an event for this long. It is a write deadline on
	// the connection, so it runs on the time package (virtual inside a
	// testing/synctest bubble), not on [Config.Clock]. If zero, no limit;
	// lw-sim serve sets 10 s. Either way a watch ends at its deadline
	// (timeoutSeconds) even if its client never reads (watch_deadline.go).
	SlowWatcherWriteTimeout time.Duration
	// EncodeCacheEntries bounds the cache of encoded events shared by all
	// watchers: each event is encoded once per media type however many
	// watchers receive it, as long as it is in the cache. If zero, 4096.
	EncodeCacheEntries int
}

// withDefaults returns wc with every zero field set to its default.
func (wc WatchConfig) withDefaults() WatchConfig {
	if wc.HistoryMinEvents <= 0 {
		wc.HistoryMinEvents = defaultHistoryMinEvents
	}
	if wc.HistoryMaxEvents <= 0 {
		wc.HistoryMaxEvents = defaultHistoryMaxEvents
	}
	wc.HistoryMaxEvents = max(wc.HistoryMaxEvents, wc.HistoryMinEvents)
	if wc.HistoryMinAge == 0 {
		wc.HistoryMinAge = defaultHistoryMinAge
	}
	if wc.BookmarkInterval <= 0 {
		wc.BookmarkInterval = defaultBookmarkInterval
	}
	if wc.EncodeCacheEntries <= 0 {
		wc.EncodeCacheEntries = defaultEncodeCacheEntries
	}
	return wc
}

// WatchStats counts what the WATCH path did since the server started.
type WatchStats struct {
	// Started and Active count watch streams begun and still open.
	Started, Active int64
	// EventsSent counts events written to clients, bookmarks and errors
	// included.
	EventsSent int64
	// Encodings counts watch events encoded. Encodings much below
	// EventsSent shows the shared cache at work.
	Encodings int64
	// Expired counts watches answered with the ERROR 410 "too old resource
	// version".
	Expired int64
	// SlowTerminated counts watches ended by the slow-consumer rule
	// ([WatchConfig.SlowWatcherMaxLag], [WatchConfig.SlowWatcherWriteTimeout])
	// or overtaken by a compaction.
	SlowTerminated int64
	// StaleDropped counts store events a watch read at or below the RV it
	// had already sent and so dropped. A correct server never reads one;
	// [Start]'s cleanup fails the test if any was dropped.
	StaleDropped int64
}

// WatchEndedSlow reports whether the slow-consumer rule
// ([WatchConfig.SlowWatcherMaxLag], [WatchConfig.SlowWatcherWriteTimeout],
// or a compaction overtaking the watcher: what [WatchStats.SlowTerminated]
// counts) ended the watch whose response carried the Audit-Id header
// auditID. The server notes it before it ends the response, so a client
// that saw its watch end cleanly can ask why: kube-apiserver's client
// cannot (the cacher ends such a watch with no ERROR event), the fake's
// tests and scenarios can. Safe for concurrent use.
func (s *Server) WatchEndedSlow(auditID string) bool {
	return auditID != "" && s.watch.wasSlow(auditID)
}

// WatchStats returns the WATCH path's counters. Safe for concurrent use.
func (s *Server) WatchStats() WatchStats {
	return s.watch.stats()
}
