package fakeapiserver

import (
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestWatchEncodesOncePerContentType: however many watchers receive an
// event, it is encoded once per media type.
func TestWatchEncodesOncePerContentType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		const watchers, writes = 20, 10
		var ws []*rawWatch
		for range watchers {
			ws = append(ws, b.openWatch(t, "/api/v1/configmaps?watch=true&resourceVersion="+b.currentRV()))
		}
		pb, _ := http.NewRequest(http.MethodGet, b.srv.URL()+watchCMPath+"?watch=true&resourceVersion="+b.currentRV(), nil)
		pb.Header.Set("Accept", "application/vnd.kubernetes.protobuf;stream=watch")
		resp, err := b.http.Do(pb)
		if err != nil {
			t.Fatal(err)
		}
		drained := make(chan struct{})
		go func() { defer close(drained); _, _ = io.Copy(io.Discard, resp.Body) }()
		t.Cleanup(func() { resp.Body.Close(); <-drained })
		synctest.Wait()
		before := b.srv.WatchStats()
		for i := range writes {
			b.mustCreate(t, configMap("default", "e"+strconv.Itoa(i), "v", nil))
		}
		synctest.Wait()
		for _, w := range ws {
			if got := len(w.snapshot()); got != writes {
				t.Fatalf("watcher got %d events, want %d", got, writes)
			}
		}
		after := b.srv.WatchStats()
		if got, want := after.Encodings-before.Encodings, int64(2*writes); got != want {
			t.Errorf("encodings for %d events to %d JSON + 1 protobuf watchers = %d, want %d", writes, watchers, got, want)
		}
		if got, want := after.EventsSent-before.EventsSent, int64((watchers+1)*writes); got != want {
			t.Errorf("events sent = %d, want %d", got, want)
		}
	})
}

// stalledWatch opens a watch whose client does not read until resume.
func (b *bubble) stalledWatch(t *testing.T, path string) *http.Response {
	t.Helper()
	resp, err := b.http.Get(b.srv.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// bigData is large enough that one event fills the connection's buffers.
var bigData = strings.Repeat("x", 256<<10)

func TestWatchSlowConsumer(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*WatchConfig)
		// stall is what happens while the client does not read.
		stall func(t *testing.T, b *bubble)
	}{
		{
			name: "client not reading for SlowWatcherWriteTimeout",
			cfg:  func(c *WatchConfig) { c.SlowWatcherWriteTimeout = 10 * time.Second },
			stall: func(t *testing.T, b *bubble) {
				b.mustCreate(t, configMap("default", "big", bigData, nil))
				time.Sleep(11 * time.Second)
			},
		},
		{
			name: "more than SlowWatcherMaxLag events behind",
			cfg:  func(c *WatchConfig) { c.SlowWatcherMaxLag = 5 },
			stall: func(t *testing.T, b *bubble) {
				b.mustCreate(t, configMap("default", "big", bigData, nil))
				synctest.Wait() // the watcher is blocked writing "big"
				for i := range 10 {
					b.mustCreate(t, configMap("default", "s"+strconv.Itoa(i), "v", nil))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t, WithConfig(func(c *Config) { tt.cfg(&c.Watch) }))
				resp := b.stalledWatch(t, watchCMPath+"?watch=true&resourceVersion="+b.currentRV())
				tt.stall(t, b)
				synctest.Wait()
				body, _ := io.ReadAll(resp.Body) // ends: the server closed the stream
				if strings.Contains(string(body), `"type":"ERROR"`) {
					t.Errorf("slow watcher got an ERROR event; want the stream just closed")
				}
				if got := b.srv.WatchStats().SlowTerminated; got != 1 {
					t.Errorf("WatchStats().SlowTerminated = %d, want 1", got)
				}
				if id := resp.Header.Get("Audit-Id"); !b.srv.WatchEndedSlow(id) {
					t.Errorf("WatchEndedSlow(%q) = false, want true: the server ended that watch as too slow", id)
				}
				if b.srv.WatchEndedSlow("some-other-watch") {
					t.Errorf("WatchEndedSlow(some-other-watch) = true, want false")
				}
				if got := b.srv.WatchStats().Active; got != 0 {
					t.Errorf("WatchStats().Active = %d, want 0", got)
				}
			})
		})
	}
}

// TestWatchThousandWatchers holds 1 000 watches open and delivers events to
// all of them: every watcher gets every event, each event is encoded once,
// and the memory per open watch stays small.
func TestWatchThousandWatchers(t *testing.T) {
	if testing.Short() {
		t.Skip("1 000 watchers")
	}
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		const watchers, writes = 1000, 20
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ws := make([]*rawWatch, watchers)
		for i := range ws {
			ws[i] = b.openWatch(t, watchCMPath+"?watch=true&resourceVersion="+b.currentRV())
		}
		synctest.Wait()
		enc0 := b.srv.WatchStats().Encodings
		for i := range writes {
			b.mustCreate(t, configMap("default", "t"+strconv.Itoa(i), "v", nil))
		}
		synctest.Wait()
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		for i, w := range ws {
			if got := len(w.snapshot()); got != writes {
				t.Fatalf("watcher %d got %d events, want %d", i, got, writes)
			}
		}
		if got := b.srv.WatchStats().Encodings - enc0; got != writes {
			t.Errorf("encodings = %d, want %d (one per event)", got, writes)
		}
		// Server and client side of each watch together (goroutines, HTTP
		// buffers, pipes, the collected events): bounded per watcher.
		perWatcher := (int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)) / watchers
		t.Logf("memory per open watch (server + client): %d KiB", perWatcher>>10)
		if perWatcher > 256<<10 {
			t.Errorf("memory per open watch = %d KiB, want <= 256 KiB", perWatcher>>10)
		}
	})
}

// TestWatchLagCountsOnlyMatches (issue 21): the lag rule counts the events
// a watch would send. A watch blocked on a large event, then more than
// SlowWatcherMaxLag writes outside its selector or namespace, is not
// ended once its client reads again: its client never fell behind on
// anything it is sent. It then gets its next event. (The rule counted the
// resource's events and cut such watches.)
func TestWatchLagCountsOnlyMatches(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		other func(i int) *corev1.ConfigMap
	}{
		{"label selector", watchCMPath + "?watch=true&labelSelector=app%3Dx",
			func(i int) *corev1.ConfigMap { return configMap("default", "o"+strconv.Itoa(i), "v", nil) }},
		{"namespace", watchCMPath + "?watch=true",
			func(i int) *corev1.ConfigMap { return configMap("kube-public", "o"+strconv.Itoa(i), "v", nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t, WithConfig(func(c *Config) { c.Watch.SlowWatcherMaxLag = 5 }))
				resp := b.stalledWatch(t, tt.path+"&resourceVersion="+b.currentRV())
				match := map[string]string{"app": "x"}
				b.mustCreate(t, configMap("default", "big", bigData, match))
				synctest.Wait() // the watcher is blocked writing "big"
				for i := range 10 {
					b.mustCreate(t, tt.other(i))
				}
				read := make(chan []byte)
				go func() { body, _ := io.ReadAll(resp.Body); read <- body }()
				synctest.Wait() // the client took "big"; the watcher read the 10 writes
				b.mustCreate(t, configMap("default", "next", "v", match))
				synctest.Wait()
				if got := b.srv.WatchStats().SlowTerminated; got != 0 {
					t.Errorf("WatchStats().SlowTerminated = %d, want 0: the 10 writes are not this watch's", got)
				}
				resp.Body.Close()
				if body := <-read; !strings.Contains(string(body), `"name":"next"`) {
					t.Errorf("the watch did not get the event after the burst; it got %d bytes", len(body))
				}
			})
		})
	}
}
