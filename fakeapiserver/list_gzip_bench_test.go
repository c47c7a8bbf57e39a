package fakeapiserver

import (
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lw-sim/lw-sim/internal/cputime"
)

// BenchmarkListPageGzip is the server's side of the pages client-go reads
// (protobuf, Accept-Encoding: gzip, 500 pods a page of a 10 000 pod
// store), at the default level (0: stored blocks) and at kube-apiserver's
// (1), and plain (identity) beside them: each request goes straight
// through the handler into a writer that only counts the bytes, so
// ns/page (and cpu-ns/page, process CPU time, steadier on a shared
// machine) is the page's reading, splicing and gzipping, with no network
// or client. The encoding caches are filled before the timing. The
// identity/cold variant evicts the processor's caches before each page
// (untimed), as the client's decoding of the previous page does: what is
// added is the cost of reaching the page's memory; p50-ns/page is the
// median page, p10-ns/page the tenth percentile (the pages no other
// process slowed down: steadier on a shared machine).
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
			encodings = append(encodings, "identity", "identity/cold")
		}
		for _, enc := range encodings {
			enc, cold := strings.CutSuffix(enc, "/cold")
			name := fmt.Sprintf("level=%d/accept-encoding=%s", level, enc)
			if cold {
				name += "/cold"
			}
			b.Run(name, func(b *testing.B) {
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
				var evict []byte
				var times []time.Duration // of each cold page
				if cold {
					evict = make([]byte, evictBytes)
				}
				for b.Loop() {
					for _, r := range reqs {
						if cold {
							b.StopTimer()
							evictCaches(evict)
							b.StartTimer()
							start := time.Now()
							size += w.serve(b, h, r)
							times = append(times, time.Since(start))
						} else {
							size += w.serve(b, h, r)
						}
						n++
					}
				}
				if cold { // the median: steadier than the mean on a loaded machine
					slices.Sort(times)
					b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns/page")
					b.ReportMetric(float64(times[len(times)/10].Nanoseconds()), "p10-ns/page")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/page")
				if !cold { // the eviction's CPU time is in the process's
					b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(n), "cpu-ns/page")
				}
				b.ReportMetric(float64(size)/float64(n), "bytes/page")
			})
		}
	}
}

// evictBytes is the buffer evictCaches writes: more than the caches of
// the machines the benchmarks run on, about what client-go decodes between
// two pages (some 7 MB for 500 pods).
const evictBytes = 32 << 20

// evictCaches writes every cache line of buf, so the page served next
// finds the store's memory cold, as it is behind a client that decoded
// the page before.
func evictCaches(buf []byte) {
	for i := 0; i < len(buf); i += 64 {
		buf[i]++
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
