package fakeapiserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lw-sim/lw-sim/internal/cputime"
)

// BenchmarkListHandlerChain is the fixed cost of a LIST in the handler
// chain: a protobuf GET of one pod's page (limit=1, so reading and
// encoding cost next to nothing) with the headers client-go's typed
// clientset sends, straight through the server's handler into a writer
// that only counts the bytes. ns/op and allocs/op are what every page
// pays before and after its store read: the filters (authentication,
// authorization, request info, the request log), routing, the list
// options, content negotiation and the response's headers.
func BenchmarkListHandlerChain(b *testing.B) {
	srv := Start(b)
	seedPods(b, srv, 10)
	h := srv.Handler()
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/bench-0/pods?limit=1", nil)
	r.Header.Set("Accept", "application/vnd.kubernetes.protobuf,application/json")
	r.Header.Set("User-Agent", "bench.test/v0.0.0 (linux/amd64) kubernetes/$Format")
	w := &countingWriter{}
	w.serve(b, h, r)
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		w.serve(b, h, r)
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
