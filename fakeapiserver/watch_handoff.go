package fakeapiserver

import (
	"context"
	"net/http"
	"strings"
)

// An open watch's memory is mostly its handler goroutine's stack, and Go
// never gives a stack back while the goroutine lives unless it rests
// shallow: the collector halves a stack only when under a quarter of it is
// in use, its 800-byte nosplit guard included (runtime/stack.go
// shrinkstack). A parked watch is about 2 KiB deep (net/http's frames, the
// follow loop, a select), so a stack that once grew to 8 KiB stays 8 KiB
// for the watch's life, and the set-up grows it: parsing the request,
// authentication, authorization, option parsing, negotiation, the header
// flush and a watch-list's initial events each go deeper than a 4 KiB
// stack allows.
//
// So a watch is set up on a goroutine of its own, which exits once the
// stream is ready, and only the follow loop runs on the handler
// goroutine, which net/http starts with a small stack (4 KiB once the
// runtime has seen such stacks: the starting size follows the average
// stack in use). The follow loop's own path (reading changes, writing an
// already encoded event, flushing) fits in that stack; an event this
// watcher is the first to encode, or one it decodes to filter, can still
// grow it, which the watch then keeps.
//
// The set-up goroutine is owned: the handler waits for it before it
// follows, and a panic there (kubewire.Cut's http.ErrAbortHandler, say) is
// raised again on the handler goroutine, where net/http handles it.

// watchHandoff is what a watch's set-up leaves for the handler goroutine:
// the stream, the cursor it follows changes from, and the function that
// ends it. Empty when the set-up answered the request itself (an error, a
// request that was no watch after all, a stream that ended at its start).
type watchHandoff struct {
	stream *watchStream
	cursor int64
	end    func()
}

// watchHandoffKey is the request-context key of a request's *watchHandoff.
type watchHandoffKey struct{}

// handoffOf is the hand-off of the request with context ctx, nil when the
// request is not set up elsewhere (not seen as a watch by mayBeWatch, or
// served by a handler that does not hand off).
func handoffOf(ctx context.Context) *watchHandoff {
	h, _ := ctx.Value(watchHandoffKey{}).(*watchHandoff)
	return h
}

// follow runs the handed-off stream to its end, then ends the watch: the
// rest of what serveWatch does for a watch that follows in place.
func (h *watchHandoff) follow() {
	if h.stream == nil {
		return
	}
	defer h.end()
	h.stream.follow(h.cursor)
	// Events the stream sent before it ended go out with the end of the
	// response, as bytes written to the response would.
	h.stream.enc.close()
}

// setUpWatchElsewhere serves r with next on a goroutine of its own and
// waits for it; a watch's serveWatch then only starts the stream and
// returns it in the hand-off, for the caller to follow.
func setUpWatchElsewhere(next http.Handler, w http.ResponseWriter, r *http.Request) *watchHandoff {
	h := new(watchHandoff)
	r = r.WithContext(context.WithValue(r.Context(), watchHandoffKey{}, h))
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		next.ServeHTTP(w, r)
	}()
	if p := <-done; p != nil {
		panic(p)
	}
	return h
}

// mayBeWatch reports a request that may be a watch, before it is parsed:
// a GET with "watch" in its query (?watch=, the bookmarks option) or a
// /watch/ path segment (the deprecated watch paths). It is a cheap
// superset of kubewire's rule; any request it lets through is served the
// same, only on another goroutine.
func mayBeWatch(r *http.Request) bool {
	return r.Method == http.MethodGet &&
		(strings.Contains(r.URL.RawQuery, "watch") || strings.Contains(r.URL.Path, "/watch/"))
}
