package fakeapiserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/faults"
)

// Stream fault tests run in synctest bubbles: delays, durations and the
// client's timeouts are virtual, and a hang is seen as "nothing happened
// for five virtual minutes".

// clientWatch opens a client-go watch of default/configmaps from the
// current RV.
func (b *bubble) clientWatch(t *testing.T, bookmarks bool) watch.Interface {
	t.Helper()
	w, err := b.cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{
		ResourceVersion: b.currentRV(), AllowWatchBookmarks: bookmarks,
	})
	if err != nil {
		t.Fatalf("Watch(configmaps): %v", err)
	}
	t.Cleanup(w.Stop)
	return w
}

// drain reads w until it closes and returns the event types seen.
func drain(w watch.Interface) []watch.EventType {
	var got []watch.EventType
	for ev := range w.ResultChan() {
		got = append(got, ev.Type)
	}
	return got
}

func TestFaultEndWatchNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		w := b.clientWatch(t, false)
		b.mustCreate(t, configMap("default", "a", "v", nil))
		if ev := <-w.ResultChan(); ev.Type != watch.Added {
			t.Fatalf("first event = %s, want ADDED", ev.Type)
		}
		synctest.Wait()
		b.srv.InjectFault(t, faults.Fault{Kind: faults.EndWatch, Match: faults.Match{Resource: "configmaps"}})
		if got := drain(w); len(got) != 0 {
			t.Errorf("events after EndWatch = %v, want none (a clean end, no ERROR)", got)
		}
		// The fault's scope was the streams open when it was added: a new
		// watch is not ended.
		w2 := b.clientWatch(t, false)
		b.mustCreate(t, configMap("default", "b", "v", nil))
		if ev := <-w2.ResultChan(); ev.Type != watch.Added {
			t.Errorf("new watch after EndWatch: first event = %s, want ADDED", ev.Type)
		}
		recs := b.srv.Faults().Records()
		if len(recs) != 1 || recs[0].Kind != faults.EndWatch || recs[0].Stream != 1 || recs[0].StreamEvents != 1 {
			t.Errorf("Records() = %+v, want one EndWatch on stream 1 after 1 event", recs)
		}
	})
}

func TestFaultEndWatchAfterEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.srv.InjectFault(t, faults.Fault{Kind: faults.EndWatch, Streams: faults.NewStreams, Times: 1, Trigger: faults.Trigger{Events: 2}})
		w := b.clientWatch(t, false)
		for _, n := range []string{"a", "b", "c"} {
			b.mustCreate(t, configMap("default", n, "v", nil))
		}
		if diff := cmp.Diff([]watch.EventType{watch.Added, watch.Added}, drain(w)); diff != "" {
			t.Errorf("watch with EndWatch after 2 events (-want +got):\n%s", diff)
		}
	})
}

func TestFaultEndWatchAfterDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.srv.InjectFault(t, faults.Fault{Kind: faults.EndWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{After: faults.Duration(90 * time.Second)}})
		start := time.Now()
		w := b.clientWatch(t, false)
		drain(w)
		if got := time.Since(start); got != 90*time.Second {
			t.Errorf("watch ended after %v, want 90s (server clock)", got)
		}
	})
}

func TestFaultCutWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.srv.InjectFault(t, faults.Fault{Kind: faults.CutWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 1}})
		rv := b.currentRV()
		raw := b.openWatch(t, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+rv)
		cw := b.clientWatch(t, false)
		b.mustCreate(t, configMap("default", "a", "v", nil))
		b.mustCreate(t, configMap("default", "b", "v", nil))
		evs := raw.wait()
		if len(evs) != 1 || !errors.Is(raw.err, io.ErrUnexpectedEOF) {
			t.Errorf("raw watch after CutWatch: %d events, err %v; want 1 event, then unexpected EOF", len(evs), raw.err)
		}
		// client-go ends the watch without an ERROR event.
		if diff := cmp.Diff([]watch.EventType{watch.Added}, drain(cw)); diff != "" {
			t.Errorf("client-go watch after CutWatch (-want +got):\n%s", diff)
		}
	})
}

// TestFaultCutWatchTCP checks what a cut looks like on a real socket: the
// connection is reset.
func TestFaultCutWatchTCP(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	srv.InjectFault(t, faults.Fault{Kind: faults.CutWatch, Streams: faults.NewStreams})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET watch: %v", err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	if err == nil {
		t.Fatal("reading a cut watch succeeded, want a reset")
	}
	t.Logf("cut watch over TCP: %v", err)
	if !isResetOrUnexpectedEOF(err) {
		t.Errorf("reading a cut watch: %v, want connection reset or unexpected EOF", err)
	}
}

func TestFaultHangWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.srv.InjectFault(t, faults.Fault{Kind: faults.HangWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 1}})
		// A client that gives up after 5 minutes without progress.
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL()+"/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=120&resourceVersion="+b.currentRV(), nil)
		raw := b.openWatchRequest(t, req)
		start := time.Now()
		b.mustCreate(t, configMap("default", "a", "v", nil))
		b.mustCreate(t, configMap("default", "b", "v", nil))
		evs := raw.wait()
		// No bookmark (they were due at 60 s), no end at the 120 s
		// timeout: the client's own timeout ends it.
		if len(evs) != 1 || !errors.Is(raw.err, context.DeadlineExceeded) || time.Since(start) != 5*time.Minute {
			t.Errorf("hung watch: %d events, err %v after %v; want 1 event, then the client's deadline at 5m", len(evs), raw.err, time.Since(start))
		}
	})
}

func TestFaultHangReleasedByRemove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		id, err := b.srv.Faults().Add(faults.Fault{Kind: faults.HangWatch, Streams: faults.NewStreams})
		if err != nil {
			t.Fatal(err)
		}
		w := b.clientWatch(t, false)
		time.Sleep(time.Hour)
		synctest.Wait()
		b.srv.Faults().Remove(id)
		if got := drain(w); len(got) != 0 {
			t.Errorf("released watch events = %v, want none", got)
		}
	})
}

func TestFaultWithholdBookmarks(t *testing.T) {
	for _, withhold := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			b := startBubble(t)
			if withhold {
				b.srv.InjectFault(t, faults.Fault{Kind: faults.WithholdBookmarks, Streams: faults.NewStreams})
			}
			w := b.openWatch(t, "/api/v1/namespaces/ns1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=200&resourceVersion="+b.currentRV())
			b.mustCreate(t, configMap("default", "other", "v", nil)) // moves the RV
			bookmarks := 0
			for _, e := range w.wait() {
				if e.Type == "BOOKMARK" {
					bookmarks++
				}
			}
			if (bookmarks == 0) != withhold {
				t.Errorf("WithholdBookmarks=%v: %d bookmarks in 200 s", withhold, bookmarks)
			}
		})
	}
}

func TestFaultDelayEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.srv.InjectFault(t, faults.Fault{Kind: faults.DelayEvents, Streams: faults.NewStreams, Delay: faults.Duration(7 * time.Second)})
		w := b.clientWatch(t, false)
		start := time.Now()
		b.mustCreate(t, configMap("default", "a", "v", nil))
		<-w.ResultChan()
		if got := time.Since(start); got != 7*time.Second {
			t.Errorf("delayed event arrived after %v, want 7s", got)
		}
	})
}

func TestFaultRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		old := b.mustCreate(t, configMap("default", "a", "v", nil))
		w := b.clientWatch(t, false)
		b.mustCreate(t, configMap("default", "b", "v", nil))
		<-w.ResultChan()
		b.srv.InjectFault(t, faults.Fault{Kind: faults.Restart})
		if got := drain(w); len(got) != 0 {
			t.Errorf("events after Restart = %v, want a silent end", got)
		}
		// A re-watch from before the restart gets the 410 ERROR event.
		w2, err := b.cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: old})
		if err != nil {
			t.Fatalf("Watch(rv=%s): %v", old, err)
		}
		ev := <-w2.ResultChan()
		if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || st.Code != http.StatusGone {
			t.Errorf("Watch(rv=%s) after Restart: %s %v, want ERROR 410", old, ev.Type, ev.Object)
		}
		w2.Stop()
		// An exact LIST at that RV is still served (etcd kept it).
		if _, err := b.cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{ResourceVersion: old, ResourceVersionMatch: metav1.ResourceVersionMatchExact}); err != nil {
			t.Errorf("List(rv=%s, Exact) after Restart: %v, want it served", old, err)
		}
	})
}
