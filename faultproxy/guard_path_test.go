package faultproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// pathRecorder is an upstream that records the paths it receives.
type pathRecorder struct {
	// mu guards the field below.
	mu    sync.Mutex
	paths []string
}

func (u *pathRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.paths = append(u.paths, r.URL.Path)
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
}

func (u *pathRecorder) seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.paths...)
}

// TestProxyDotSegmentsUnderPrefix (issue 21): behind an upstream URL with a
// path prefix, a path with "." or ".." segments (raw or percent-encoded)
// is refused with a 400 and never forwarded, so it cannot climb out of the
// prefix; without a prefix it goes upstream as it is, for kube-apiserver
// to refuse.
func TestProxyDotSegmentsUnderPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prefix string
		path   string
		want   int
	}{
		{"/k8s/clusters/c1", "/api/v1/namespaces/../../../c2/api/v1/secrets", http.StatusBadRequest},
		{"/k8s/clusters/c1", "/api/v1/namespaces/%2e%2e/configmaps", http.StatusBadRequest},
		{"/k8s/clusters/c1", "/api/v1/namespaces/./configmaps", http.StatusBadRequest},
		{"/k8s/clusters/c1", "/api/v1/namespaces/default/configmaps", http.StatusOK},
		{"", "/api/v1/namespaces/../configmaps", http.StatusOK},
	} {
		up := &pathRecorder{}
		upSrv := httptest.NewServer(up)
		p, err := New(Config{Upstream: &rest.Config{Host: upSrv.URL + tc.prefix}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(p.Handler())
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = "//" + req.URL.Host + tc.path // sent as is, dots and escapes included
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s under %q = %d, want %d", tc.path, tc.prefix, resp.StatusCode, tc.want)
		}
		if seen := up.seen(); tc.want == http.StatusBadRequest && len(seen) != 0 {
			t.Errorf("GET %s under %q reached the upstream as %q", tc.path, tc.prefix, seen)
		}
		p.Close()
		srv.Close()
		upSrv.Close()
	}
}
