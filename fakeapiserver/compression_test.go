package fakeapiserver

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestListGzip checks that a LIST answer over 128 KiB is gzipped for a
// client that asks, in JSON and protobuf, and decompresses to exactly the
// bytes of the plain answer; that a page under the threshold, and a client
// that asks for identity or for "gzip;q=1", get the plain body; and that
// client-go, whose transport asks for gzip, lists the same items.
func TestListGzip(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	const n = 40 // about 4 KB each as JSON: 160 KB in all
	all := createBlobs(t, srv, n)
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		plain := getRaw(t, srv, "GET", all, map[string]string{"Accept": accept, "Accept-Encoding": "identity"})
		if plain.code != 200 || plain.header.Get("Content-Encoding") != "" || len(plain.body) <= gzipThreshold {
			t.Fatalf("%s identity: code %d, Content-Encoding %q, %d bytes; want 200, none, over %d", accept, plain.code, plain.header.Get("Content-Encoding"), len(plain.body), gzipThreshold)
		}
		zipped := getRaw(t, srv, "GET", all, map[string]string{"Accept": accept, "Accept-Encoding": "br, gzip"})
		if got := zipped.header.Get("Content-Encoding"); got != "gzip" || zipped.header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s gzip: Content-Encoding %q, Vary %q; want gzip, Accept-Encoding", accept, got, zipped.header.Get("Vary"))
		}
		if diff := cmp.Diff(plain.body, gunzip(t, zipped.body)); diff != "" {
			t.Errorf("%s: gunzipped body differs from the plain one (-plain +gunzipped):\n%s", accept, diff)
		}
		for _, tc := range []struct{ path, encoding string }{
			{all + "&limit=5", "gzip"}, // 20 KB: under the threshold
			{all, "gzip;q=1"},          // not the exact token
		} {
			r := getRaw(t, srv, "GET", tc.path, map[string]string{"Accept": accept, "Accept-Encoding": tc.encoding})
			if got := r.header.Get("Content-Encoding"); r.code != 200 || got != "" {
				t.Errorf("%s %s with Accept-Encoding %q: code %d, Content-Encoding %q; want 200, none", accept, tc.path, tc.encoding, r.code, got)
			}
		}
	}
	l, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
	if err != nil || len(l.Items) != n {
		t.Fatalf("client-go LIST = %d items, %v; want %d", len(l.Items), err, n)
	}
}

// TestResponseCompressionLevel checks that every accepted
// Config.ResponseCompressionLevel sends the same valid gzip framing
// (Content-Encoding, Vary, a stream that decompresses to the plain body
// and is compress/gzip's for it at that level, in JSON and protobuf),
// that the default stores (the stream is no smaller than the body) while
// kube-apiserver's level deflates (this list of repeated blobs shrinks
// tenfold or more), and that New refuses a level compress/gzip has not.
func TestResponseCompressionLevel(t *testing.T) {
	for _, tc := range []struct {
		level int
		// smaller is the largest compressed size, as a fraction of the
		// plain body, and larger the smallest.
		smaller, larger float64
	}{
		{level: gzip.NoCompression, smaller: 1.01, larger: 1},
		{level: gzip.HuffmanOnly, smaller: 0.9, larger: 0},
		{level: KubeAPIServerCompressionLevel, smaller: 0.1, larger: 0},
		{level: gzip.BestCompression, smaller: 0.1, larger: 0},
	} {
		t.Run(fmt.Sprintf("level=%d", tc.level), func(t *testing.T) {
			srv := Start(t, WithConfig(func(cfg *Config) { cfg.ResponseCompressionLevel = tc.level }))
			all := createBlobs(t, srv, 40)
			for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
				plain := getRaw(t, srv, "GET", all, map[string]string{"Accept": accept, "Accept-Encoding": "identity"})
				zipped := getRaw(t, srv, "GET", all, map[string]string{"Accept": accept, "Accept-Encoding": "gzip"})
				if got := zipped.header.Get("Content-Encoding"); got != "gzip" || zipped.header.Get("Vary") != "Accept-Encoding" {
					t.Errorf("%s: Content-Encoding %q, Vary %q; want gzip, Accept-Encoding", accept, got, zipped.header.Get("Vary"))
				}
				if diff := cmp.Diff(plain.body, gunzip(t, zipped.body)); diff != "" {
					t.Errorf("%s: gunzipped body differs from the plain one (-plain +gunzipped):\n%s", accept, diff)
				}
				// The stream is compress/gzip's for the body at the level,
				// byte for byte, though the server gzips a page from its
				// pieces (and at level 0 frames the blocks itself).
				if want := gzipAt(t, tc.level, plain.body); !bytes.Equal(zipped.body, want) {
					t.Errorf("%s: gzip stream (%d bytes) is not compress/gzip's at level %d (%d bytes)", accept, len(zipped.body), tc.level, len(want))
				}
				ratio := float64(len(zipped.body)) / float64(len(plain.body))
				if ratio > tc.smaller || ratio < tc.larger {
					t.Errorf("%s: gzip stream is %d bytes for a %d-byte body (%.3f); want %.2f to %.2f of it", accept, len(zipped.body), len(plain.body), ratio, tc.larger, tc.smaller)
				}
			}
		})
	}
	for _, level := range []int{gzip.HuffmanOnly - 1, gzip.BestCompression + 1} {
		srv, err := New(Config{ResponseCompressionLevel: level})
		if err == nil {
			t.Errorf("New with ResponseCompressionLevel %d: no error", level)
			if err := srv.Close(); err != nil {
				t.Error(err)
			}
		}
	}
}

// createBlobs creates n configmaps of about 4 KB each (as JSON) in
// default and returns the path that lists them all at the current RV.
func createBlobs(t *testing.T, srv *Server, n int) string {
	t.Helper()
	cs := srv.Clientset()
	for i := range n {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)},
			Data:       map[string]string{"blob": strings.Repeat("x", 4000)},
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("/api/v1/namespaces/default/configmaps?resourceVersion=%d&resourceVersionMatch=Exact", srv.store.CurrentRV())
}

// gzipAt is compress/gzip's stream of body at level.
func gzipAt(t *testing.T, level int, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gunzip decompresses a gzip stream, failing the test on a bad one (the
// reader checks the CRC and length).
func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}
