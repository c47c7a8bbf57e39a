package fakeapiserver

import (
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lw-sim/lw-sim/internal/cputime"
)

// BenchmarkListPageGzip is the server's side of the pages client-go reads
// (protobuf, Accept-Encoding: gzip, 500 pods a page of a 10 000 pod
// store), at the default level (0: stored blocks) and at kube-apiserver's
// (1), and plain (identity) beside them: each request goes straight
// through the handler into a writer that only counts the bytes, so
// ns/page (and cpu-ns/page, process CPU time, steadier on a shared
// machine) is the page's reading, splicing and gzipping, with no network
// or client. The encoding caches are filled before the timing.
func BenchmarkListPageGzip(b *testing.B) {
	const accept = "application/vnd.kubernetes.protobuf"
	for _, level := range []int{gzip.NoCompression, KubeAPIServerCompressionLevel} {
		srv := Start(b, WithConfig(func(cfg *Config) { cfg.ResponseCompressionLevel = level }))
		seedPods(b, srv, 10_000)
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		pages := benchPageURLs(b, client, srv.URL()+"/api/v1/pods")
		h := srv.Handler()
		encodings := []string{"gzip"}
		if level == gzip.NoCompression {
			encodings = append(encodings, "identity")
		}
		for _, enc := range encodings {
			b.Run(fmt.Sprintf("level=%d/accept-encoding=%s", level, enc), func(b *testing.B) {
				reqs := make([]*http.Request, len(pages))
				for i, u := range pages {
					reqs[i] = httptest.NewRequest(http.MethodGet, u, nil)
					reqs[i].Header.Set("Accept", accept)
					reqs[i].Header.Set("Accept-Encoding", enc)
				}
				w := &countingWriter{}
				for _, r := range reqs { // fill the encoding caches
					w.serve(b, h, r)
				}
				n, size := 0, 0
				cpu0 := cputime.Process()
				for b.Loop() {
					for _, r := range reqs {
						size += w.serve(b, h, r)
						n++
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/page")
				b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(n), "cpu-ns/page")
				b.ReportMetric(float64(size)/float64(n), "bytes/page")
			})
		}
	}
}

// countingWriter is an http.ResponseWriter that keeps only the status and
// the body's length.
type countingWriter struct {
	header http.Header
	code   int
	n      int
}

// serve runs h on r into w and returns the body's length, failing b unless
// the answer is 200.
func (w *countingWriter) serve(b *testing.B, h http.Handler, r *http.Request) int {
	w.header, w.code, w.n = http.Header{}, 0, 0
	h.ServeHTTP(w, r)
	if w.code != http.StatusOK {
		b.Fatalf("GET %s: %d", r.URL, w.code)
	}
	return w.n
}

func (w *countingWriter) Header() http.Header { return w.header }

func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}
