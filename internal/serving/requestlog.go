package serving

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// LogRequests logs one line per request to log at debug level, once the
// handler has returned: method, request URI, status and duration (for a
// watch, how long the stream lasted). When log does not log at debug level
// it returns next itself, so a server without a request log pays nothing.
func LogRequests(log *slog.Logger, next http.Handler) http.Handler {
	if log == nil || !log.Enabled(context.Background(), slog.LevelDebug) {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		log.LogAttrs(r.Context(), slog.LevelDebug, "request",
			slog.String("method", r.Method), slog.String("uri", r.RequestURI),
			slog.Int("status", sw.status()), slog.Duration("duration", time.Since(start)))
	})
}

// statusWriter records the status code a handler writes. Unwrap lets
// http.ResponseController reach the connection (flushes, deadlines and
// hijacks of watch streams and faults).
type statusWriter struct {
	http.ResponseWriter
	code int // 0 until WriteHeader or Write
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status is the code sent; a handler that wrote nothing sent 200.
func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
