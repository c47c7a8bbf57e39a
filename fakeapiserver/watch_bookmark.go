package fakeapiserver

import (
	"time"

	"k8s.io/utils/clock"
)

// bookmarkBeforeDeadline: one more bookmark goes out this long before the
// watch's deadline, so the client resumes from a fresh RV (cacher
// cache_watcher.go nextBookmarkTime).
const bookmarkBeforeDeadline = 2 * time.Second

// bookmarkTimer schedules a watch's periodic bookmarks at
// min(now+interval, deadline-2s), as nextBookmarkTime does. The real
// dispatcher rounds to 1 s buckets and jitters; the fake fires exactly, so
// tests on virtual time can pin the schedule.
type bookmarkTimer struct {
	clk      clock.WithTicker
	interval time.Duration
	deadline time.Time
	timer    clock.Timer
	enabled  bool
	// due is set by the watch when the timer fired and the bookmark is
	// still to be sent.
	due bool
}

// newBookmarkTimer starts the schedule; a disabled timer never fires.
func newBookmarkTimer(clk clock.WithTicker, interval time.Duration, deadline time.Time, enabled bool) *bookmarkTimer {
	b := &bookmarkTimer{clk: clk, interval: interval, enabled: enabled, deadline: deadline}
	if enabled {
		b.timer = clk.NewTimer(b.next())
	}
	return b
}

// next is the delay until the next bookmark.
func (b *bookmarkTimer) next() time.Duration {
	d := b.interval
	if !b.deadline.IsZero() {
		if untilEnd := b.deadline.Sub(b.clk.Now()) - bookmarkBeforeDeadline; untilEnd > 0 && untilEnd < d {
			d = untilEnd
		}
	}
	return d
}

// c is the firing channel (nil, never ready, when disabled).
func (b *bookmarkTimer) c() <-chan time.Time {
	if !b.enabled {
		return nil
	}
	return b.timer.C()
}

// reset schedules the next bookmark after one was handled.
func (b *bookmarkTimer) reset() {
	b.due = false
	if b.enabled {
		b.timer.Reset(b.next())
	}
}

// stop releases the timer.
func (b *bookmarkTimer) stop() {
	if b.enabled {
		b.timer.Stop()
	}
}
