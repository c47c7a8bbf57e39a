package conformance

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// listGzipCases are the cases of this file, in the order [Cases] runs them.
func listGzipCases() []Case {
	return []Case{
		{Name: "ListGzip", Run: runListGzip},
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
