package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/tables"
	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// serveWatch answers a WATCH: validate (plain HTTP errors), then 200 with
// headers flushed at once, then the events, one long response (server
// push). Errors after that point are in-stream ERROR events, as the watch
// cache reports them (apiserver pkg/storage/cacher/cacher.go Watch,
// newErrWatcher): the real server never answers a watch
// with an HTTP 410.
//
// A watch whose request carries a hand-off (watch_handoff.go) only starts
// here: its follow loop runs where the hand-off was made, on the handler
// goroutine's shallow stack.
func (s *Server) serveWatch(req *request) {
	h := handoffOf(req.r.Context())
	if h == nil {
		h = new(watchHandoff)
		defer h.follow()
	}
	s.startWatch(req, h)
}

// startWatch opens the watch and sends what comes before its changes (the
// initial events, or the ERROR that ends it), then leaves the rest of the
// stream in h; when it leaves h empty the watch has been answered and
// ended. Its large frames (openWatch's parsed options and negotiated
// output, start's initial LIST) are not under the follow loop.
func (s *Server) startWatch(req *request, h *watchHandoff) {
	stream, startRV, end := s.openWatch(req)
	if stream == nil {
		return // answered with an error, or the client went away
	}
	handedOff := false
	defer func() {
		if !handedOff {
			end()
		}
	}()
	cursor, ok := stream.begin(startRV)
	if !ok {
		// Events the stream sent before it ended go out with the end of
		// the response, as bytes written to the response would.
		stream.enc.close()
		return
	}
	*h = watchHandoff{stream: stream, cursor: cursor, end: end}
	handedOff = true
	// The stream keeps the request's context while it follows, and has
	// read its options: the parsed query would cost every open watch a
	// few hundred bytes (TestWatchMemoryBound's heap).
	kubewire.ReleaseQuery(req.r)
}

// openWatch validates a WATCH (answering an invalid one with its error),
// writes the 200 and the headers, and returns the stream, its start point
// and the function that ends it once it has run (stopping its timers and
// fault hooks, in the reverse order they started). The stream is nil when
// the request was answered or the client left before the headers; what
// had started is stopped then, also on a panic.
func (s *Server) openWatch(req *request) (stream *watchStream, startRV int64, end func()) {
	out, err := s.negotiateWatchOutput(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return nil, 0, nil
	}
	p, err := s.parseListOptions(req)
	if err == nil {
		// The cacher checks its key before the resourceVersion
		// (cacher.go Watch); a watch of one name watches the collection's
		// key root (registry store.go Watch), so the namespace is what
		// can make it invalid (storage_key.go).
		err = collectionKeyError(req.res, req.info.namespace)
	}
	if err != nil {
		s.writeError(req.w, req.r, err)
		return nil, 0, nil
	}
	requestedRV, err := parseRequestedRV(p.opts.ResourceVersion)
	if err != nil {
		// Cacher.Watch returns the versioner's plain error: 500, no reason.
		s.writeError(req.w, req.r, err)
		return nil, 0, nil
	}
	if out.isTable() {
		// Checked before the stream starts, as the real server does, so a
		// bad value is an HTTP 400 rather than a broken first event.
		if err := tables.ValidateIncludeObject(includeObjectParam(req.r)); err != nil {
			s.writeError(req.w, req.r, err)
			return nil, 0, nil
		}
	}
	// ends run last first, as deferred calls, so each runs even when one
	// panics (a fault's idle cut in faulted.finish ends the handler so).
	// stop is not the result end, which a return without a stream sets
	// to nil before the deferred call below reads it.
	ends := make([]func(), 0, 5) // as many as are added below
	stop := func() {
		for _, f := range ends {
			defer f()
		}
	}
	defer func() {
		if stream == nil {
			stop()
		}
	}()
	life, deadline := s.watchLife(req.r.Context(), p) // ends at the deadline, on Close, without the client or by a stream fault
	ends = append(ends, life.stop)
	ctx := life.ctx
	faulted := s.faultStream(life, req, out) // stream faults (faults_watch.go)
	ends = append(ends, faulted.finish)      // a cut or hang while idle
	// The bookmark schedule starts before the headers go out, as the
	// cacher's does (Cacher.Watch adds the watcher to bookmarkWatchers
	// before the handler writes them): a client that moves a fake clock
	// once it has the headers must find the bookmark before the deadline
	// scheduled, not computed after the move (then it is an interval away).
	// A watch from storage (etcd3's watcher, for a resource with no watch
	// cache) gets no periodic bookmarks: the registry never asks etcd for
	// progress notifications (etcd3 watcher.go
	// isInitialEventsEndBookmarkRequired).
	inst := s.viewOf(req.r, req.res) // the instance's watch cache, or storage (watch_cache.go)
	// The watch is registered here, before its headers, as the cacher
	// adds its watcher before the handler writes them: a restart or
	// re-list from now on ends it cleanly, even one that comes before the
	// stream has checked its start RV (which the restart's floor would
	// then refuse) or begun to follow.
	restarted, relisted := inst.restartedChan(), s.watch.relistChan()
	bookmark := newBookmarkTimer(s.cfg.Clock, s.watch.cfg.BookmarkInterval, deadline, p.opts.AllowWatchBookmarks && !inst.uncached)
	ends = append(ends, bookmark.stop)
	startRV = storeRV(requestedRV) // one past int64 is a future no event reaches: a silent watch
	switch {
	case sendsInitialEvents(p.opts):
		startRV = s.initialStateRV(inst, startRV, p.opts.ResourceVersion != "")
	case startRV == 0:
		// "Start at the most recent" means the cache's RV when the watch
		// was made, before its headers: the cacher registers its watcher
		// at its current RV before the handler writes them, so a write the
		// client makes once it has the 200 is an event of this watch.
		startRV, _ = inst.cacheRV()
	}
	st, err := s.beginStream(ctx, req, out, p)
	if err != nil {
		return nil, 0, nil // the client went away before the headers
	}
	st.bookmark = bookmark
	st.inst = inst
	st.restarted, st.relisted = restarted, relisted
	st.enc.faults = faulted
	faulted.drain = st.enc.drain // a fault's flush pushes the batch too
	faulted.w = st.enc.w         // and a cut's half frame goes out as the stream's bytes do (gzipped)
	var release func()
	st.enc.deadline, release = newWriteDeadline(life, st.enc.rc, s.watch.cfg.SlowWatcherWriteTimeout) // watch_deadline.go
	faulted.deadline = st.enc.deadline
	ends = append(ends, release)
	s.watch.started.Add(1)
	s.watch.active.Add(1)
	ends = append(ends, func() { s.watch.active.Add(-1) })
	st.deadline = deadline
	st.requestedRV = requestedRV
	return st, startRV, stop
}

// initialStateRV is the RV whose state a watch-list's initial events show,
// fixed before the headers go out: the cacher takes its watcher's initial
// events from the cache (getAllEventsSinceLocked) before the handler
// writes them, so a write the client makes once it has the 200 is an
// event after the initial state, never folded into it (a create and a
// label change that moves the object out of the selector, folded in,
// would be two events lost). It is the cache's RV now, or, when the
// initial state must be newer (the requested RV, or with none the store's
// current RV that a stale cache must reach), that RV, which start waits
// for the cache to reach before it lists.
func (s *Server) initialStateRV(inst *apiserverInstance, requested int64, rvGiven bool) int64 {
	pos, fresh := inst.cacheRV()
	if !rvGiven && !fresh {
		return s.store.CurrentRV() // cacher.go getWatchCacheResourceVersion asks etcd
	}
	return max(pos, requested)
}

// watchStream is one watch response: where it reads from, what it has sent.
//
// It follows changes on the handler's goroutine (its start ran on the
// short-lived set-up goroutine, watch_handoff.go) and owns no other: it
// pulls events from the store (store.Changes) and waits on the store's
// notify channel, so a writer never waits for a watcher, however slow
// (STYLE 19).
type watchStream struct {
	s   *Server
	ctx context.Context
	req *request
	// prefix and filter are the request's scope and selectors
	// (listParams); initialEvents and rvGiven what start needs of its
	// options: sendInitialEvents, and whether a resourceVersion was given.
	// Only these are kept, not the whole listParams: an idle watch holds
	// its stream for its life.
	prefix        string
	filter        func(apiruntime.Object) bool
	initialEvents bool
	rvGiven       bool
	// bookmarks is set when the client allowed BOOKMARK events (kept with
	// the flags above: a word less per open watch).
	bookmarks bool
	enc       *eventWriter
	// lastRV is the highest RV sent or implied by the start point; no
	// event at or below it is ever sent (the cacher's processInterval rule),
	// and the one send path panics if one would be.
	lastRV int64
	// requestedRV is the resourceVersion the watch asked for, which a
	// watch-list's 504 names (it may be past int64).
	requestedRV uint64
	// bookmark schedules the periodic bookmarks (disabled without
	// bookmarks); it runs from before the headers were written.
	bookmark *bookmarkTimer
	// deadline is when the watch times out, on the server's clock.
	deadline time.Time
	// inst is the apiserver instance serving the watch: no event past its
	// cache's position is sent, and its restart ends the watch.
	inst *apiserverInstance
	// restarted and relisted are closed when inst restarts or the watch
	// cache re-lists (CompactWatchHistory) after the watch was registered
	// (before its headers), which ends it without an ERROR.
	restarted, relisted <-chan struct{}
}

// errRestarted is start's error for a watch a restart or re-list ended
// before it began to follow: begin ends it without an ERROR.
var errRestarted = errors.New("watch ended by an apiserver restart or watch-cache re-list")

// endedByRestart reports whether inst restarted or the watch cache
// re-listed since the watch was registered.
func (w *watchStream) endedByRestart() bool {
	return closed(w.restarted) || closed(w.relisted)
}

// begin sends the initial state (if asked for) and returns the cursor
// changes are followed from; ok is false when the stream has ended (with
// an ERROR event, or without one after a restart or for a
// PartialObjectMetadataList).
func (w *watchStream) begin(startRV int64) (cursor int64, ok bool) {
	cursor, err := w.start(startRV)
	if errors.Is(err, errNotAList) {
		return 0, false // ends without an ERROR (watch_encode.go)
	}
	if err != nil && w.endedByRestart() {
		// Registered before the restart: ended by it, whatever start
		// found after it (the restart floor's 410, a watch-list's 504).
		return 0, false
	}
	if err != nil {
		w.sendError(err)
		return 0, false
	}
	return cursor, true
}

// start sends the synthetic initial events of a sendInitialEvents watch and
// returns the RV after which changes are streamed (apiserver
// pkg/storage/cacher/cacher.go Watch, watch_cache.go getAllEventsSinceLocked):
//
//	sendInitialEvents  RV    initial events             changes after
//	false              ""/0  none                       the current RV
//	false              N     none; 410 if N is out of   N (N may be in the
//	                         the watch window           future: silence till then)
//	true               ""/0  ADDED for the state now    the state's RV
//	true               N     ADDED for the state at an  the state's RV
//	                         RV >= N; 504 after 3 s if
//	                         the store never gets there
//
// A watch with RV ""/"0" and neither sendInitialEvents nor
// resourceVersionMatch arrives here with sendInitialEvents=true: that is
// the WatchList defaulting parseListOptions applies (apimachinery
// pkg/apis/meta/internalversion/defaults.go SetListOptionsDefaults).
func (w *watchStream) start(startRV int64) (int64, error) {
	if !w.initialEvents {
		if startRV == 0 {
			w.lastRV, _ = w.inst.cacheRV()
			return w.lastRV, nil
		}
		if err := w.s.checkWatchWindow(w.inst, w.req.res.storageKey, startRV); err != nil {
			return 0, err
		}
		w.lastRV = startRV
		return startRV, nil
	}
	if err := w.waitInitialRV(startRV); err != nil {
		return 0, err
	}
	if w.endedByRestart() {
		return 0, errRestarted // restarted while it waited: no initial events
	}
	// The state at startRV, fixed before the headers (initialStateRV).
	// Without a filter the objects are not read here: each event is sent
	// from its version's encodings (outEvent.obj nil), decoded only if
	// they lack what the stream sends, as a watch's later events are.
	page, err := w.s.store.List(w.req.res.storageKey, store.ListOptions{
		RV: startRV, Prefix: w.prefix, Filter: w.filter, Undecoded: true, RVs: true,
	})
	if err != nil {
		return 0, err
	}
	for i, obj := range page.Items {
		// Initial events are in key order, not RV order, so they bypass
		// the RV check; each is cached under the RV that wrote it.
		if err := w.enc.send(&outEvent{typ: watch.Added, obj: obj, rv: page.RVs[i], enc: page.Encodings[i]}); err != nil {
			return 0, err
		}
	}
	w.lastRV = page.RV
	if w.bookmarks {
		end := &outEvent{typ: watch.Bookmark, rv: page.RV, initialEnd: true, obj: w.s.bookmarkObject(w.req.res, page.RV, true)}
		if err := w.enc.send(end); err != nil {
			return 0, err
		}
	}
	return page.RV, w.enc.flush()
}

// waitInitialRV waits until the cache can serve a watch-list's initial
// state at stateRV (initialStateRV): the requested RV, or, with none, the
// RV fixed before the headers (cacher.go getWatchCacheResourceVersion asks
// etcd; RV "0" waits for nothing), 504 ERROR after 3 s
// (waitUntilWatchCacheFreshAndForceAllEvents).
func (w *watchStream) waitInitialRV(stateRV int64) error {
	if w.requestedRV > 0 {
		_, err := w.s.waitForRV(w.ctx, w.inst, w.requestedRV)
		return err
	}
	if w.rvGiven {
		return nil // RV "0": the cache's state, however old
	}
	_, err := w.s.waitForCache(w.ctx, w.inst, uint64(stateRV))
	return err
}

// follow streams changes after cursor until the watch ends. cursor is the
// global RV up to which this watcher has seen every event of its resource.
//
// Each round:
//  1. read CurrentRV, then store.Changes after cursor, which holds every
//     event up to that RV (and maybe more) and the channel of the next write,
//     taken under one store lock so no write falls in between;
//  2. write what this watcher sees of the events;
//  3. advance cursor, send a bookmark at cursor if one is due;
//  4. flush, unless more is pending already (see [watchStream.morePending]);
//  5. wait for the next write, the bookmark timer or the end of the watch
//     (its context, a restart of its instance or CompactWatchHistory,
//     which wake it through the instance's changed channel).
func (w *watchStream) follow(cursor int64) {
	hub := w.s.watch
	relisted := w.relisted
	bookmark := w.bookmark
	ending, unflushed := false, false
	stopDue := func() {}
	defer func() { stopDue() }() // the time-lag timer of the last round
	for round := 0; ; round++ {
		stopDue()
		var instChanged, anyWrite <-chan struct{}
		var due <-chan time.Time
		instChanged, anyWrite, due, stopDue = w.inst.wakeups()
		seen, fresh := w.inst.cacheRV()
		events, changed, err := w.s.store.Changes(w.req.res.storageKey, cursor)
		if err != nil {
			w.endOnReadError(err, cursor, round)
			return
		}
		if !fresh {
			events = visibleEvents(events, seen) // the cache has not seen the rest
		}
		if !w.inst.uncached {
			hub.window.observe(w.req.res.storageKey, events) // etcd keeps no window
		}
		// etcd's watcher ends no watcher for being behind (it catches up
		// as an unsynced watcher), so the cacher's cut is for cached
		// resources only.
		if round > 0 && !w.inst.uncached && w.lagging(events, hub.cfg.SlowWatcherMaxLag) {
			hub.endedSlow(w.enc.auditID) // ended as the cacher ends a blocked watcher: no ERROR
			return
		}
		sent, err := w.sendChanges(events)
		if err != nil {
			return
		}
		unflushed = unflushed || sent
		cursor = max(cursor, seen)
		if n := len(events); n > 0 {
			cursor = max(cursor, events[n-1].RV)
		}
		if bookmark.due {
			if err := w.sendBookmark(cursor); err != nil {
				return
			}
			bookmark.reset()
		}
		if unflushed && !ending && w.morePending(changed, relisted, bookmark) {
			continue
		}
		if unflushed {
			if err := w.enc.flush(); err != nil {
				return
			}
			unflushed = false
		}
		if ending {
			return
		}
		w.enc.deadline.idle() // nothing in flight: no write deadline while idle (watch_deadline.go)
		// A restart and a re-list end the watch here, after the round, and
		// wake it through instChanged while it waits (a case less each to
		// wait on: each costs the goroutine a wait record). One before this
		// round's wakeups closed an older instChanged: it is seen here.
		if w.endedByRestart() {
			return // ended as the restarted cacher ends its watchers: no ERROR
		}
		switch w.wait(instChanged, anyWrite, changed, due) {
		case wokeEnded:
			return
		case wokeBookmark:
			// Read once more before the bookmark, so its RV never runs
			// ahead of an event this watcher has not been sent yet.
			bookmark.due = true
		case wokeGone:
			// The CRD was deleted: send the DELETED events written before
			// (one more read), then end cleanly, as the real server ends
			// watches when it tears down a CR storage.
			ending = true
		}
	}
}

// woke is why wait returned.
type woke uint8

const (
	wokeRead     woke = iota // a write, the time-lag timer or an instance change: read again
	wokeBookmark             // the bookmark timer fired
	wokeGone                 // the resource's CRD was deleted
	wokeEnded                // the watch ended: its context, or a restart or re-list
)

// wait waits for the first of follow's wake-ups: the instance changed
// (ending the watch if that was a restart or re-list), any write, the
// time-lag timer, a write of this resource, the bookmark timer, the CRD's
// deletion or the end of the watch's context. It is a function of its own,
// not inlined, so the select's case arrays are on the stack only while the
// watch waits, not under a round's writes and flushes, which must fit the
// 4 KiB stack the watch rests on (watch_handoff.go).
//
//go:noinline
func (w *watchStream) wait(instChanged, anyWrite, changed <-chan struct{}, due <-chan time.Time) woke {
	select {
	case <-instChanged:
		if w.endedByRestart() {
			return wokeEnded // ended as the restarted cacher ends its watchers: no ERROR
		}
	case <-anyWrite:
	case <-due:
	case <-changed:
	case <-w.bookmark.c():
		return wokeBookmark
	case <-w.req.res.gone():
		return wokeGone
	case <-w.ctx.Done():
		return wokeEnded
	}
	return wokeRead
}

// visibleEvents is the prefix of RV-ordered events a cache at pos has seen.
func visibleEvents(events []store.Event, pos int64) []store.Event {
	i := sort.Search(len(events), func(i int) bool { return events[i].RV > pos })
	return events[:i]
}

// morePending reports whether the watch should read again before it
// flushes what it wrote: a write happened meanwhile, or the bookmark
// timer fired (which it then marks due), and the watch is not ending.
// The real server flushes a watch only when its result channel is empty
// (handlers/watch.go: `if len(ch) == 0 { flusher.Flush() }`), so a burst
// of events goes out in one flush; this is that rule for a watcher that
// pulls. It never waits: with nothing pending the watch flushes at once.
//
// It first yields the processor, so the question is asked after the
// goroutines that are ready to run have run, the writers among them: with
// many watchers a flush then carries the events written while the others
// took their turn, in one write. At 1 000 watchers this halves the write
// syscalls on the server and the reads on the clients (one batch of events
// is one write on HTTP/1.1, watch_batch.go). On an idle server nothing else
// is ready and Gosched returns at once.
func (w *watchStream) morePending(changed, relisted <-chan struct{}, bookmark *bookmarkTimer) bool {
	runtime.Gosched()
	if w.ctx.Err() != nil || closed(relisted) || closed(w.req.res.gone()) {
		return false
	}
	select {
	case <-bookmark.c():
		bookmark.due = true
		return true
	default:
	}
	return closed(changed)
}

// closed reports whether ch is closed (or has a value ready) without
// waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// endOnReadError ends the stream after store.Changes failed. A start point
// compacted away is the cacher's "too old" ERROR; a watcher overtaken by a
// compaction later ends silently, as the cacher ends a watcher whose
// history interval was invalidated (cache_watcher.go processInterval), and
// its client re-watches and gets the 410 then. A watch from storage gets
// etcd's 410 either way.
func (w *watchStream) endOnReadError(err error, cursor int64, round int) {
	switch {
	case errors.Is(err, store.ErrCompacted) && w.inst.uncached:
		// etcd's watch gets ErrCompacted on its channel, at the start or
		// once it fell behind the compaction (etcd3 watcher.go
		// startWatching → sendError).
		w.sendError(etcdWatchTooOld())
	case errors.Is(err, store.ErrCompacted) && round == 0:
		w.sendError(tooOldResourceVersion(cursor, w.s.store.CompactedRV()))
	case errors.Is(err, store.ErrCompacted):
		w.s.watch.endedSlow(w.enc.auditID)
	default:
		w.sendError(err)
	}
}

// sendChanges writes a batch of store events as this watcher sees them,
// without flushing, and reports whether it wrote any.
func (w *watchStream) sendChanges(events []store.Event) (bool, error) {
	sent := false
	for i := range events {
		ok, err := w.sendChange(&events[i])
		if err != nil {
			return sent, err
		}
		sent = sent || ok
	}
	return sent, nil
}

// sendChange sends one store event as this watcher sees it through its
// scope and selectors (cacher cache_watcher.go convertToWatchEvent): an
// object entering the selection is ADDED, one leaving it is DELETED with
// its previous content at the event's RV.
//
// An event at or below lastRV is never sent (RVs only go up on a watch),
// but it should never be read either: the cursor follows lastRV, and a
// future start RV reads only changes after it. So one that arrives is a
// server bug that would otherwise lose nothing visible: it is counted in
// [WatchStats.StaleDropped], which Start's cleanup fails the test on, as
// the ordered send path panics on one it would send.
func (w *watchStream) sendChange(ev *store.Event) (bool, error) {
	if ev.RV <= w.lastRV {
		w.s.watch.staleDropped.Add(1)
		return false, nil
	}
	typ, obj := w.visible(ev)
	if typ == "" {
		return false, nil
	}
	out := outEvent{typ: typ, obj: obj, rv: ev.RV}
	if obj == nil {
		out.enc = ev.Encodings // the stored object, read if it must be
	}
	return true, w.sendOrdered(&out)
}

// sendBookmark sends a periodic bookmark at rv, the RV this watcher has
// caught up to, when that is past what it has (only if its RV is greater
// than any sent or requested: apiserver pkg/storage/cacher/cache_watcher.go
// process).
func (w *watchStream) sendBookmark(rv int64) error {
	if rv <= w.lastRV {
		return nil
	}
	if err := w.sendOrdered(&outEvent{typ: watch.Bookmark, obj: w.s.bookmarkObject(w.req.res, rv, false), rv: rv}); err != nil {
		return err
	}
	return w.enc.flush()
}

// sendOrdered is the send path of every event after the initial ones: it
// enforces that RVs only go up on a watch, then sends.
func (w *watchStream) sendOrdered(ev *outEvent) error {
	if ev.rv <= w.lastRV {
		w.outOfOrder(ev)
	}
	w.lastRV = ev.rv
	return w.enc.send(ev)
}

// outOfOrder panics on an event sendOrdered must not send. A function of
// its own so the message's formatting is not in sendOrdered's frame, which
// is under every event's write (see eventWriter.send).
//
//go:noinline
func (w *watchStream) outOfOrder(ev *outEvent) {
	panic(fmt.Sprintf("fakeapiserver: watch of %s would send %s at rv %d after rv %d", w.req.res.qualified(), ev.typ, ev.rv, w.lastRV))
}

// sendError ends the stream with one ERROR event carrying err's Status,
// unless the watch already ended (timeout, client gone, server closing):
// then the stream just ends, as at any deadline.
func (w *watchStream) sendError(err error) {
	if w.ctx.Err() != nil {
		return
	}
	if apierrors.IsResourceExpired(err) {
		w.s.watch.expired.Add(1)
	}
	if err := w.enc.send(&outEvent{typ: watch.Error, obj: toStatus(err)}); err == nil {
		_ = w.enc.flush()
	}
}

// bookmarkObject is the BOOKMARK payload: an empty object of the watched
// kind with only metadata.resourceVersion (and the initial-events-end
// annotation for watch-list), as storage/util.go builds it.
func (s *Server) bookmarkObject(res *resourceInfo, rv int64, initialEventsEnd bool) runtimeObject {
	obj := res.newObject()
	obj.GetObjectKind().SetGroupVersionKind(res.Kind)
	m := mustAccessor(obj)
	m.SetResourceVersion(formatRV(rv))
	if initialEventsEnd {
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return obj
}

// negotiateWatchOutput picks the stream encoding; a Table is allowed, as
// kubectl get -w asks for one.
func (s *Server) negotiateWatchOutput(r *http.Request) (outputType, error) {
	out, err := s.negotiateOutput(r, resourceTransforms)
	if err != nil {
		return out, err
	}
	if out.info.StreamSerializer == nil {
		return out, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", emptyGR, "", notAcceptableMessage, 0, false)
	}
	return out, nil
}

// sendsInitialEvents reports whether a watch begins with the synthetic
// initial events (sendInitialEvents=true, which parseListOptions also
// sets for the WatchList default).
func sendsInitialEvents(opts metainternalversion.ListOptions) bool {
	return opts.SendInitialEvents != nil && *opts.SendInitialEvents
}
