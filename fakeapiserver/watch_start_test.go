package fakeapiserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

const watchCMPath = "/api/v1/namespaces/default/configmaps"

// seedStartPoints writes b, then a, into ns1 and returns their RVs, with
// the current RV after both.
func seedStartPoints(t *testing.T, b *bubble) (rvA, rvB, cur string) {
	rvB = b.mustCreate(t, configMap("default", "b", "v", nil))
	rvA = b.mustCreate(t, configMap("default", "a", "v", nil))
	b.mustCreate(t, configMap("kube-public", "other", "v", nil)) // moves the global RV
	return rvA, rvB, b.currentRV()
}

func TestWatchStartingPoints(t *testing.T) {
	tests := []struct {
		name  string
		query string
		// want builds the expected events from the seeded RVs.
		want func(rvA, rvB, cur string) []brief
	}{
		{
			name:  "RV unset defaults to sendInitialEvents: ADDED in key order, no bookmark",
			query: "",
			want: func(rvA, rvB, cur string) []brief {
				return []brief{{"ADDED", "a", rvA}, {"ADDED", "b", rvB}}
			},
		},
		{
			name:  "RV 0 with bookmarks is a watch-list: ADDED then the initial-events-end bookmark",
			query: "&resourceVersion=0&allowWatchBookmarks=true",
			want: func(rvA, rvB, cur string) []brief {
				return []brief{{"ADDED", "a", rvA}, {"ADDED", "b", rvB}, {"BOOKMARK", "", cur}}
			},
		},
		{
			name:  "explicit watch-list",
			query: "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
			want: func(rvA, rvB, cur string) []brief {
				return []brief{{"ADDED", "a", rvA}, {"ADDED", "b", rvB}, {"BOOKMARK", "", cur}}
			},
		},
		{
			name:  "sendInitialEvents=false, RV unset: only what comes next",
			query: "&sendInitialEvents=false&resourceVersionMatch=NotOlderThan",
			want:  func(rvA, rvB, cur string) []brief { return nil },
		},
		{
			name:  "RV=N replays every change after N",
			query: "&resourceVersion=RVB",
			want:  func(rvA, rvB, cur string) []brief { return []brief{{"ADDED", "a", rvA}} },
		},
		{
			name:  "RV in the future: accepted, silent",
			query: "&resourceVersion=FUTURE",
			want:  func(rvA, rvB, cur string) []brief { return nil },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t)
				rvA, rvB, cur := seedStartPoints(t, b)
				n, _ := strconv.ParseInt(cur, 10, 64)
				q := replaceAll(tt.query, "RVB", rvB, "FUTURE", formatRV(n+100))
				w := b.openWatch(t, watchCMPath+"?watch=true"+q)
				synctest.Wait()
				got := w.snapshot()
				if diff := cmp.Diff(tt.want(rvA, rvB, cur), briefs(t, got), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("watch(%s) events mismatch (-want +got):\n%s", q, diff)
				}
				for _, ev := range got {
					if ev.Type == "BOOKMARK" {
						want := map[string]string{metav1.InitialEventsAnnotationKey: "true"}
						if diff := cmp.Diff(want, ev.meta(t).Metadata.Annotations); diff != "" {
							t.Errorf("initial-events-end bookmark annotations (-want +got):\n%s", diff)
						}
					}
				}
			})
		})
	}
}

func TestWatchLiveEventsAfterStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		_, _, cur := seedStartPoints(t, b)
		n, _ := strconv.ParseInt(cur, 10, 64)
		future := b.openWatch(t, watchCMPath+"?watch=true&resourceVersion="+formatRV(n+2))
		list := b.openWatch(t, watchCMPath+"?watch=true&allowWatchBookmarks=true&resourceVersion=0")
		synctest.Wait()
		cm := configMap("default", "a", "v2", nil)
		rv1 := b.mustUpdate(t, cm)                                  // n+1: skipped by the future watch
		rv2 := b.mustCreate(t, configMap("default", "c", "v", nil)) // n+2: skipped too (RV > N only)
		b.mustDelete(t, "default", "c")                             // n+3
		rv3 := b.currentRV()
		synctest.Wait()
		wantFuture := []brief{{"DELETED", "c", rv3}}
		if diff := cmp.Diff(wantFuture, briefs(t, future.snapshot())); diff != "" {
			t.Errorf("watch(rv=%d) mismatch (-want +got):\n%s", n+2, diff)
		}
		got := briefs(t, list.snapshot())[3:] // after 2 ADDED + bookmark
		want := []brief{{"MODIFIED", "a", rv1}, {"ADDED", "c", rv2}, {"DELETED", "c", rv3}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("watch-list live events mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestWatchSelectorTransitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		b.mustCreate(t, configMap("default", "a", "v", map[string]string{"app": "x"}))
		w := b.openWatch(t, watchCMPath+"?watch=true&labelSelector=app%3Dx&resourceVersion="+b.currentRV())
		synctest.Wait()
		out := b.mustUpdate(t, configMap("default", "a", "v", map[string]string{"app": "y"}))
		b.mustUpdate(t, configMap("default", "a", "v2", map[string]string{"app": "y"})) // invisible
		in := b.mustUpdate(t, configMap("default", "a", "v3", map[string]string{"app": "x"}))
		synctest.Wait()
		evs := w.snapshot()
		want := []brief{{"DELETED", "a", out}, {"ADDED", "a", in}}
		if diff := cmp.Diff(want, briefs(t, evs)); diff != "" {
			t.Fatalf("watch(app=x) mismatch (-want +got):\n%s", diff)
		}
		// Leaving: the previous content (app=x, data v) at the new RV.
		var cm struct {
			Metadata struct{ Labels map[string]string } `json:"metadata"`
			Data     map[string]string                  `json:"data"`
		}
		if err := json.Unmarshal(evs[0].Object, &cm); err != nil {
			t.Fatal(err)
		}
		if cm.Metadata.Labels["app"] != "x" || cm.Data["k"] != "v" {
			t.Errorf("DELETED object = %s, want the previous content", evs[0].Object)
		}
	})
}

func TestWatchTooOldResourceVersion(t *testing.T) {
	tests := []struct {
		name  string
		opts  []Option
		setup func(t *testing.T, b *bubble) (from, floor int64)
	}{
		{
			name: "store compaction",
			setup: func(t *testing.T, b *bubble) (int64, int64) {
				from := b.srv.store.CurrentRV()
				b.mustCreate(t, configMap("default", "x", "v", nil))
				floor := b.srv.store.CurrentRV()
				if err := b.srv.Compact(floor); err != nil {
					t.Fatal(err)
				}
				return from, floor
			},
		},
		{
			name: "watch window by count",
			opts: []Option{WithConfig(func(c *Config) { c.Watch.HistoryMinEvents, c.Watch.HistoryMaxEvents = 3, 3 })},
			setup: func(t *testing.T, b *bubble) (int64, int64) {
				from := b.srv.store.CurrentRV()
				var rvs []string
				for i := range 5 {
					rvs = append(rvs, b.mustCreate(t, configMap("default", "x"+strconv.Itoa(i), "v", nil)))
				}
				oldest, _ := strconv.ParseInt(rvs[2], 10, 64) // the window holds the last 3
				return from, oldest - 1
			},
		},
		{
			name: "watch window by age",
			opts: []Option{WithConfig(func(c *Config) { c.Watch.HistoryMinEvents = 1 })},
			setup: func(t *testing.T, b *bubble) (int64, int64) {
				from := b.srv.store.CurrentRV()
				b.mustCreate(t, configMap("default", "old", "v", nil))
				// Seen by the WATCH path now, then 75 s pass.
				_ = b.srv.checkWatchWindow(b.srv.apiservers.instances[0], configMapsResource(t, b.srv).storageKey, from)
				time.Sleep(76 * time.Second)
				rv := b.mustCreate(t, configMap("default", "new", "v", nil))
				n, _ := strconv.ParseInt(rv, 10, 64)
				return from, n - 1
			},
		},
		{
			name: "CompactWatchHistory (a watch cache re-list)",
			setup: func(t *testing.T, b *bubble) (int64, int64) {
				from := b.srv.store.CurrentRV()
				b.mustCreate(t, configMap("default", "x", "v", nil))
				return from, b.srv.CompactWatchHistory()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t, tt.opts...)
				from, floor := tt.setup(t, b)
				w := b.openWatch(t, watchCMPath+"?watch=true&resourceVersion="+formatRV(from))
				if w.resp.StatusCode != http.StatusOK {
					t.Errorf("status = %d, want 200 (never an HTTP 410)", w.resp.StatusCode)
				}
				evs := w.wait() // the stream ends after the ERROR
				if len(evs) != 1 || evs[0].Type != "ERROR" {
					t.Fatalf("events = %v, want one ERROR", briefs(t, evs))
				}
				want := eventMeta{Kind: "Status", Reason: "Expired", Code: 410,
					Message: "too old resource version: " + formatRV(from) + " (" + formatRV(floor) + ")"}
				if diff := cmp.Diff(want, evs[0].meta(t)); diff != "" {
					t.Errorf("ERROR event mismatch (-want +got):\n%s", diff)
				}
				// From the floor itself the watch works.
				ok := b.openWatch(t, watchCMPath+"?watch=true&resourceVersion="+formatRV(floor))
				synctest.Wait()
				for _, ev := range ok.snapshot() {
					if ev.Type == "ERROR" {
						t.Errorf("watch from the floor %d got %s", floor, ev.Object)
					}
				}
				if got := b.srv.WatchStats().Expired; got != 1 {
					t.Errorf("WatchStats().Expired = %d, want 1", got)
				}
			})
		})
	}
}

func TestWatchInvalidOptions(t *testing.T) {
	tests := []struct {
		query    string
		wantCode int
		wantMsg  string
	}{
		{"&sendInitialEvents=true", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`},
		{"&resourceVersionMatch=NotOlderThan&resourceVersion=5", 422, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`},
		{"&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=5", 422, `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`},
		{"&resourceVersion=abc", 500, `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t)
				resp, err := b.http.Get(b.srv.URL() + watchCMPath + "?watch=true" + tt.query)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				var st metav1.Status
				if err := json.Unmarshal(body, &st); err != nil {
					t.Fatalf("body %s: %v", body, err)
				}
				if resp.StatusCode != tt.wantCode || st.Message != tt.wantMsg {
					t.Errorf("watch(%s) = %d %q, want %d %q", tt.query, resp.StatusCode, st.Message, tt.wantCode, tt.wantMsg)
				}
			})
		})
	}
}

// TestWatchReplayUnderConcurrentWrites races real writers against watches
// that start from RVs while the writes go on: every watch must get exactly
// the events after its RV, in order, none lost and none twice.
func TestWatchReplayUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	ctx := context.Background()
	const writes = 300
	written := make(chan string, writes)
	go func() {
		defer close(written)
		for i := range writes {
			cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, configMap("default", "w"+strconv.Itoa(i), "v", nil), metav1.CreateOptions{})
			if err != nil {
				t.Errorf("Create: %v", err)
				return
			}
			written <- cm.ResourceVersion
		}
	}()
	var all []string
	type watcher struct {
		from string
		w    watch.Interface
	}
	var ws []watcher
	for rv := range written {
		all = append(all, rv)
		if len(all)%50 == 0 {
			w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			if err != nil {
				t.Fatalf("Watch(rv=%s): %v", rv, err)
			}
			t.Cleanup(w.Stop)
			ws = append(ws, watcher{rv, w})
		}
	}
	for _, w := range ws {
		i := indexOf(all, w.from)
		want := all[i+1:]
		got := recvRVs(t, w.w, len(want))
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("watch(rv=%s) RVs mismatch (-want +got):\n%s", w.from, diff)
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// replaceAll applies old/new pairs to s.
func replaceAll(s string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// headerHookWriter is a streaming http.ResponseWriter that runs hook when
// the handler writes its status line, before WriteHeader returns: the
// moment a client would have the 200 of a watch and could write.
type headerHookWriter struct {
	header http.Header
	hook   func()
	body   *io.PipeWriter
}

func (w *headerHookWriter) Header() http.Header { return w.header }

func (w *headerHookWriter) WriteHeader(int) {
	if hook := w.hook; hook != nil {
		w.hook = nil
		hook()
	}
}

func (w *headerHookWriter) Write(p []byte) (int, error) { return w.body.Write(p) }

func (w *headerHookWriter) Flush() {}

// TestWatchFromNowSeesWritesAfterItsHeaders: a watch that starts at the
// most recent RV (sendInitialEvents=false, RV unset) takes that RV before
// it answers 200, as the cacher registers its watcher before the handler
// writes the headers, so a write made once the 200 is out is its first
// event. (Read after the headers, that RV passed the write by: the first
// event was the next write's.)
func TestWatchFromNowSeesWritesAfterItsHeaders(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		body, pw := io.Pipe()
		w := &headerHookWriter{header: http.Header{}, body: pw, hook: func() {
			b.mustCreate(t, configMap("default", "after-the-200", "v", nil))
		}}
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, watchCMPath+"?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan", nil)
		served := make(chan struct{})
		go func() {
			defer close(served)
			b.srv.Handler().ServeHTTP(w, req)
		}()
		synctest.Wait() // the watch has sent what it will send, or waits
		b.mustCreate(t, configMap("default", "next", "v", nil))
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			} `json:"object"`
		}
		if err := json.NewDecoder(body).Decode(&ev); err != nil {
			t.Fatalf("reading the watch's first event: %v", err)
		}
		if got, want := []string{ev.Type, ev.Object.Metadata.Name}, []string{"ADDED", "after-the-200"}; !cmp.Equal(got, want) {
			t.Errorf("first event (type, name):\n%s", cmp.Diff(want, got))
		}
		cancel()
		body.Close() // the handler's next write fails: it returns
		<-served
	})
}
