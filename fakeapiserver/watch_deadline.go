package fakeapiserver

import (
	"errors"
	"net/http"
	"sync"
	"time"
)

// watchEndWriteGrace is how long a write in progress when a watch ends may
// still take: enough for a reading client to take the rest of a frame, so
// the stream ends on a frame boundary, not enough to hold a handler for a
// client that never reads.
const watchEndWriteGrace = time.Second

// errWatchEnded refuses a new event once the watch has ended.
var errWatchEnded = errors.New("fakeapiserver: watch ended")

// writeDeadline owns the write deadline of one watch response. A watch
// writes on its handler goroutine; a client that stops reading blocks that
// write once the connection's buffers are full, and a blocked write sees
// neither the watch's timeout nor the server's Close. So when the watch's
// context ends (timeoutSeconds, Close, the client gone; stream faults end
// the stream by other means) no new event is started and the deadline of
// the write in progress becomes watchEndWriteGrace from then: the watch
// ends at its deadline whether or not the client reads. Until then each
// write carries the slow-consumer deadline
// ([WatchConfig.SlowWatcherWriteTimeout]), if any, and an idle watch none
// (idle).
//
// The real server has the same need met differently: its watch handler
// never blocks on a slow client for long, because the cacher terminates a
// watcher whose buffered channel stays full (cache_watcher.go add).
type writeDeadline struct {
	rc *http.ResponseController
	// timeout is the slow-consumer write deadline, 0 for none.
	timeout time.Duration

	// mu guards the fields below, so a deadline set by the handler never
	// overwrites the one set at the end, and none is set once the handler
	// has returned (a ResponseController is invalid then).
	mu sync.Mutex
	// ended is set when the context ended: writes fail from then on.
	ended bool
	// slowDeadline is the slow-consumer deadline of the write in progress
	// (zero without one). A write that fails on it makes net/http cancel
	// the request context from inside Write (checkConnErrorWriter), so the
	// end of the watch is then a consequence of the slow client, not its
	// cause: slowExpired records that, whichever goroutine runs first.
	slowDeadline time.Time
	// slowExpired is set when the context ended at or after slowDeadline.
	slowExpired bool
	// released is set when the handler is done with the response.
	released bool
}

// newWriteDeadline arms the end-of-watch deadline on the end of life (not
// on a stream fault's). The returned release must be called before the
// handler returns.
func newWriteDeadline(life *watchLife, rc *http.ResponseController, timeout time.Duration) (*writeDeadline, func()) {
	d := &writeDeadline{rc: rc, timeout: timeout}
	life.onEnd(func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.released {
			return
		}
		d.ended = true
		if !d.slowDeadline.IsZero() && !time.Now().Before(d.slowDeadline) {
			d.slowExpired = true
			return // the write has already failed on its own deadline
		}
		// Not every ResponseWriter supports deadlines (an in-process
		// handler test, say); then only a reading client ends the write.
		_ = d.rc.SetWriteDeadline(time.Now().Add(watchEndWriteGrace))
	})
	return d, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.released = true
	}
}

// beforeWrite sets the deadline of the next write, the slow-consumer
// timeout from now if there is one. Once the watch has ended it leaves the
// end's deadline alone, and refuses a new event (newEvent) with
// errWatchEnded; a flush of what is written may still go out.
func (d *writeDeadline) beforeWrite(newEvent bool) error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.released:
	case d.ended && newEvent:
		return errWatchEnded
	case d.ended:
	case d.timeout > 0:
		d.slowDeadline = time.Now().Add(d.timeout)
		_ = d.rc.SetWriteDeadline(d.slowDeadline)
	}
	return nil
}

// idle clears the slow-consumer deadline once the watch has written what
// it had and waits for more: the deadline is the write's, not the
// stream's. It must not outlive the write: net/http's HTTP/2 server
// resets a stream whose write deadline passes even with no write in
// progress (http2stream.onWriteTimeout), which ended every idle HTTP/2
// watch one SlowWatcherWriteTimeout after its last event, and kept a timer
// per idle watch. The end of the watch's grace deadline is left alone.
func (d *writeDeadline) idle() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.released || d.ended || d.slowDeadline.IsZero() {
		return
	}
	d.slowDeadline = time.Time{}
	_ = d.rc.SetWriteDeadline(time.Time{})
}

// watchEnded reports whether a failed write is explained by the end of the
// watch rather than by a slow client.
func (d *writeDeadline) watchEnded() bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ended && !d.slowExpired
}
