package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// loopbackUserAgent is the User-Agent of kube-apiserver's loopback client
// (rest.DefaultKubernetesUserAgent of the kube-apiserver binary): its
// prefix, "kube-apiserver", names the field manager of what the server
// writes itself (managerName), as seedManager says.
const loopbackUserAgent = seedManager + "/" + kubeGitVersion + " (linux/amd64) kubernetes/lwsim"

// loopbackRequest is one request of the server's own controllers.
type loopbackRequest struct {
	method string
	// path is a resource path, e.g. /api/v1/namespaces/default/services.
	path  string
	query url.Values
	// body is marshalled as JSON (nil: no body); contentType defaults to
	// application/json.
	body        any
	contentType string
	// userAgent is the client's User-Agent (whose prefix names the field
	// manager); "" is kube-apiserver's own (loopbackUserAgent).
	userAgent string
}

// loopback serves a request of the server's own controllers, as
// kube-apiserver's controllers call it through its loopback client: routed
// and answered by the same verb handlers as a client's request (decoding,
// defaults, validation, managedFields, the store, watch events), but not
// through the request filters: the server's own writes are neither
// authenticated, nor a fault's target (faults.go), nor in the request log.
// It returns the handler's object, or its error as a Status error.
func (s *Server) loopback(ctx context.Context, lr loopbackRequest) (runtime.Object, error) {
	var body []byte
	if lr.body != nil {
		var err error
		if body, err = json.Marshal(lr.body); err != nil {
			return nil, fmt.Errorf("fakeapiserver: loopback %s %s: %w", lr.method, lr.path, err)
		}
	}
	target := lr.path
	if len(lr.query) > 0 {
		target += "?" + lr.query.Encode()
	}
	r, err := http.NewRequestWithContext(ctx, lr.method, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: loopback %s %s: %w", lr.method, lr.path, err)
	}
	ct := lr.contentType
	if ct == "" {
		ct = "application/json"
	}
	r.Header.Set("Content-Type", ct)
	r.Header.Set("Accept", "application/json")
	ua := lr.userAgent
	if ua == "" {
		ua = loopbackUserAgent
	}
	r.Header.Set("User-Agent", ua)
	r = kubewire.WithRequestInfo(r) // parsed once, as a client's request is (handler.go)
	info, ok := resourcePath(kubewire.RequestInfoOf(r))
	if !ok {
		return nil, fmt.Errorf("fakeapiserver: loopback %s %s: not a resource path", lr.method, lr.path)
	}
	req, err := s.resourceRequest(headerOnlyWriter{http.Header{}}, r, info)
	if err != nil {
		return nil, err
	}
	resp, err := s.handle(req)
	if err != nil {
		return nil, err
	}
	return resp.obj, nil
}

// headerOnlyWriter is the http.ResponseWriter of a loopback request:
// handlers only add headers to it (dispatch.go); nothing is written.
type headerOnlyWriter struct{ h http.Header }

func (w headerOnlyWriter) Header() http.Header { return w.h }

func (headerOnlyWriter) Write(p []byte) (int, error) { return len(p), nil }

func (headerOnlyWriter) WriteHeader(int) {}
