package fakeapiserver

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// faultRequest is the request-entry hook (route, before serveVerb): it
// waits out injected latency, and answers an injected failure itself
// (true: the request is done). A LIST to be cut gets a writer that cuts it.
// The request's context carries what later hooks need (OpenStream,
// TooLargeRV, NoteContinue).
func (s *Server) faultRequest(req *request) bool {
	ctx, out := s.faults.inj.Request(req.r.Context(), faults.ParseRequest(req.r))
	req.r = req.r.WithContext(ctx)
	if out.Fail != nil {
		s.writeError(req.w, req.r, out.Fail)
		return true
	}
	if out.CutList {
		req.w = cutWriter{req.w}
	}
	return false
}

// cutWriter cuts a response in the middle of its body: it writes half of
// the first Write (respond writes a body in one), then resets the
// connection.
type cutWriter struct {
	http.ResponseWriter
}

func (c cutWriter) Write(p []byte) (int, error) {
	kubewire.Cut(c.ResponseWriter, p)
	return 0, nil // not reached: Cut panics
}

// Unwrap lets http.ResponseController reach the connection.
func (c cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// faultTooLargeRV is the hook of RV-constrained reads (waitForRV): an
// injected "Too large resource version" 504, or nil.
func (s *Server) faultTooLargeRV(ctx context.Context, rv int64) error {
	return s.faults.inj.TooLargeRV(ctx, rv)
}

// faultListPage tells the injector which continue token a LIST page
// carried, so LIST faults can match on page numbers.
func (s *Server) faultListPage(req *request, body runtime.Object) {
	if lm, err := meta.ListAccessor(body); err == nil && lm.GetContinue() != "" {
		s.faults.inj.NoteContinue(req.r.Context(), lm.GetContinue())
	}
}
