package fakeapiserver

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

// timed is an event with its arrival time, for schedule assertions.
type timed struct {
	Type, RV string
	At       time.Duration
}

func timedOf(t testing.TB, evs []rawEvent) []timed {
	var out []timed
	for _, e := range evs {
		out = append(out, timed{Type: e.Type, RV: e.meta(t).Metadata.ResourceVersion, At: e.at})
	}
	return out
}

func TestWatchTimeoutAndBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.mustCreate(t, configMap("default", "other", "v", nil))
		start := b.currentRV()
		// [observed on v1.37.2; apiserver pkg/storage/cacher/cache_watcher.go
		// nextBookmarkTime]: timeoutSeconds=66 → bookmarks at ~60 s and
		// ~64 s (deadline-2 s), each only because the RV moved on (writes in
		// another namespace), then the stream ends at exactly 66 s.
		w := b.openWatch(t, "/api/v1/namespaces/ns1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=66&resourceVersion="+start)
		time.Sleep(10 * time.Second)
		rv1 := b.mustCreate(t, configMap("default", "a", "v", nil))
		time.Sleep(51 * time.Second) // t = 61 s
		rv2 := b.mustCreate(t, configMap("default", "b", "v", nil))
		got := timedOf(t, w.wait())
		want := []timed{
			{Type: "BOOKMARK", RV: rv1, At: 60 * time.Second},
			{Type: "BOOKMARK", RV: rv2, At: 64 * time.Second},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("watch(timeoutSeconds=66) events mismatch (-want +got):\n%s", diff)
		}
		if got, want := time.Since(startTime(w)), 66*time.Second; got != want {
			t.Errorf("watch(timeoutSeconds=66) ended after %v, want %v", got, want)
		}
	})
}

func TestWatchBookmarksOnlyWhenAllowedAndRVMoved(t *testing.T) {
	tests := []struct {
		name   string
		query  string
		writes bool
		want   int
	}{
		{name: "no allowWatchBookmarks, RV moves", query: "", writes: true, want: 0},
		{name: "bookmarks, quiet server", query: "&allowWatchBookmarks=true", writes: false, want: 0},
		{name: "bookmarks, RV moves", query: "&allowWatchBookmarks=true", writes: true, want: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// No compactor: its tick at 300 s is a write of its own
				// (TestCompactionInterval) and would move the RV.
				b := startBubble(t, WithConfig(func(c *Config) { c.Compaction.Interval = -1 }))
				w := b.openWatch(t, "/api/v1/namespaces/ns1/configmaps?watch=true&timeoutSeconds=310&resourceVersion="+b.currentRV()+tt.query)
				// Writes at 25 s, 55 s, ... 295 s: never at a bookmark tick.
				time.Sleep(25 * time.Second)
				for i := range 10 {
					if i > 0 {
						time.Sleep(30 * time.Second)
					}
					if tt.writes {
						b.mustCreate(t, configMap("default", "cm"+formatRV(int64(i)), "v", nil))
					}
				}
				// Bookmarks at 60, 120, 180, 240, 300 s; 308 s has no new RV.
				if got := len(w.wait()); got != tt.want {
					t.Errorf("watch(%s) got %d bookmarks, want %d", tt.query, got, tt.want)
				}
			})
		})
	}
}

func TestWatchBookmarkIntervalConfigurable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, WithConfig(func(c *Config) { c.Watch.BookmarkInterval = 5 * time.Second }))
		w := b.openWatch(t, "/api/v1/namespaces/ns1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=12&resourceVersion="+b.currentRV())
		rv := b.mustCreate(t, configMap("default", "x", "v", nil))
		want := []timed{{Type: "BOOKMARK", RV: rv, At: 5 * time.Second}}
		if diff := cmp.Diff(want, timedOf(t, w.wait())); diff != "" {
			t.Errorf("watch(bookmark interval 5s) mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestWatchDefaultTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		w := b.openWatch(t, "/api/v1/configmaps?watch=true&resourceVersion="+b.currentRV())
		w.wait()
		// MinRequestTimeout (1800 s) times a random factor in [1, 2).
		if got := time.Since(startTime(w)); got < 1800*time.Second || got >= 3600*time.Second {
			t.Errorf("watch without timeoutSeconds lasted %v, want in [30m, 60m)", got)
		}
	})
}

func TestWatchSendInitialEventsTooNewRV(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		cur := b.srv.store.CurrentRV()
		w := b.openWatch(t, "/api/v1/namespaces/ns1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion="+formatRV(cur+1000))
		if w.resp.StatusCode != 200 {
			t.Fatalf("status = %d, want 200", w.resp.StatusCode)
		}
		evs := w.wait()
		if len(evs) != 1 || evs[0].Type != "ERROR" {
			t.Fatalf("events = %+v, want one ERROR", evs)
		}
		m := evs[0].meta(t)
		want := eventMeta{Kind: "Status", Reason: "Timeout", Code: 504,
			Message: "Timeout: Too large resource version: " + formatRV(cur+1000) + ", current: " + formatRV(cur)}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("ERROR event mismatch (-want +got):\n%s", diff)
		}
		if evs[0].at != 3*time.Second {
			t.Errorf("ERROR event after %v, want 3s", evs[0].at)
		}
	})
}

// TestWatchRunsOnConfigClock shows the other way to virtual time, the one
// lw-sim scenarios use: every watch timer runs on Config.Clock, so with a
// fake clock a watch does not end however much time passes, until the
// clock is stepped.
func TestWatchRunsOnConfigClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		b := startBubble(t, WithClock(fc))
		w := b.openWatch(t, "/api/v1/namespaces/ns1/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion="+b.currentRV())
		b.mustCreate(t, configMap("default", "x", "v", nil))
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case <-w.done:
			t.Fatalf("watch ended on the time package, not on Config.Clock")
		default:
		}
		fc.Step(3 * time.Second) // deadline-2s: the bookmark
		synctest.Wait()
		fc.Step(2 * time.Second) // the deadline
		evs := w.wait()
		if len(evs) != 1 || evs[0].Type != "BOOKMARK" {
			t.Errorf("events = %+v, want one BOOKMARK", briefs(t, evs))
		}
	})
}

// startTime is when w was opened, in the bubble's time.
func startTime(w *rawWatch) time.Time { return w.opened }
