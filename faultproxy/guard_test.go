package faultproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

// headerRecorder is an upstream that records the headers it receives.
type headerRecorder struct {
	// mu guards the field below.
	mu      sync.Mutex
	seen    []http.Header
	queries []string // the raw query of each request, in order
}

func (u *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.seen = append(u.seen, r.Header.Clone())
	u.queries = append(u.queries, r.URL.RawQuery)
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
}

func (u *headerRecorder) last(t *testing.T) http.Header {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.seen) == 0 {
		t.Fatal("upstream saw no request")
	}
	return u.seen[len(u.seen)-1]
}

func (u *headerRecorder) lastQuery(t *testing.T) string {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.queries) == 0 {
		t.Fatal("upstream saw no request")
	}
	return u.queries[len(u.queries)-1]
}

func (u *headerRecorder) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.seen)
}

// startGuardedProxy serves a proxy with cfg in front of a recording
// upstream that wants the bearer token "upstream-token".
func startGuardedProxy(t *testing.T, cfg Config) (*httptest.Server, *headerRecorder) {
	t.Helper()
	up := &headerRecorder{}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	cfg.Upstream = &rest.Config{Host: upSrv.URL, BearerToken: "upstream-token"}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.Handler())
	t.Cleanup(func() {
		p.Close()
		srv.Close()
	})
	return srv, up
}

// send makes a GET through the proxy with the given headers and host.
func send(t *testing.T, srv *httptest.Server, host string, hdr map[string]string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/api/v1/namespaces/default/configmaps/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Add(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestProxyDropsCallerCredentials: impersonation headers, cookies, the
// caller's Authorization, request-header authentication identities and
// client addresses (issue 21) never reach the upstream; the upstream sees
// the proxy's own token and the caller's other headers.
func TestProxyDropsCallerCredentials(t *testing.T) {
	t.Parallel()
	srv, up := startGuardedProxy(t, Config{})
	code := send(t, srv, "", map[string]string{
		"Impersonate-User":         "admin",
		"Impersonate-Group":        "system:masters",
		"Impersonate-Uid":          "0",
		"Impersonate-Extra-Scopes": "all",
		"impersonate-user":         "lower-case-admin",
		"Cookie":                   "session=stolen",
		"Authorization":            "Bearer caller-token",
		"Proxy-Authorization":      "Basic Zm9vOmJhcg==",
		"X-Remote-User":            "admin",
		"x-remote-group":           "system:masters",
		"X-Remote-Extra-Scopes":    "all",
		"X-Forwarded-For":          "10.0.0.1",
		"X-Forwarded-Host":         "internal.example",
		"X-Real-Ip":                "10.0.0.1",
		"Forwarded":                "for=10.0.0.1",
		"X-Request-Id":             "kept",
	})
	if code != http.StatusOK {
		t.Fatalf("GET through the proxy = %d, want 200", code)
	}
	got := up.last(t)
	for k := range got {
		switch http.CanonicalHeaderKey(k) {
		case "Impersonate-User", "Impersonate-Group", "Impersonate-Uid", "Impersonate-Extra-Scopes", "Cookie", "Proxy-Authorization",
			"X-Remote-User", "X-Remote-Group", "X-Remote-Extra-Scopes", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-Ip", "Forwarded":
			t.Errorf("upstream received %s: %q", k, got[k])
		}
	}
	if diff := cmp.Diff([]string{"Bearer upstream-token"}, got.Values("Authorization")); diff != "" {
		t.Errorf("upstream Authorization (-want +got):\n%s", diff)
	}
	if got.Get("X-Request-Id") != "kept" {
		t.Errorf("upstream X-Request-Id = %q, want the caller's", got.Get("X-Request-Id"))
	}
}

// TestProxyCallerToken: with Token set, callers without it (or with
// another) get 401 and nothing goes upstream; with it (any scheme case)
// the request is forwarded with the upstream token instead.
func TestProxyCallerToken(t *testing.T) {
	t.Parallel()
	srv, up := startGuardedProxy(t, Config{Token: "caller-token"})
	for _, auth := range []string{"", "Bearer wrong", "Basic Y2FsbGVyLXRva2Vu"} {
		hdr := map[string]string{}
		if auth != "" {
			hdr["Authorization"] = auth
		}
		if code := send(t, srv, "", hdr); code != http.StatusUnauthorized {
			t.Errorf("Authorization %q = %d, want 401", auth, code)
		}
	}
	if n := up.count(); n != 0 {
		t.Errorf("upstream saw %d requests from unauthenticated callers, want 0", n)
	}
	for _, auth := range []string{"Bearer caller-token", "bearer caller-token"} {
		if code := send(t, srv, "", map[string]string{"Authorization": auth}); code != http.StatusOK {
			t.Errorf("Authorization %q = %d, want 200", auth, code)
		}
		if got := up.last(t).Get("Authorization"); got != "Bearer upstream-token" {
			t.Errorf("upstream Authorization = %q, want the upstream token", got)
		}
	}
}

// TestProxyHostCheck: a DNS-rebinding request (a foreign Host) is refused
// before it is forwarded; loopback names pass.
func TestProxyHostCheck(t *testing.T) {
	t.Parallel()
	srv, up := startGuardedProxy(t, Config{AllowedHosts: []string{}})
	if code := send(t, srv, "attacker.example", nil); code != http.StatusForbidden {
		t.Errorf("Host attacker.example = %d, want 403", code)
	}
	if n := up.count(); n != 0 {
		t.Errorf("upstream saw %d requests, want 0", n)
	}
	if code := send(t, srv, "localhost", nil); code != http.StatusOK {
		t.Errorf("Host localhost = %d, want 200", code)
	}
}

// TestProxyDropsCallerCredentialsOnWatch: a watch goes upstream through
// the relay, not the plain forward; it too carries only the proxy's
// credentials.
func TestProxyDropsCallerCredentialsOnWatch(t *testing.T) {
	t.Parallel()
	srv, up := startGuardedProxy(t, Config{})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/api/v1/namespaces/default/configmaps?watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Impersonate-User": "admin", "Impersonate-Group": "system:masters", "Cookie": "session=stolen", "Authorization": "Bearer caller-token"} {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	got := up.last(t)
	for _, k := range []string{"Impersonate-User", "Impersonate-Group", "Cookie"} {
		if v := got.Values(k); len(v) > 0 {
			t.Errorf("upstream watch received %s: %q", k, v)
		}
	}
	if diff := cmp.Diff([]string{"Bearer upstream-token"}, got.Values("Authorization")); diff != "" {
		t.Errorf("upstream watch Authorization (-want +got):\n%s", diff)
	}
	if !strings.Contains(up.lastQuery(t), "watch=1") {
		t.Errorf("upstream did not see the watch: query %q", up.lastQuery(t))
	}
}
