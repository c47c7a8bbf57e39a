package fakeapiserver

import (
	"os"
	"testing"
)

// The bounds TestWatchMemoryBound holds an open HTTP/2 watch to, per
// watch, averaged over watchMemBoundWatches watches (the server's figures
// with them open beyond its figures with one open; see
// TestWatchMemoryProcess). What they guard is issue 25's cut: a watch's
// handler goroutine keeps a 4 KiB stack because the set-up runs on a
// goroutine of its own and the follow loop's event path fits in 4 KiB
// (watch_handoff.go). Nothing else notices if that breaks: a stack that
// grows to 8 KiB works the same, only costs 4 KiB more per watch for the
// watch's life, and `make test`'s -race frames are too large to measure.
//
// Measured on 2 shared cores (Go 1.26, 1 000 watches, 10 events), quiet
// and with 20 busy loops competing at the test's priority (the load of
// `make test-loaded`), with and without a label selector, B per watch:
//
//	                                   stacks idle   after events   heap objects
//	quiet, 7 runs                      4 260-4 358   4 358-4 522    12 104-12 513
//	loaded 10x, 6 runs                 4 293-4 325   4 424-4 522    12 109-12 513
//	loaded 10x, server GOMAXPROCS=8    4 293-4 358   4 588-4 620    12 110-12 330
//	set-up on the handler goroutine    8 454         8 487          unchanged
//	+1 KiB frame on the event path     4 293         8 847-8 946    unchanged
//
// A stack is 4 096 B per watch plus the HTTP/2 connections' goroutines
// (two each, one connection per 100 streams), about 170-260 B per watch.
// After events, a few watches have grown to 8 KiB: the first to encode
// an event for all, and ones whose lock waits went deeper; each adds 4 B
// to the average per 1 000 watches. More Ps mean more handlers at once,
// and more of them deep in a lock wait: hence GOMAXPROCS=2 below. The
// last two rows are the regressions the bounds are for (the hand-off
// skipped; a follow loop 1 KiB deeper, sendChange's frame grown): every
// watch at 8 KiB. A 256 B deeper frame still fits and passes (4 391-4 456
// after events), as it should: it costs no memory.
const (
	// watchMemBoundWatches is how many watches are averaged: enough that
	// the connections' share is small, few enough to run in a second.
	watchMemBoundWatches = 1000
	// watchMemBoundEvents is how many events each watch reads before the
	// second measurement: each is encoded once for all and written to
	// every watch, which is the follow loop's event path.
	watchMemBoundEvents = 10
	// watchMemMaxStacksIdle bounds the stack bytes per idle watch: about
	// 800 B above the largest measured, so about a fifth of the watches
	// may grow to 8 KiB before it fails, and 8 KiB for all (8.4 KB)
	// fails by far.
	watchMemMaxStacksIdle = 5 << 10
	// watchMemMaxStacksAfterEvents bounds them after the events: about
	// 1 600 B above the largest measured (two fifths of the watches at
	// 8 KiB), 2.2 KB below 8 KiB for all.
	watchMemMaxStacksAfterEvents = 6 << 10
	// watchMemMaxHeap bounds the live heap bytes per watch, idle or after
	// the events: about 12% above the largest measured, so a regression
	// of 1.5 KB per watch fails (the baseline was 39 KB).
	watchMemMaxHeap = 14000
	// watchMemMaxGoroutines bounds the goroutines per watch: 1 (its
	// handler) and the connections' 0.02; a set-up goroutine that
	// outlived its hand-off would make it 2.
	watchMemMaxGoroutines = 1.05
)

// TestWatchMemoryBound (`make watchmem`, in CI; not in `make test`:
// set LWSIM_WATCHMEM_BOUND=1, and build without -race) fails when an
// open HTTP/2 watch costs the server more than the bounds above, idle and
// idle after events, unfiltered and with a label selector that decodes
// objects to filter them. The server runs with GOMAXPROCS=2, so how many
// handlers contend at once does not depend on the machine's CPUs. It
// bounds memory only, never time.
func TestWatchMemoryBound(t *testing.T) {
	if os.Getenv("LWSIM_WATCHMEM_BOUND") != "1" {
		t.Skip("set LWSIM_WATCHMEM_BOUND=1 (make watchmem)")
	}
	if raceEnabled {
		t.Fatal("LWSIM_WATCHMEM_BOUND=1 with -race: the race detector's frames are larger; build without it")
	}
	for _, c := range []struct{ name, selector string }{
		{"unfiltered", ""},
		{"labelSelector", "labelSelector=app%3Dwatchmem"},
	} {
		t.Run(c.name, func(t *testing.T) {
			open, after := measureWatchMemory(t, watchMemRun{
				proto:    "h2",
				watches:  watchMemBoundWatches,
				events:   watchMemBoundEvents,
				selector: c.selector,
				env:      []string{"GOMAXPROCS=2"},
			})
			checkWatchMemBound(t, "idle", open, watchMemMaxStacksIdle)
			checkWatchMemBound(t, "idle after events", after, watchMemMaxStacksAfterEvents)
		})
	}
}

// checkWatchMemBound fails t when per exceeds maxStacks or the heap and
// goroutine bounds.
func checkWatchMemBound(t *testing.T, when string, per watchMemPerWatch, maxStacks float64) {
	t.Helper()
	if per.stacks > maxStacks {
		t.Errorf("%s: stacks %.0f B per watch, want at most %.0f: a watch's handler goroutine no longer stays at a 4 KiB stack (watch_handoff.go)",
			when, per.stacks, maxStacks)
	}
	if per.heap > watchMemMaxHeap {
		t.Errorf("%s: heap %.0f B per watch, want at most %d", when, per.heap, watchMemMaxHeap)
	}
	if per.goroutines > watchMemMaxGoroutines {
		t.Errorf("%s: %.2f goroutines per watch, want at most %.2f", when, per.goroutines, watchMemMaxGoroutines)
	}
}
