package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// serveWatch answers a WATCH: validate (plain HTTP errors), then 200 with
// headers flushed at once, then the events, one long response (server
// push). Errors after that point are in-stream ERROR events, as the watch
// cache reports them (spec §4.4): the real server never answers a watch
// with an HTTP 410.
func (s *Server) serveWatch(req *request) {
	out, err := s.negotiateWatchOutput(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	p, err := s.parseListOptions(req)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	startRV, err := parseResourceVersion(p.opts.ResourceVersion)
	if err != nil {
		// Cacher.Watch returns the versioner's plain error: 500, no reason.
		s.writeError(req.w, req.r, err)
		return
	}
	ctx, cancel, deadline := s.watchContext(req.r.Context(), p)
	defer cancel()
	stream, err := s.beginStream(ctx, req, out, p)
	if err != nil {
		return // the client went away before the headers
	}
	stream.deadline = deadline
	stream.run(startRV)
}

// watchContext bounds a watch by its timeout (timeoutSeconds, or
// MinRequestTimeout times a random factor in [1, 2) as handleWatch does) and
// by the server's life. The deadline runs on the server's clock.
func (s *Server) watchContext(parent context.Context, p listParams) (context.Context, context.CancelFunc, time.Time) {
	timeout := time.Duration(float64(s.cfg.MinRequestTimeout) * (1 + rand.Float64()))
	if p.opts.TimeoutSeconds != nil && *p.opts.TimeoutSeconds > 0 {
		timeout = time.Duration(*p.opts.TimeoutSeconds) * time.Second
	}
	ctx, cancel := context.WithCancel(parent)
	stopOnServerClose := context.AfterFunc(s.stopCtx, cancel)
	timer := s.cfg.Clock.AfterFunc(timeout, cancel)
	return ctx, func() {
		timer.Stop()
		stopOnServerClose()
		cancel()
	}, s.cfg.Clock.Now().Add(timeout)
}

// watchStream is one watch response: where it reads from, what it has sent.
type watchStream struct {
	s   *Server
	ctx context.Context
	req *request
	p   listParams
	enc *eventWriter
	// lastRV is the highest RV sent or implied by the start point; no event
	// at or below it is ever sent (the cacher's processInterval rule).
	lastRV int64
	// bookmarks is set when the client allowed BOOKMARK events.
	bookmarks bool
	// deadline is when the watch times out, on the server's clock.
	deadline time.Time
}

// run sends the initial state (if asked for), then every change after the
// start point until the context ends. It owns no goroutine: the handler's
// goroutine runs the whole stream, so writers never wait for it.
func (w *watchStream) run(startRV int64) {
	cursor, err := w.start(startRV)
	if err != nil {
		w.sendError(err)
		return
	}
	w.follow(cursor)
}

// start sends the synthetic initial events of a sendInitialEvents watch and
// returns the RV after which changes are streamed (spec §4.2).
func (w *watchStream) start(startRV int64) (int64, error) {
	opts := w.p.opts
	if opts.SendInitialEvents == nil || !*opts.SendInitialEvents {
		if opts.ResourceVersion == "" || startRV == 0 {
			return w.s.store.CurrentRV(), nil
		}
		w.lastRV = startRV
		return startRV, nil
	}
	if startRV > 0 {
		if err := w.s.waitForRV(w.ctx, startRV); err != nil {
			return 0, err
		}
	}
	page, err := w.s.store.List(w.req.res.storageKey, store.ListOptions{Prefix: w.p.prefix, Filter: w.p.filter})
	if err != nil {
		return 0, err
	}
	for _, obj := range page.Items {
		if err := w.enc.send(watch.Added, obj); err != nil {
			return 0, err
		}
	}
	w.lastRV = page.RV
	if w.bookmarks {
		if err := w.enc.send(watch.Bookmark, w.s.bookmarkObject(w.req.res, page.RV, true)); err != nil {
			return 0, err
		}
	}
	return page.RV, nil
}

// follow streams changes after cursor until the watch ends.
func (w *watchStream) follow(cursor int64) {
	bookmark := newBookmarkTimer(w.s.cfg.Clock, w.deadline, w.bookmarks)
	defer bookmark.stop()
	for {
		events, changed, err := w.s.store.Changes(w.req.res.storageKey, cursor)
		if err != nil {
			w.sendError(w.s.watchReadError(err, cursor))
			return
		}
		for _, ev := range events {
			if err := w.sendChange(ev); err != nil {
				return
			}
			cursor = ev.RV
		}
		select {
		case <-changed:
		case <-bookmark.c():
			if err := w.sendBookmark(); err != nil {
				return
			}
			bookmark.reset()
		case <-w.ctx.Done():
			return
		}
	}
}

// sendChange sends one store event as this watcher sees it through its
// scope and selectors (cacher cache_watcher.go convertToWatchEvent): an
// object entering the selection is ADDED, one leaving it is DELETED with
// its previous content at the event's RV.
func (w *watchStream) sendChange(ev store.Event) error {
	if ev.RV <= w.lastRV {
		return nil
	}
	typ, obj := w.visible(ev)
	if typ == "" {
		return nil
	}
	w.lastRV = ev.RV
	return w.enc.send(typ, obj)
}

// sendBookmark sends a periodic bookmark when the store moved past what the
// watcher has (spec §4.5: only if its RV is greater than any sent).
func (w *watchStream) sendBookmark() error {
	rv := w.s.store.CurrentRV()
	if rv <= w.lastRV {
		return nil
	}
	w.lastRV = rv
	return w.enc.send(watch.Bookmark, w.s.bookmarkObject(w.req.res, rv, false))
}

// sendError ends the stream with one ERROR event carrying err's Status.
func (w *watchStream) sendError(err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	_ = w.enc.send(watch.Error, toStatus(err))
}

// watchReadError maps a store error while following changes to the ERROR
// event's Status: a compacted start point is the cacher's "too old".
func (s *Server) watchReadError(err error, cursor int64) error {
	if errors.Is(err, store.ErrCompacted) {
		return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", cursor, s.store.CompactedRV()))
	}
	return err
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
	out, err := s.negotiateOutput(r, true)
	if err != nil {
		return out, err
	}
	if out.info.StreamSerializer == nil {
		return out, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", emptyGR, "", notAcceptableMessage, 0, false)
	}
	return out, nil
}
