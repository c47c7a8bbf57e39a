package fakeapiserver

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/faults"
)

// watchListPath is a watch-list of the default namespace's ConfigMaps.
const watchListPath = "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"

// openRawWatch starts a watch with the given Accept-Encoding on a
// transport the test owns (which does not decompress: the header is set),
// and returns the response; its body is closed when the test ends.
func openRawWatch(t *testing.T, srv *Server, path, acceptEncoding string) *http.Response {
	t.Helper()
	tr := &http.Transport{}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(func() { cancel(); tr.CloseIdleConnections() })
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", acceptEncoding)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	return resp
}

// frameTypes reads n watch events from d and returns their types and the
// names of their objects.
func frameTypes(t *testing.T, d *json.Decoder, n int) []string {
	t.Helper()
	var out []string
	for range n {
		var ev struct {
			Type   string
			Object struct{ Metadata metav1.ObjectMeta }
		}
		if err := d.Decode(&ev); err != nil {
			t.Fatalf("after %v: decode: %v", out, err)
		}
		out = append(out, ev.Type+" "+ev.Object.Metadata.Name)
	}
	return out
}

// TestWatchListGzipped: a watch-list asked with Accept-Encoding gzip comes
// back gzipped (Content-Encoding gzip, Vary Accept-Encoding), each flush a
// member the client decodes at once: the initial events and their end
// bookmark, then a later write's event, all while the stream stays open.
// A plain watch (which the WatchList defaulting gives initial events but
// no bookmarks), and a watch-list that does not accept gzip, are not
// compressed; client-go (which accepts gzip) lists and watches through
// the compressed stream.
func TestWatchListGzipped(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	for _, name := range []string{"a", "b"} {
		if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	resp := openRawWatch(t, srv, watchListPath, "deflate, gzip")
	if got, vary := resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"); got != "gzip" || vary != "Accept-Encoding" {
		t.Fatalf("watch-list with gzip: Content-Encoding %q, Vary %q; want gzip, Accept-Encoding", got, vary)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	d := json.NewDecoder(zr)
	if diff := cmp.Diff([]string{"ADDED a", "ADDED b", "BOOKMARK "}, frameTypes(t, d, 3)); diff != "" {
		t.Errorf("initial events (-want +got):\n%s", diff)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ADDED c"}, frameTypes(t, d, 1)); diff != "" {
		t.Errorf("event after the initial ones (-want +got):\n%s", diff)
	}

	yes := true
	w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{
		SendInitialEvents: &yes, AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	})
	if err != nil {
		t.Fatalf("client-go watch-list: %v", err)
	}
	var got []string
	for ev := range w.ResultChan() {
		got = append(got, string(ev.Type)+" "+ev.Object.(*corev1.ConfigMap).Name)
		if len(got) == 4 {
			break
		}
	}
	w.Stop()
	if diff := cmp.Diff([]string{"ADDED a", "ADDED b", "ADDED c", "BOOKMARK "}, got); diff != "" {
		t.Errorf("client-go watch-list over gzip (-want +got):\n%s", diff)
	}

	for _, tc := range []struct{ what, path, encoding string }{
		{"plain watch", "/api/v1/namespaces/default/configmaps?watch=true", "gzip"},
		{"watch with initial events, no bookmarks", "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "gzip"},
		{"watch-list without gzip", watchListPath, "identity"},
	} {
		r := openRawWatch(t, srv, tc.path, tc.encoding)
		if got := r.Header.Get("Content-Encoding"); got != "" {
			t.Errorf("%s: Content-Encoding %q, want none", tc.what, got)
		}
	}
}

// TestWatchListGzippedCut: a fault that cuts a gzipped watch-list
// mid-frame (the event after the initial ones) gives the client the events
// before it, decodable, and then a broken stream, not a clean end or
// garbage.
func TestWatchListGzippedCut(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	for _, name := range []string{"a", "b"} {
		if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	srv.InjectFault(t, faults.Fault{Kind: faults.CutWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 3}})
	resp := openRawWatch(t, srv, watchListPath, "gzip")
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	d := json.NewDecoder(zr)
	if diff := cmp.Diff([]string{"ADDED a", "ADDED b", "BOOKMARK "}, frameTypes(t, d, 3)); diff != "" {
		t.Errorf("events before the cut (-want +got):\n%s", diff)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	err = d.Decode(&ev)
	// The half frame must arrive as the stream's bytes do (a gzip member),
	// then the connection breaks: not a corrupt gzip stream.
	if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("after the cut: decode = %v, %v; want half a frame, then unexpected EOF or a reset", ev, err)
	}
}
