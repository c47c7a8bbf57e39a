package fakeapiserver

import (
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestRequestTimeoutParam: a malformed ?timeout= is a 400 for every
// request but the long-running ones (watches, by ?watch= or the /watch/
// path verb, and the streaming subresources), whatever the path.
func TestRequestTimeoutParam(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithToken("t0ken"))
	tests := []struct {
		name, path string
		want       int
	}{
		{"list", "/api/v1/namespaces/default/configmaps?timeout=bad", http.StatusBadRequest},
		{"get", "/api/v1/namespaces/default?timeout=bad", http.StatusBadRequest},
		{"version", "/version?timeout=1", http.StatusBadRequest},
		{"unknown path", "/no/such/path?timeout=bad", http.StatusBadRequest},
		{"watch param", "/api/v1/namespaces/default/configmaps?watch=1&timeout=bad&timeoutSeconds=1", http.StatusOK},
		{"watch path verb", "/api/v1/watch/namespaces/default/configmaps?timeout=bad&timeoutSeconds=1", http.StatusOK},
		{"log subresource", "/api/v1/namespaces/default/pods/p/log?timeout=bad", http.StatusNotFound},
		{"valid", "/api/v1/namespaces/default/configmaps?timeout=30s", http.StatusOK},
	}
	for _, tt := range tests {
		got := getRaw(t, srv, http.MethodGet, tt.path, map[string]string{"Authorization": "Bearer t0ken"})
		if got.code != tt.want {
			t.Errorf("%s: GET %s = %d %s, want %d", tt.name, tt.path, got.code, got.body, tt.want)
		}
	}
	// Before authentication: a wrong token still gets the 400.
	got := getRaw(t, srv, http.MethodGet, "/api?timeout=bad", map[string]string{"Authorization": "Bearer wrong"})
	if got.code != http.StatusBadRequest {
		t.Errorf("GET /api?timeout=bad with a wrong token = %d, want 400", got.code)
	}
}

// TestRequestTimeoutClientGo: client-go's request timeout travels as
// ?timeout= and is accepted; a malformed one set by hand is the real
// server's BadRequest.
func TestRequestTimeoutClientGo(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cfg := srv.RESTConfig()
	cfg.Timeout = 7 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig: %v", err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatalf("List with a client timeout = %v", err)
	}
	// A client timeout would replace the parameter (rest.Request.URL).
	err = clientsetFor(t, srv).CoreV1().RESTClient().Get().AbsPath("/api/v1/namespaces/default/configmaps").Param("timeout", "soon").Do(t.Context()).Error()
	const want = `invalid timeout specified in the request URL - time: invalid duration "soon"`
	if !apierrors.IsBadRequest(err) || err.Error() != want {
		t.Errorf("List ?timeout=soon = %v, want BadRequest %q", err, want)
	}
}
