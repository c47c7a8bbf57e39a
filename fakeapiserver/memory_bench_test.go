package fakeapiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"

	"k8s.io/client-go/rest"
)

// BenchmarkWatchMemory reports the memory 1 000 open, idle configmap
// watches add (B/watch: heap in use plus goroutine stacks, after a
// collection), over HTTP/2 with TLS (client-go's transport, many streams
// a connection) and over plain HTTP/1.1 (a connection a watch). Nobody
// reads the bodies, so the client adds only its per-stream and
// per-connection state, not a reader goroutine; the figure is mostly the
// server's. One iteration is enough: b.N only repeats it.
func BenchmarkWatchMemory(b *testing.B) {
	const watches = 1_000
	for _, proto := range []string{"h2", "http1"} {
		b.Run("proto="+proto, func(b *testing.B) {
			var opts []Option
			if proto == "h2" {
				opts = append(opts, WithTLS())
			}
			srv := Start(b, opts...)
			client, err := rest.HTTPClientFor(srv.RESTConfig())
			if err != nil {
				b.Fatal(err)
			}
			if tr, ok := client.Transport.(*http.Transport); ok {
				tr.MaxIdleConnsPerHost = watches
			}
			for b.Loop() {
				heap, stack, err := watchMemory(b.Context(), srv, client, watches)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(heap+stack, "B/watch")
				b.ReportMetric(heap, "heap-B/watch")
				b.ReportMetric(stack, "stack-B/watch")
			}
			client.CloseIdleConnections()
		})
	}
}

// watchMemory opens n watches and returns the heap in use and the
// goroutine stacks they add per watch, after a collection; it closes them
// before returning.
func watchMemory(ctx context.Context, srv *Server, client *http.Client, n int) (heap, stack float64, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	url := srv.URL() + watchCMPath + "?watch=true&resourceVersion=" + formatRV(srv.store.CurrentRV())
	var bodies []io.Closer
	defer func() {
		for _, c := range bodies {
			c.Close()
		}
	}()
	heap0, stack0 := memInUse()
	for range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, err
		}
		bodies = append(bodies, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("watch: %s", resp.Status)
		}
	}
	heap1, stack1 := memInUse()
	return float64(heap1-heap0) / float64(n), float64(stack1-stack0) / float64(n), nil
}

// memInUse is the heap in use and the goroutine stacks, after a collection.
func memInUse() (heap, stack uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse, ms.StackInuse
}

// BenchmarkMemoryPerObject reports the memory the server holds per
// configmap after creating 100 000 small ones through its create path
// (seedConfigMaps: labelled, so the label index has an entry each), with
// its default compaction policy (at most 100 000 revisions retained, the
// rest compacted): B/object is the heap in use (spans holding something
// live, what stays resident), live-B/object the live heap; both count
// the objects, the versioned store and its indexes, after a collection.
// One iteration is enough: b.N only repeats it.
func BenchmarkMemoryPerObject(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		srv := Start(b)
		heap0, _ := memInUse()
		live0 := liveHeap()
		seedConfigMaps(b, srv, n)
		heap1, _ := memInUse()
		b.ReportMetric(float64(heap1-heap0)/n, "B/object")
		b.ReportMetric(float64(liveHeap()-live0)/n, "live-B/object")
		runtime.KeepAlive(srv)
	}
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
