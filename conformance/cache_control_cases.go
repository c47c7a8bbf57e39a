package conformance

import (
	"context"
	"net/http"
	"testing"
)

// cacheControlCases are the cases of this file, in the order [Cases] runs them.
func cacheControlCases() []Case {
	return []Case{
		{Name: "CacheControlEverywhere", Run: runCacheControlEverywhere},
	}
}

// runCacheControlEverywhere: kube-apiserver's WithCacheControl filter,
// outside authentication and every handler, gives every answer that sets
// none itself Cache-Control: no-cache, private — the version and health
// endpoints, discovery, a LIST, a 404 for an object or an unknown path,
// a 405 and an anonymous read alike.
func runCacheControlEverywhere(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	for _, tc := range []struct {
		method, path string
		code         int
	}{
		{http.MethodGet, "/version", http.StatusOK},
		{http.MethodGet, "/healthz", http.StatusOK},
		{http.MethodGet, "/livez", http.StatusOK},
		{http.MethodGet, "/readyz", http.StatusOK},
		{http.MethodGet, "/healthz/ping", http.StatusOK},
		{http.MethodGet, "/api", http.StatusOK},
		{http.MethodGet, "/apis", http.StatusOK},
		{http.MethodGet, "/api/v1", http.StatusOK},
		{http.MethodGet, "/api/v1/namespaces/default/configmaps", http.StatusOK},
		{http.MethodGet, "/api/v1/namespaces/default/configmaps/cache-control-absent", http.StatusNotFound},
		{http.MethodGet, "/no/such/path", http.StatusNotFound},
		{http.MethodPut, "/version", http.StatusMethodNotAllowed},
	} {
		r := c.do(ctx, t, request{Method: tc.method, Path: tc.path})
		if r.Code != tc.code {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, r.Code, tc.code)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "no-cache, private" {
			t.Errorf("%s %s: Cache-Control %q, want no-cache, private", tc.method, tc.path, cc)
		}
	}
	r := anonymousClient(t, target).do(ctx, t, request{Path: "/version"})
	if cc := r.Header.Get("Cache-Control"); r.Code != http.StatusOK || cc != "no-cache, private" {
		t.Errorf("anonymous GET /version = %d, Cache-Control %q; want 200, no-cache, private", r.Code, cc)
	}
}
