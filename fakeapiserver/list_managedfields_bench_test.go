package fakeapiserver

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// apiSeededPods is the store size of BenchmarkListPagedAPISeeded.
const apiSeededPods = 10_000

// BenchmarkListPagedAPISeeded walks 10 000 pods created through the
// clientset (so, as on a real cluster, they carry the managedFields their
// creator recorded) in pages of 500, over JSON and over protobuf, and
// reports bytes and milliseconds per page. Compare bytes/page with what
// kube-apiserver sends for the same pods (lw-sim bench --against): list
// timings are only honest when the bodies are as large. The
// managedFields=no runs are the same pods seeded past the HTTP handler,
// so without managedFields: the bodies lw-sim sent before it had
// server-side apply, measured in the same run.
func BenchmarkListPagedAPISeeded(b *testing.B) {
	withMF := Start(b)
	seedPodsViaAPI(b, withMF.Clientset(), apiSeededPods)
	withoutMF := Start(b)
	seedPodsWithoutManagedFields(b, withoutMF, apiSeededPods)
	for _, srv := range []struct {
		name string
		srv  *Server
	}{{"managedFields=yes", withMF}, {"managedFields=no", withoutMF}} {
		for _, ct := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
			b.Run(srv.name+"/accept="+ct, func(b *testing.B) {
				benchListPagedBytes(b, srv.srv, ct)
			})
		}
	}
}

// benchListPagedBytes pages through srv's pods in media type ct and reports
// bytes and milliseconds per page.
func benchListPagedBytes(b *testing.B, srv *Server, ct string) {
	counter := &countingTransport{}
	cfg := srv.RESTConfig()
	cfg.ContentType = ct
	cfg.AcceptContentTypes = ct
	cfg.WrapTransport = counter.wrap
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	pages := 0
	for b.Loop() {
		pages += listAllPods(b, cs, apiSeededPods)
	}
	b.ReportMetric(float64(counter.bytes.Load())/float64(pages), "bytes/page")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(pages), "ms/page")
}

// seedPodsWithoutManagedFields creates n pods (benchPod, defaulted as a
// POST's body is) in 10 namespaces through the server's create path after
// the HTTP handler, which records no managedFields.
func seedPodsWithoutManagedFields(b *testing.B, srv *Server, n int) {
	b.Helper()
	podRes, ok := srv.resources.lookup(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	if !ok {
		b.Fatal("pods are not served")
	}
	const namespaces = 10
	for i := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)}}
		if _, err := srv.Clientset().CoreV1().Namespaces().Create(b.Context(), ns, metav1.CreateOptions{}); err != nil {
			b.Fatalf("seed namespace: %v", err)
		}
	}
	for i := range n {
		ns := fmt.Sprintf("bench-%d", i%namespaces)
		pod := benchPod(ns, i)
		podRes.applyDefaults(pod)
		if _, err := srv.createObject(podRes, ns, pod); err != nil {
			b.Fatalf("seed pod %d: %v", i, err)
		}
	}
}

// listAllPods pages through every pod and returns the number of pages.
func listAllPods(b *testing.B, cs kubernetes.Interface, want int) int {
	opts := metav1.ListOptions{Limit: benchPageSize}
	seen, pages := 0, 0
	for {
		l, err := cs.CoreV1().Pods("").List(b.Context(), opts)
		if err != nil {
			b.Fatalf("LIST pods %+v = %v", opts, err)
		}
		pages++
		seen += len(l.Items)
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
	}
	if seen != want {
		b.Fatalf("paged LIST saw %d pods, want %d", seen, want)
	}
	return pages
}

// seedPodsViaAPI creates n pods (benchPod) in 10 namespaces with POSTs
// from 8 concurrent workers.
func seedPodsViaAPI(b *testing.B, cs kubernetes.Interface, n int) {
	b.Helper()
	const namespaces, workers = 10, 8
	for i := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)}}
		if _, err := cs.CoreV1().Namespaces().Create(b.Context(), ns, metav1.CreateOptions{}); err != nil {
			b.Fatalf("seed namespace: %v", err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				ns := fmt.Sprintf("bench-%d", i%namespaces)
				if _, err := cs.CoreV1().Pods(ns).Create(b.Context(), benchPod(ns, i), metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("seed pod %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// countingTransport counts the response body bytes it delivers.
type countingTransport struct {
	bytes atomic.Int64
}

func (c *countingTransport) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err == nil {
			resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.bytes}
		}
		return resp, err
	})
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// countingBody adds every byte read to n.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}
