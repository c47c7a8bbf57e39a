package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/cputime"
)

// benchNS is the namespace the benchmarks seed.
const benchNS = "bench"

// startSeeded starts a fake with n benchmark pods in benchNS, created
// through the API, and returns its clients.
func startSeeded(b *testing.B, n int) (*Fake, *clients) {
	b.Helper()
	return startSeededConfig(b, n, fakeapiserver.Config{})
}

// startSeededConfig is startSeeded with a fake configured by cfg.
func startSeededConfig(b *testing.B, n int, cfg fakeapiserver.Config) (*Fake, *clients) {
	b.Helper()
	f, err := StartFakeConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := f.Close(); err != nil {
			b.Errorf("close fake: %v", err)
		}
	})
	c, err := newClients(f.Target)
	if err != nil {
		b.Fatal(err)
	}
	if err := createNamespace(b.Context(), c.cs, benchNS); err != nil {
		b.Fatal(err)
	}
	if _, err := createPods(b.Context(), c.cs, benchNS, 0, n, 8); err != nil {
		b.Fatal(err)
	}
	return f, c
}

// BenchmarkList pages through 10 000 and 100 000 pods, 500 a page, in
// JSON and protobuf, reading bodies as bytes: the server's side of a LIST,
// over loopback HTTP (http: plain bodies, Accept-Encoding: identity; and
// http-gzip: what Go's transport asks for by default, so the server gzips
// every page, which is over 128 KiB, as kube-apiserver does) and straight
// through the server's handler with no network or client in the way
// (handler, plain). ns/page (and cpu-ns/page, steadier on a shared
// machine) must stay flat from 10 000 to 100 000 pods; BenchmarkListFlat
// measures that quotient robustly, the two sizes interleaved. One traversal
// before the timed ones fills the encoding caches: the steady state of a
// server whose objects were read before.
func BenchmarkList(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			f, c := startSeeded(b, n)
			identity := *c
			identity.acceptEncoding = "identity"
			for _, via := range []struct {
				name string
				c    *clients
			}{{"http", &identity}, {"http-gzip", c}, {"handler", handlerClients(f, c)}} {
				for _, mt := range []string{jsonType, protobufType} {
					b.Run(via.name+"/accept="+mt, func(b *testing.B) {
						benchListRaw(b, via.c, mt)
					})
				}
			}
		})
	}
}

// BenchmarkListFlat checks that the cost of a page stays flat from a
// collection of 10 000 pods to one of 100 000 (500 a page, read as raw
// bytes, over loopback HTTP with Accept-Encoding: identity and straight
// through the handler), robustly on a shared machine: a fake of each size
// runs at once, and every round reads 200 pages of each, back to back (ten
// traversals of the small one, one of the big one), so a change in load
// hits both alike. It reports the median round's ns/page and cpu-ns/page
// (process CPU time) of each size and the median of the rounds' own
// quotients big ÷ small (×flat, ×flat-cpu; flat is 1). Both fakes share
// the process: the server allocates almost nothing a page and the raw
// client nothing, so the collector, which would scan both heaps, seldom
// runs (gc/page).
func BenchmarkListFlat(b *testing.B) {
	fSmall, small := startSeeded(b, 10_000)
	fBig, big := startSeeded(b, 100_000)
	for _, mt := range []string{jsonType, protobufType} {
		for _, via := range []string{"http", "handler"} {
			b.Run(via+"/accept="+mt, func(b *testing.B) {
				cs := [2]*clients{withEncoding(small, "identity"), withEncoding(big, "identity")}
				if via == "handler" {
					cs = [2]*clients{handlerClients(fSmall, small), handlerClients(fBig, big)}
				}
				benchListFlat(b, cs, mt)
			})
		}
	}
}

// benchListFlat times rounds of 200 pages of each of cs (ten traversals of
// the first, 10 000 pods, one of the second, 100 000) after a warm-up
// traversal of each.
func benchListFlat(b *testing.B, cs [2]*clients, mt string) {
	reps := [2]int{10, 1}
	for _, c := range cs {
		if _, err := listRaw(b.Context(), c, benchNS, mt, 500, false); err != nil {
			b.Fatal(err)
		}
	}
	m := startMeter()
	b.ResetTimer()
	var perPage, cpuPerPage [2][]float64
	var flat, flatCPU []float64
	pages := 0
	for b.Loop() {
		var wall, cpu [2]float64
		for k, c := range cs {
			cpu0, start, n := cputime.Process(), time.Now(), 0
			for range reps[k] {
				st, err := listRaw(b.Context(), c, benchNS, mt, 500, false)
				if err != nil {
					b.Fatal(err)
				}
				n += st.Pages
			}
			wall[k] = float64(time.Since(start).Nanoseconds()) / float64(n)
			cpu[k] = float64((cputime.Process() - cpu0).Nanoseconds()) / float64(n)
			perPage[k], cpuPerPage[k] = append(perPage[k], wall[k]), append(cpuPerPage[k], cpu[k])
			pages += n
		}
		flat = append(flat, wall[1]/wall[0])
		if cpu[0] > 0 { // the platform reports CPU time
			flatCPU = append(flatCPU, cpu[1]/cpu[0])
		}
	}
	for k, size := range []string{"10k", "100k"} {
		b.ReportMetric(median(perPage[k]), "ns/page-"+size)
		if len(flatCPU) > 0 {
			b.ReportMetric(median(cpuPerPage[k]), "cpu-ns/page-"+size)
		}
	}
	b.ReportMetric(median(flat), "×flat")
	if len(flatCPU) > 0 {
		b.ReportMetric(median(flatCPU), "×flat-cpu")
	}
	m.report(b, pages)
}

// withEncoding is c asking for Accept-Encoding enc on its raw requests.
func withEncoding(c *clients, enc string) *clients {
	cc := *c
	cc.acceptEncoding = enc
	return &cc
}

// benchListRaw times raw paged traversals of benchNS's pods after one
// warm-up traversal.
func benchListRaw(b *testing.B, c *clients, mt string) {
	if _, err := listRaw(b.Context(), c, benchNS, mt, 500, false); err != nil {
		b.Fatal(err)
	}
	m := startMeter()
	b.ResetTimer()
	var pages int
	var bytes int64
	for b.Loop() {
		st, err := listRaw(b.Context(), c, benchNS, mt, 500, false)
		if err != nil {
			b.Fatal(err)
		}
		pages += st.Pages
		bytes += st.Bytes
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pages), "ns/page")
	b.ReportMetric(float64(bytes)/float64(pages), "bytes/page")
	b.ReportMetric(float64(bytes)/1e6/b.Elapsed().Seconds(), "MB/s")
	m.report(b, pages)
}

// handlerClients is c with an HTTP client that calls f's handler in
// process: no sockets, no transport, the body written into a buffer that
// every request reuses (so the client side allocates nothing per page).
// It serves one request at a time, and a response's body is valid until
// the next request.
func handlerClients(f *Fake, c *clients) *clients {
	h := f.Server.Handler()
	w := &bufferWriter{}
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		w.reset()
		h.ServeHTTP(w, req)
		return w.response(req), nil
	})
	return &clients{http: &http.Client{Transport: rt}, cs: c.cs, host: c.host}
}

// bufferWriter is an http.ResponseWriter that keeps one response in a
// reused buffer.
type bufferWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

// reset readies w for the next response.
func (w *bufferWriter) reset() {
	w.header, w.code = http.Header{}, 0
	w.body.Reset()
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *bufferWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// response is what w holds as the client's response to req.
func (w *bufferWriter) response(req *http.Request) *http.Response {
	w.WriteHeader(http.StatusOK)
	return &http.Response{
		StatusCode:    w.code,
		Status:        http.StatusText(w.code),
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// BenchmarkListClientGo pages through 10 000 pods with the typed clientset
// (protobuf) and reports ns/page next to client-go's own decode of the same
// pages (decode-ns/page) and their quotient (×decode; target <= 1.3). With
// compression=off the client does not ask for gzip
// (rest.Config.DisableCompression and a transport that obeys it); with
// gzip-level=L it asks, as client-go's default transport does, and a fake
// with ResponseCompressionLevel L gzips each page (over 128 KiB): 0 is the
// fake's default (stored blocks), -2 Huffman only, 1 kube-apiserver's level.
// Each setting seeds its own fake. Under replay, client-go pages through
// recordings of the default fake's pages (replay.go): from memory (no
// server: client-go's own floor) and over loopback from a server that
// only writes the recorded bytes (the floor of any server behind a
// socket), each with and without gzip.
func BenchmarkListClientGo(b *testing.B) {
	b.Run("compression=off", func(b *testing.B) {
		f, _ := startSeeded(b, 10_000)
		t := f.Target
		t.Config = rest.CopyConfig(t.Config)
		// rest.Config.DisableCompression is not enough: with no TLS
		// settings (the fake serves plain HTTP) client-go uses
		// http.DefaultTransport, which asks for gzip.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableCompression = true
		t.Config.DisableCompression, t.Config.Transport = true, tr
		c, err := newClients(t)
		if err != nil {
			b.Fatal(err)
		}
		benchClientGo(b, c, c.cs)
	})
	for _, level := range []int{gzip.NoCompression, gzip.HuffmanOnly, fakeapiserver.KubeAPIServerCompressionLevel} {
		b.Run(fmt.Sprintf("gzip-level=%d", level), func(b *testing.B) {
			_, c := startSeededConfig(b, 10_000, fakeapiserver.Config{ResponseCompressionLevel: level})
			benchClientGo(b, c, c.cs)
		})
	}
	b.Run("replay", func(b *testing.B) {
		_, c := startSeeded(b, 10_000)
		set, err := newReplaySet(b.Context(), c, benchNS, 500)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			if err := set.Close(); err != nil {
				b.Errorf("close replay servers: %v", err)
			}
		})
		for _, r := range []struct {
			name string
			cs   kubernetes.Interface
		}{{"memory/gzip-level=0", set.memoryZipped}, {"memory/compression=off", set.memoryPlain},
			{"loopback/gzip-level=0", set.wireZipped}, {"loopback/compression=off", set.wirePlain}} {
			b.Run(r.name, func(b *testing.B) { benchClientGo(b, c, r.cs) })
		}
	})
}

// benchClientGo times cs's paged LIST of benchNS's pods against
// client-go's decode of the same pages (as c serves them). Every iteration
// runs one of each, each from a collected heap with the collector off
// (collected), so a change in the machine's load hits both alike and
// neither pays for the other's garbage; the quotients are
// given in wall time (×decode) and in process CPU time (×decode-cpu: the
// LIST's includes the in-process server's work, which a separate server
// process would add to the wall time instead). The meter's figures
// (cpu-ns, alloc-B, gc per page) cover both.
func benchClientGo(b *testing.B, c *clients, cs kubernetes.Interface) {
	raw, err := listRaw(b.Context(), c, benchNS, protobufType, 500, true)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := listWith(b.Context(), cs, benchNS, 500); err != nil { // warm-up
		b.Fatal(err)
	}
	m := startMeter()
	b.ResetTimer()
	pages := 0
	var list, dec, listCPU, decCPU time.Duration
	for b.Loop() {
		var st ListStats
		var cpu0, cpu1, cpu2 time.Duration
		var start, end, decStart time.Time
		err := collected(func() (err error) {
			cpu0, start = cputime.Process(), time.Now()
			st, err = listWith(b.Context(), cs, benchNS, 500)
			cpu1, end = cputime.Process(), time.Now()
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		err = collected(func() (err error) {
			cpu2, decStart = cputime.Process(), time.Now()
			_, err = decodeProtobuf(raw.Bodies)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		list, dec = list+end.Sub(start), dec+time.Since(decStart)
		listCPU, decCPU = listCPU+cpu1-cpu0, decCPU+cputime.Process()-cpu2
		pages += st.Pages
	}
	b.ReportMetric(float64(list.Nanoseconds())/float64(pages), "ns/page")
	b.ReportMetric(float64(dec.Nanoseconds())/float64(pages), "decode-ns/page")
	b.ReportMetric(float64(list)/float64(dec), "×decode")
	if decCPU > 0 {
		b.ReportMetric(float64(listCPU)/float64(decCPU), "×decode-cpu")
	}
	m.report(b, pages)
}

// BenchmarkCreatePods creates pods through the protobuf clientset from 8
// concurrent clients.
func BenchmarkCreatePods(b *testing.B) {
	_, c := startSeeded(b, 0)
	const batch = 256
	created := 0
	for b.Loop() {
		if _, err := createPods(b.Context(), c.cs, benchNS, created, batch, 8); err != nil {
			b.Fatal(err)
		}
		created += batch
	}
	b.ReportMetric(float64(created)/b.Elapsed().Seconds(), "creates/s")
}

// BenchmarkWatchFanout delivers 200 configmap creates to 100 JSON watches
// per round.
func BenchmarkWatchFanout(b *testing.B) {
	_, c := startSeeded(b, 0)
	round := 0
	var events float64
	for b.Loop() {
		ns := fmt.Sprintf("fanout-%d", round)
		round++
		if err := createNamespace(b.Context(), c.cs, ns); err != nil {
			b.Fatal(err)
		}
		st, err := fanout(b.Context(), c, ns, 0, 100, 200, 8)
		if err != nil {
			b.Fatal(err)
		}
		events += float64(st.Watchers * st.Writes)
	}
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkMemory reports the heap per stored pod version, before and
// after every version was listed in JSON and in protobuf (which caches
// both encodings with the version), and per open watch. The fake and its
// clients share the process, so the watch figure includes the client's
// side of the connection. One iteration is enough: b.N only repeats it.
func BenchmarkMemory(b *testing.B) {
	const pods, watches = 10_000, 1_000
	for b.Loop() {
		base := heap()
		_, c := startSeeded(b, pods)
		stored := heap()
		for _, mt := range []string{jsonType, protobufType} {
			if _, err := listRaw(b.Context(), c, benchNS, mt, 500, false); err != nil {
				b.Fatal(err)
			}
		}
		listed := heap()
		perWatch, err := watchMemory(b.Context(), c, watches)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(stored-base)/pods, "B/version")
		b.ReportMetric(float64(listed-base)/pods, "B/version-encoded")
		b.ReportMetric(perWatch, "B/watch")
	}
}

// watchMemory opens n watches on benchNS's configmaps and returns the heap
// growth per watch.
func watchMemory(ctx context.Context, c *clients, n int) (float64, error) {
	rv, err := configMapsRV(ctx, c, benchNS)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if tr, ok := c.http.Transport.(*http.Transport); ok {
		tr.MaxIdleConnsPerHost = n
	}
	before := heap()
	var resps []*http.Response
	defer func() {
		for _, r := range resps {
			r.Body.Close()
		}
	}()
	for range n {
		r, err := openWatch(ctx, c, "/api/v1/namespaces/"+benchNS+"/configmaps", rv)
		if err != nil {
			return 0, err
		}
		resps = append(resps, r)
	}
	time.Sleep(100 * time.Millisecond) // measurement only: let the server's handlers settle into their wait
	return float64(heap()-before) / float64(n), nil
}

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkPageGzip compresses and decompresses 500-pod protobuf pages (the
// bodies of a paged LIST of 10 000 pods) at the gzip levels a fake can
// serve (fakeapiserver.Config.ResponseCompressionLevel): the server's
// compress-cpu-ns/page (a recycled writer, as the server pools them) and
// the client's gunzip-cpu-ns/page (a new gzip.Reader, then io.ReadAll, as
// Go's transport and client-go read a body), in process CPU time, which a
// loaded machine disturbs less than wall time; and the compressed size as
// ratio (compressed ÷ plain bytes). identity is the floor: io.ReadAll of
// the plain body (read-cpu-ns/page).
func BenchmarkPageGzip(b *testing.B) {
	_, c := startSeeded(b, 10_000)
	plain := *c
	plain.acceptEncoding = "identity"
	raw, err := listRaw(b.Context(), &plain, benchNS, protobufType, 500, true)
	if err != nil {
		b.Fatal(err)
	}
	for _, level := range []int{gzip.NoCompression, gzip.HuffmanOnly, gzip.BestSpeed} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			var zipped bytes.Buffer
			zw, err := gzip.NewWriterLevel(&zipped, level)
			if err != nil {
				b.Fatal(err)
			}
			var comp, decomp time.Duration
			var in, out int64
			pages := 0
			for b.Loop() {
				for _, body := range raw.Bodies {
					zipped.Reset()
					zw.Reset(&zipped)
					t0 := cputime.Process()
					if _, err := zw.Write(body); err != nil {
						b.Fatal(err)
					}
					if err := zw.Close(); err != nil {
						b.Fatal(err)
					}
					t1 := cputime.Process()
					zr, err := gzip.NewReader(bytes.NewReader(zipped.Bytes()))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadAll(zr); err != nil {
						b.Fatal(err)
					}
					comp, decomp = comp+t1-t0, decomp+cputime.Process()-t1
					in, out = in+int64(len(body)), out+int64(zipped.Len())
					pages++
				}
			}
			b.ReportMetric(float64(comp.Nanoseconds())/float64(pages), "compress-cpu-ns/page")
			b.ReportMetric(float64(decomp.Nanoseconds())/float64(pages), "gunzip-cpu-ns/page")
			b.ReportMetric(float64(out)/float64(in), "ratio")
		})
	}
	b.Run("identity", func(b *testing.B) { // the floor: io.ReadAll of the plain body
		var read time.Duration
		pages := 0
		for b.Loop() {
			for _, body := range raw.Bodies {
				t0 := cputime.Process()
				if _, err := io.ReadAll(bytes.NewReader(body)); err != nil {
					b.Fatal(err)
				}
				read += cputime.Process() - t0
				pages++
			}
		}
		b.ReportMetric(float64(read.Nanoseconds())/float64(pages), "read-cpu-ns/page")
	})
}

// BenchmarkWatchFanoutProtocol is BenchmarkWatchFanout over TLS, at 100
// and 1 000 watches, with the clients negotiating HTTP/2 (client-go's
// default over TLS: the watches share connections, 100 streams each) or
// offering only HTTP/1.1 by ALPN (a connection per watch). B/watch is the
// live heap the open watches add, server and client sides together (they
// share the process).
func BenchmarkWatchFanoutProtocol(b *testing.B) {
	for _, proto := range []string{"h2", "http1"} {
		for _, watchers := range []int{100, 1_000} {
			b.Run(fmt.Sprintf("proto=%s/watchers=%d", proto, watchers), func(b *testing.B) {
				f, err := StartFakeConfig(fakeapiserver.Config{TLS: &fakeapiserver.ServingTLS{}})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() {
					if err := f.Close(); err != nil {
						b.Errorf("close fake: %v", err)
					}
				})
				t := f.Target
				if proto == "http1" {
					t.Config.NextProtos = []string{"http/1.1"}
				}
				c, err := newClients(t)
				if err != nil {
					b.Fatal(err)
				}
				round := 0
				var events float64
				for b.Loop() {
					ns := fmt.Sprintf("fanout-%d", round)
					round++
					if err := createNamespace(b.Context(), c.cs, ns); err != nil {
						b.Fatal(err)
					}
					var opened func()
					if round == 1 {
						before := heap()
						opened = func() { b.ReportMetric(float64(heap()-before)/float64(watchers), "B/watch") }
					}
					st, err := fanoutOpened(b.Context(), c, ns, 0, watchers, 200, 8, opened)
					if err != nil {
						b.Fatal(err)
					}
					events += float64(st.Watchers * st.Writes)
				}
				b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
