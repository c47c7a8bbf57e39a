package fakeapiserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// TestRequestParsedOnce: every request is parsed once, at the front of
// the filter chain (kubewire.WithRequestInfo), whichever filters and
// handlers read it after: the request-deadline filter (?timeout=),
// authorization under RBAC, impersonation, routing, the fault hooks of a
// request and of a watch stream, and the error paths. The count comes
// from a counter the test puts in each request's context, which
// kubewire.NewRequestInfo adds to on every parse.
func TestRequestParsedOnce(t *testing.T) {
	t.Parallel()
	srv, err := New(Config{Token: "t0ken", Authorization: AuthorizationRBAC})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	parses := make(chan int64, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n atomic.Int64
		srv.Handler().ServeHTTP(w, r.WithContext(kubewire.WithParseCount(r.Context(), &n)))
		parses <- n.Load()
	}))
	t.Cleanup(hs.Close)
	const cms = "/api/v1/namespaces/default/configmaps"
	admin := map[string]string{"Authorization": "Bearer t0ken"}
	alice := map[string]string{"Authorization": "Bearer t0ken", "Impersonate-User": "alice"}
	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		watch                    bool
	}{
		{name: "create", method: http.MethodPost, path: cms, body: `{"metadata":{"name":"a"}}`, header: admin},
		{name: "list with a timeout", method: http.MethodGet, path: cms + "?timeout=30s&fieldSelector=metadata.name%3Da", header: admin},
		{name: "bad timeout", method: http.MethodGet, path: cms + "?timeout=soon", header: admin},
		{name: "get", method: http.MethodGet, path: cms + "/a", header: admin},
		{name: "patch", method: http.MethodPatch, path: cms + "/a", body: `{"data":{"k":"v"}}`, header: map[string]string{"Authorization": "Bearer t0ken", "Content-Type": "application/merge-patch+json"}},
		{name: "impersonated, forbidden", method: http.MethodGet, path: cms, header: alice},
		{name: "anonymous, forbidden", method: http.MethodGet, path: cms},
		{name: "watch", method: http.MethodGet, path: cms + "?watch=1", header: admin, watch: true},
		{name: "watch path verb", method: http.MethodGet, path: "/api/v1/watch/namespaces/default/configmaps", header: admin, watch: true},
		{name: "unreadable path", method: http.MethodGet, path: "/api/v1/watch?timeout=1s", header: admin},
		{name: "unknown resource", method: http.MethodGet, path: "/api/v1/namespaces/default/foos", header: admin},
		{name: "discovery", method: http.MethodGet, path: "/apis/apps/v1", header: admin},
		{name: "version", method: http.MethodGet, path: "/version?timeout=1s", header: admin},
		{name: "delete", method: http.MethodDelete, path: cms + "/a", header: admin},
	}
	for _, tt := range tests {
		code := doCounted(t, hs.URL, tt.method, tt.path, tt.body, tt.header, tt.watch)
		if n := <-parses; n != 1 {
			t.Errorf("%s: %s %s (%d) parsed %d times, want once", tt.name, tt.method, tt.path, code, n)
		}
	}
}

// doCounted sends one request and reads its answer; a watch is ended by
// the client once its headers are in.
func doCounted(t *testing.T, base, method, path, body string, header map[string]string, watch bool) int {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatalf("NewRequest(%s %s) = %v", method, path, err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("%s %s = %v", method, path, err)
	}
	defer resp.Body.Close()
	if watch {
		cancel() // ends the stream: the handler returns
		return resp.StatusCode
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("%s %s: read body = %v", method, path, err)
	}
	return resp.StatusCode
}
