package fakeapiserver

import (
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkWatchFanout measures delivery of b.N writes to 1, 100 and 1 000
// JSON watchers over real loopback HTTP. Reported per delivered event:
// ns/event (wall time over all cores), allocs/event (server and client
// transport together), and encodings/write, which stays 1 whatever the
// number of watchers: the encoding cost per event does not grow with them.
func BenchmarkWatchFanout(b *testing.B) {
	for _, watchers := range []int{1, 100, 1000} {
		b.Run(strconv.Itoa(watchers)+"watchers", func(b *testing.B) {
			benchFanout(b, watchers, "application/json")
		})
	}
}

// BenchmarkWatchFanoutTable is BenchmarkWatchFanout for Table watchers
// (kubectl get -w): each event is a one-row Table, its age computed when
// sent; encodings/write stays 1 because watchers sent an event in the same
// second of the server's clock share its encoding.
func BenchmarkWatchFanoutTable(b *testing.B) {
	for _, watchers := range []int{1, 100, 1000} {
		b.Run(strconv.Itoa(watchers)+"watchers", func(b *testing.B) {
			benchFanout(b, watchers, tableAccept)
		})
	}
}

// benchFanout delivers b.N writes to watchers watches asking for accept.
func benchFanout(b *testing.B, watchers int, accept string) {
	srv := Start(b)
	res := configMapsResource(b, srv)
	tr := &http.Transport{MaxIdleConnsPerHost: watchers, MaxConnsPerHost: 0}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	var bodies []io.Closer
	defer func() {
		for _, c := range bodies {
			c.Close()
		}
		wg.Wait()
	}()
	for range watchers {
		req, err := http.NewRequest(http.MethodGet, srv.URL()+watchCMPath+"?watch=true&resourceVersion="+formatRV(srv.store.CurrentRV()), nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, resp.Body)
		wg.Go(func() { _, _ = io.Copy(io.Discard, resp.Body) })
	}
	before := srv.WatchStats()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	start := time.Now()
	n := int64(0)
	for b.Loop() {
		if _, err := srv.createObject(res, "default", configMap("default", "b"+strconv.FormatInt(n, 10), "v", nil)); err != nil {
			b.Fatal(err)
		}
		n++
		// Pace the writer by batches: a steady state in which watchers
		// keep up, rather than a burst that outruns the encoding cache.
		if n%benchBatch == 0 {
			waitDelivered(b, srv, before.EventsSent+n*int64(watchers))
		}
	}
	waitDelivered(b, srv, before.EventsSent+n*int64(watchers))
	elapsed := time.Since(start)
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	delivered := float64(n * int64(watchers))
	b.ReportMetric(delivered/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(elapsed.Nanoseconds())/delivered, "ns/event")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/delivered, "allocs/event")
	b.ReportMetric(float64(srv.WatchStats().Encodings-before.Encodings)/float64(n), "encodings/write")
}

// benchBatch is how many writes go out before the benchmark waits for the
// watchers to catch up; far below the encoding cache's 4096 entries.
const benchBatch = 64

// waitDelivered waits until the server has sent want events in total.
func waitDelivered(b *testing.B, srv *Server, want int64) {
	deadline := time.Now().Add(time.Minute)
	for srv.WatchStats().EventsSent < want {
		if time.Now().After(deadline) {
			b.Fatalf("sent %d events, want %d", srv.WatchStats().EventsSent, want)
		}
		runtime.Gosched()
	}
}
