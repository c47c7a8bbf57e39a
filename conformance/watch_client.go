package conformance

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// event is one decoded watch event.
type event struct {
	Type   string `json:"type"`
	Object object `json:"object"`
}

// watchStream is an open WATCH response whose events a goroutine decodes
// into events; the channel closes when the stream ends.
type watchStream struct {
	t      testing.TB
	target Target
	resp   *http.Response
	cancel context.CancelFunc
	events chan event
	// done is closed once the reader goroutine has exited.
	done chan struct{}
	// ended records when the stream ended (set before events closes).
	ended time.Time
	err   error
}

// watch opens a watch. It fails the test unless the server answered 200;
// use c.do for watches expected to fail with an HTTP error.
func (c *client) watch(ctx context.Context, t testing.TB, r request) *watchStream {
	t.Helper()
	if r.Query == nil {
		r.Query = q()
	}
	r.Query.Set("watch", "true")
	ctx, cancel := context.WithCancel(ctx)
	req, err := c.newHTTPRequest(ctx, r)
	if err != nil {
		cancel()
		t.Fatalf("watch %s: %v", r.Path, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("watch %s?%s: %v", r.Path, r.Query.Encode(), err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("watch %s?%s: code %d, body %s", r.Path, r.Query.Encode(), resp.StatusCode, body)
	}
	w := &watchStream{t: t, target: c.target, resp: resp, cancel: cancel, events: make(chan event, 1000), done: make(chan struct{})}
	go w.read()
	t.Cleanup(w.stop)
	return w
}

// read decodes events until the stream ends.
func (w *watchStream) read() {
	defer close(w.done)
	defer close(w.events)
	frames := kubewire.NewFrameReader(w.resp.Body)
	for {
		ev, err := nextEvent(frames)
		if err != nil {
			w.ended = time.Now()
			if err != io.EOF {
				w.err = err
			}
			return
		}
		w.events <- ev
	}
}

// nextEvent reads the next frame and decodes its object.
func nextEvent(frames *kubewire.FrameReader) (event, error) {
	f, err := frames.Next()
	if err != nil {
		return event{}, err
	}
	ev := event{Type: f.Type}
	return ev, json.Unmarshal(f.Object, &ev.Object)
}

// stop closes the stream and waits for the reader.
func (w *watchStream) stop() {
	w.cancel()
	w.resp.Body.Close()
	<-w.done
}

// wait runs until d of server time has passed or cond says stop; on a
// target with a [Clock] server time is advanced instead of slept. It
// returns false if the context ended first.
func wait(ctx context.Context, target Target, d time.Duration, cond func() bool) bool {
	clk, hasClock := target.(Clock)
	return waitOn(ctx, clk, hasClock, d, cond)
}

// waitDue is wait for a cond that must hold once d has passed (a
// controller's tick, say): on a target with a Clock, once d of virtual
// time has been advanced it keeps polling cond, without advancing, until
// ctx ends, because what is due may still need CPU the machine has not
// given it (a loaded machine reaches the virtual deadline in 1.8 s of
// real time). A cond that must stay false uses wait.
func waitDue(ctx context.Context, target Target, d time.Duration, cond func() bool) bool {
	if wait(ctx, target, d, cond) && cond() {
		return true
	}
	if _, hasClock := target.(Clock); !hasClock {
		return false
	}
	tick := time.NewTicker(pumpInterval)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}

// waitOn is wait with the clock given; hasClock false waits in real time.
func waitOn(ctx context.Context, clk Clock, hasClock bool, d time.Duration, cond func() bool) bool {
	var elapsed time.Duration
	tick := time.NewTicker(pumpInterval)
	defer tick.Stop()
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if hasClock {
			if elapsed >= d {
				return true
			}
		} else if !time.Now().Before(deadline) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
			if hasClock {
				clk.Advance(pumpStep)
				elapsed += pumpStep
			}
		}
	}
}

// next returns the next event, or ok=false if the stream ended or no event
// came within d of real time. It never advances a target's clock: the
// events it waits for follow writes, which take real time, and advancing
// virtual time meanwhile could end the watch.
func (w *watchStream) next(ctx context.Context, d time.Duration) (ev event, ok, closed bool) {
	w.t.Helper()
	var got bool
	waitOn(ctx, nil, false, d, func() bool {
		select {
		case e, open := <-w.events:
			if !open {
				closed = true
				return true
			}
			ev, got = e, true
			return true
		default:
			return false
		}
	})
	return ev, got, closed
}

// mustNext returns the next event or fails the test.
func (w *watchStream) mustNext(ctx context.Context, what string) event {
	w.t.Helper()
	ev, ok, closed := w.next(ctx, eventTimeout)
	if !ok {
		w.t.Fatalf("%s: no event within %v (stream closed: %v)", what, eventTimeout, closed)
	}
	return ev
}

// collect gathers events until the stream ends, or until d of server time
// has passed; ended says whether the stream ended.
func (w *watchStream) collect(ctx context.Context, d time.Duration) (evs []event, ended bool) {
	w.t.Helper()
	wait(ctx, w.target, d, func() bool {
		for {
			select {
			case e, open := <-w.events:
				if !open {
					ended = true
					return true
				}
				evs = append(evs, e)
			default:
				return false
			}
		}
	})
	return evs, ended
}

// eventTimeout bounds the wait for an event that must come promptly (a
// replayed or live event after a write): generous for a loaded CI machine.
const eventTimeout = 10 * time.Second

// types lists the event types of evs.
func eventTypes(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
