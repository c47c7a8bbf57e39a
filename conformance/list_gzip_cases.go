package conformance

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// listGzipCases are the cases of this file, in the order [Cases] runs them.
func listGzipCases() []Case {
	return []Case{
		{Name: "ListGzip", Run: runListGzip},
		{Name: "WatchListGzip", Run: runWatchListGzip},
	}
}

// bigConfigMap is a ConfigMap whose JSON is about 60 KB: three of them
// list to more than the 128 KiB above which responses are gzipped.
func bigConfigMap(name string) object {
	return object{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": object{"name": name},
		"data": object{"blob": strings.Repeat("lw-sim ", 60_000/7)},
	}
}

// runListGzip: a LIST answer over 128 KiB is gzipped (kube-apiserver
// deflates at level 1, the fake stores by default: DIVERGENCES.md) for a
// client whose Accept-Encoding has the token "gzip", with Content-Encoding:
// gzip and Vary: Accept-Encoding, and decompresses to the same list as the
// plain answer; a smaller page, a client that does not ask, and a "gzip"
// with parameters ("gzip;q=1", which the server's exact token match does
// not take) get the plain body (apiserver responsewriters SerializeObject).
func runListGzip(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	for _, name := range []string{"a", "b", "c"} {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: bigConfigMap(name)})
		r.mustCode(t, http.StatusCreated, "create configmap "+name)
	}
	plain := e.c.doWithHeader(ctx, t, request{Path: e.cms()}, "Accept-Encoding", "identity")
	plain.mustCode(t, http.StatusOK, "list, identity")
	checkEncoding(t, "list, identity", plain, "")
	var want list
	plain.decode(t, &want)

	zipped := e.c.doWithHeader(ctx, t, request{Path: e.cms()}, "Accept-Encoding", "deflate, gzip")
	zipped.mustCode(t, http.StatusOK, "list, gzip")
	checkEncoding(t, "list, gzip", zipped, "gzip")
	if !slices.Contains(zipped.Header.Values("Vary"), "Accept-Encoding") {
		t.Errorf("list, gzip: Vary = %q, want Accept-Encoding among them", zipped.Header.Values("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped.Body))
	if err != nil {
		t.Fatalf("list, gzip: %v", err)
	}
	if zipped.Body, err = io.ReadAll(zr); err != nil {
		t.Fatalf("list, gzip: gunzip: %v", err)
	}
	var got list
	zipped.decode(t, &got)
	if !slices.Equal(got.names(), want.names()) || got.rv(t) < want.rv(t) {
		t.Errorf("gunzipped list = %v at rv %d, want %v at rv >= %d", got.names(), got.rv(t), want.names(), want.rv(t))
	}

	page := e.c.doWithHeader(ctx, t, request{Path: e.cms() + "?limit=1"}, "Accept-Encoding", "gzip")
	page.mustCode(t, http.StatusOK, "list limit=1, gzip")
	checkEncoding(t, "list limit=1 (under 128 KiB), gzip", page, "")
	param := e.c.doWithHeader(ctx, t, request{Path: e.cms()}, "Accept-Encoding", "gzip;q=1")
	param.mustCode(t, http.StatusOK, "list, gzip;q=1")
	checkEncoding(t, "list, gzip;q=1", param, "")
}

// checkEncoding checks a response's Content-Encoding.
func checkEncoding(t *testing.T, what string, r response, want string) {
	t.Helper()
	if got := r.Header.Get("Content-Encoding"); got != want {
		t.Errorf("%s: Content-Encoding = %q, want %q", what, got, want)
	}
}

// runWatchListGzip: a watch-list (sendInitialEvents=true with bookmarks)
// asked with Accept-Encoding gzip is gzipped whatever its size
// (WatchListCompression, beta and on in v1.37: handlers/watch.go), with
// Content-Encoding: gzip and Vary: Accept-Encoding, a gzip member per
// flush, so the initial events, their end bookmark and a later write's
// event each reach the client while the stream stays open; a plain watch
// (no bookmarks) asked the same way is not compressed.
func runWatchListGzip(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the streams
	open := func(query url.Values) *http.Response {
		t.Helper()
		query.Set("watch", "true")
		req, err := e.c.newHTTPRequest(ctx, request{Path: e.cms(), Query: query})
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", "gzip") // set: the transport leaves the body compressed
		resp, err := e.c.http.Do(req)
		if err != nil {
			t.Fatalf("watch %s: %v", query.Encode(), err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("watch %s: HTTP %d", query.Encode(), resp.StatusCode)
		}
		return resp
	}
	resp := open(q("sendInitialEvents", "true", "allowWatchBookmarks", "true", "resourceVersionMatch", "NotOlderThan"))
	checkEncoding(t, "watch-list, gzip", response{Header: resp.Header}, "gzip")
	if !slices.Contains(resp.Header.Values("Vary"), "Accept-Encoding") {
		t.Errorf("watch-list, gzip: Vary = %q, want Accept-Encoding among them", resp.Header.Values("Vary"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("watch-list, gzip: %v", err)
	}
	frames := kubewire.NewFrameReader(zr)
	var got []string
	next := func() {
		t.Helper()
		ev, err := nextEvent(frames)
		if err != nil {
			t.Fatalf("watch-list, gzip: after %v: %v", got, err)
		}
		got = append(got, ev.Type+" "+nameOf(ev.Object))
	}
	for range 3 {
		next()
	}
	e.create(ctx, "c", nil)
	next()
	if diff := cmp.Diff([]string{"ADDED a", "ADDED b", "BOOKMARK ", "ADDED c"}, got); diff != "" {
		t.Errorf("watch-list, gzip: events (-want +got):\n%s", diff)
	}
	plain := open(q("allowWatchBookmarks", "false"))
	checkEncoding(t, "plain watch, gzip", response{Header: plain.Header}, "")
}
