package fakeapiserver

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// goneWriter is a response whose client has gone: it takes the headers
// and bytes but every flush fails, as net/http's does once the
// connection or HTTP/2 stream is closed.
type goneWriter struct{ *httptest.ResponseRecorder }

func (goneWriter) FlushError() error { return errors.New("client gone") }

// TestWatchClientGoneBeforeHeaders: a watch whose client went away before
// its headers were flushed ends quietly, stopping what it had started.
// openWatch's clean-up once called the end function its own return had
// set to nil: the handler panicked (net/http logged "http2: panic
// serving" in the conformance run) instead of returning.
func TestWatchClientGoneBeforeHeaders(t *testing.T) {
	srv := Start(t)
	for _, query := range []string{"watch=true", "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"} {
		r := httptest.NewRequestWithContext(t.Context(), http.MethodGet, watchCMPath+"?"+query, nil)
		w := goneWriter{httptest.NewRecorder()}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: the handler panicked: %v", query, p)
				}
			}()
			srv.Handler().ServeHTTP(w, r)
		}()
		if w.Code != http.StatusOK {
			t.Errorf("%s: status %d, want the 200 written before the flush failed", query, w.Code)
		}
	}
	if n := srv.watch.active.Load(); n != 0 {
		t.Errorf("%d watches still counted active after their clients left", n)
	}
}
