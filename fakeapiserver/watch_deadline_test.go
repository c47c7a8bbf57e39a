package fakeapiserver

import (
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestWatchDeadlineEndsStalledWatch: a watch whose client never reads is
// blocked writing an event, yet it ends at its timeoutSeconds (virtual
// time), with no slow-consumer limit configured, and is not counted as a
// slow termination. Without the end-of-watch write deadline the handler
// stays blocked until the client closes.
func TestWatchDeadlineEndsStalledWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		resp := b.stalledWatch(t, watchCMPath+"?watch=true&timeoutSeconds=60&resourceVersion="+b.currentRV())
		b.mustCreate(t, configMap("default", "big", bigData, nil))
		synctest.Wait() // the handler is blocked writing "big"
		if got := b.srv.WatchStats().Active; got != 1 {
			t.Fatalf("WatchStats().Active while stalled = %d, want 1", got)
		}
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if got := b.srv.WatchStats().Active; got != 1 {
			t.Errorf("WatchStats().Active before the deadline = %d, want 1", got)
		}
		time.Sleep(watchEndWriteGrace + 2*time.Second)
		synctest.Wait()
		if got := b.srv.WatchStats().Active; got != 0 {
			t.Errorf("WatchStats().Active after the deadline = %d, want 0 (the watch held past its timeout)", got)
		}
		if got := b.srv.WatchStats().SlowTerminated; got != 0 {
			t.Errorf("WatchStats().SlowTerminated = %d, want 0: a deadline is not a slow consumer", got)
		}
		body, _ := io.ReadAll(resp.Body) // the server ended the response
		if strings.Contains(string(body), `"type":"ERROR"`) {
			t.Errorf("stalled watch got an ERROR event at its deadline; want the stream just ended")
		}
	})
}

// TestCloseEndsStalledWatch: Close returns while a watch's client never
// reads (its handler blocked writing an event, no timeoutSeconds, no
// slow-consumer limit), within the end-of-watch write grace of virtual
// time: closing the front closes the connection under the blocked write
// (the end-of-watch deadline would end it too; this pins that Close never
// waits for a client, which a graceful-only shutdown would).
func TestCloseEndsStalledWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t)
		b.stalledWatch(t, watchCMPath+"?watch=true&resourceVersion="+b.currentRV())
		b.mustCreate(t, configMap("default", "big", bigData, nil))
		synctest.Wait() // the handler is blocked writing "big"
		start := time.Now()
		b.close(t)
		if took := time.Since(start); took > watchEndWriteGrace {
			t.Errorf("Close took %v with a stalled watch, want at most the write grace %v", took, watchEndWriteGrace)
		}
	})
}
