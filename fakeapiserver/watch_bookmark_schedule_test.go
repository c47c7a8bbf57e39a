package fakeapiserver

import (
	"net/url"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/lw-sim/lw-sim/faults"
)

// TestBookmarkScheduledBeforeHeaders: a watch's bookmark before its
// deadline is scheduled when the watch starts, before its headers are
// written, as the cacher schedules it when it registers the watcher. A
// client that moves the clock past deadline - 2 s once it has the headers
// gets that bookmark, even when the stream was still busy (here: its
// first event delayed by a fault) when the clock moved. Scheduled only
// once the stream reached its follow loop, it fell an interval (1 min)
// away, past the deadline, and the conformance case
// WatchBookmarkBeforeDeadline failed on a loaded machine.
func TestBookmarkScheduledBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		b := startBubble(t, WithClock(clk))
		if _, err := b.srv.Faults().Add(faults.Fault{Kind: faults.DelayEvents, Delay: faults.Duration(5 * time.Second), Window: faults.Duration(time.Second), Streams: faults.NewStreams}); err != nil {
			t.Fatal(err)
		}
		q := url.Values{"watch": {"true"}, "sendInitialEvents": {"true"}, "resourceVersionMatch": {"NotOlderThan"},
			"allowWatchBookmarks": {"true"}, "fieldSelector": {"metadata.name=nothing"}, "timeoutSeconds": {"10"}}
		w := b.openWatch(t, "/api/v1/namespaces/default/configmaps?"+q.Encode())
		synctest.Wait() // the initial-events-end bookmark is held for 5 s
		a := b.mustCreate(t, configMap("default", "a", "v", nil))
		clk.Step(8100 * time.Millisecond) // past the delay and deadline - 2 s at once
		synctest.Wait()
		clk.Step(2 * time.Second) // the deadline
		got := briefs(t, w.wait())
		want := []brief{{Type: "BOOKMARK", RV: b.currentRV()}, {Type: "BOOKMARK", RV: a}}
		want[0].RV = got[0].RV // the watch-list's state RV, before a
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}
