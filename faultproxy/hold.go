package faultproxy

import (
	"sync"
	"time"

	"github.com/lw-sim/lw-sim/faults"
)

// held is one upstream frame waiting in a relay's inbox.
type held struct {
	// frame is the frame's bytes and newline, as they go out.
	frame []byte
	ev    faults.Event
	// at is when the proxy received it, on the proxy's clock.
	at time.Time
	// seq numbers the stream's events (ADDED, MODIFIED, DELETED) from 1;
	// 0 for a BOOKMARK or an ERROR.
	seq int64
	// initial marks a watch-list's initial event: its snapshot, which the
	// lag rules do not hold back.
	initial bool
}

// isEvent reports whether a frame of type typ is a change (not a BOOKMARK
// or an ERROR).
func isEvent(typ string) bool { return typ == "ADDED" || typ == "MODIFIED" || typ == "DELETED" }

// inbox is the queue between a relay's upstream reader and its writer.
//
// The writer takes frames off its head in order, as the instance's rules
// release them ([inbox.take]):
//
//	frozen or partitioned   nothing
//	BOOKMARK, ERROR         at once when at the head (every frame before
//	                        it went out, so a bookmark never runs ahead of
//	                        a held event: later events have higher RVs)
//	watch-list initial      at once (a lagging cache serves its snapshot at
//	  event                 once; the proxy can only serve the upstream's)
//	event, lag by N         once N later events of the stream arrived
//	event, lag by D         D after the proxy received it
//	event, fresh            at once
//
// When the upstream has ended, the events a lag by N still holds will
// never have N successors: they are dropped (the client resumes from the
// last RV it got and the upstream sends them again), so a final ERROR goes
// out. Frames held by time (a lag by D, a freeze) are still waited for.
//
// The inbox is unbounded: the reader never holds the upstream back, so a
// frozen proxy keeps every frame of its open streams in memory until it
// is healed or the streams end (kube-apiserver would drop a watcher that
// far behind; a test cluster's streams are small).
type inbox struct {
	// mu guards the fields below.
	mu     sync.Mutex
	frames []held
	// events counts the stream's events received.
	events int64
	// ended is set once the upstream stream is over.
	ended bool
	// signal has a value when frames arrived or the upstream ended.
	signal chan struct{}
}

// newInbox returns an empty inbox.
func newInbox() *inbox { return &inbox{signal: make(chan struct{}, 1)} }

// put appends h and numbers it if it is an event.
func (b *inbox) put(h held) {
	b.mu.Lock()
	if isEvent(h.ev.Type) {
		b.events++
		h.seq = b.events
	}
	b.frames = append(b.frames, h)
	b.mu.Unlock()
	b.notify()
}

// end marks the upstream over.
func (b *inbox) end() {
	b.mu.Lock()
	b.ended = true
	b.mu.Unlock()
	b.notify()
}

// notify wakes the writer.
func (b *inbox) notify() {
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

// take removes the frames r releases at now from the head and returns them
// in order (events dropped at the upstream's end left out); finished
// reports that the upstream ended and nothing is left; due, when not zero,
// is when the head is released by time.
func (b *inbox) take(r holdRules, now time.Time) (out []held, finished bool, due time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for ; n < len(b.frames) && !r.frozen; n++ {
		h := b.frames[n]
		if h.seq == 0 || h.initial {
			out = append(out, h)
			continue
		}
		if r.lagEvents > 0 && b.events-h.seq < r.lagEvents {
			if b.ended {
				continue // dropped: it will never have N successors
			}
			break
		}
		if r.lagTime > 0 {
			if at := h.at.Add(r.lagTime); now.Before(at) {
				due = at
				break
			}
		}
		out = append(out, h)
	}
	b.frames = b.frames[n:]
	if len(b.frames) == 0 {
		b.frames = nil
	}
	return out, b.ended && len(b.frames) == 0, due
}
