package faultproxy

import (
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// TestProxyWatchListFromGzipUpstream: kube-apiserver gzips a watch-list
// stream for a client that accepts gzip (WatchListCompression: a gzip
// member per flush, Content-Encoding: gzip), and client-go accepts it.
// The proxy must still relay its events; it once forwarded the client's
// Accept-Encoding, got the gzip bytes undecoded and ended the stream
// empty (found against a real kube-apiserver: the conformance case
// WatchStreamGuaranteesThroughProxy).
func TestProxyWatchListFromGzipUpstream(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			http.NotFound(w, r)
			return
		}
		frames := []string{
			`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"5"}}}`,
			`{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"5","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
		}
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			for _, f := range frames {
				fmt.Fprintln(w, f)
			}
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		for _, f := range frames { // a gzip member per flush, as the real server writes
			gw := gzip.NewWriter(w)
			fmt.Fprintln(gw, f)
			if err := gw.Close(); err != nil {
				t.Error(err)
			}
			w.(http.Flusher).Flush()
		}
	}))
	defer upstream.Close()
	p, err := New(Config{Upstream: &rest.Config{Host: upstream.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	front := httptest.NewServer(p.Handler())
	defer front.Close()

	types := watchListTypes(t, &rest.Config{Host: front.URL, QPS: -1})
	if diff := cmp.Diff([]watch.EventType{watch.Added, watch.Bookmark}, types); diff != "" {
		t.Errorf("watch-list through the proxy from a gzipping upstream (-want +got):\n%s", diff)
	}
}
