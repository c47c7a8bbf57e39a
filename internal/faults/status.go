package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// tooLargeRetryAfterSeconds is the Retry-After of the watch cache's 504
// (apiserver pkg/storage/errors.go NewTooLargeResourceVersionError).
const tooLargeRetryAfterSeconds = 1

// statusFor builds FailRequest's error as kube-apiserver builds it for that
// code (apimachinery pkg/api/errors), so client-go classifies it as it
// would a real one (IsTooManyRequests, IsInternalError, ...).
func statusFor(f Fault, info *RequestInfo) *apierrors.StatusError {
	msg := f.Message
	if msg == "" {
		msg = fmt.Sprintf("injected by lw-sim fault %s", f.ID)
	}
	var err *apierrors.StatusError
	switch f.Code {
	case http.StatusTooManyRequests:
		// The max-in-flight filter's text (apiserver
		// pkg/server/filters/maxinflight.go tooManyRequests).
		if f.Message == "" {
			msg = "Too many requests, please try again later."
		}
		err = apierrors.NewTooManyRequests(msg, f.RetryAfterSeconds)
	case http.StatusInternalServerError:
		err = apierrors.NewInternalError(errors.New(msg))
	case http.StatusServiceUnavailable:
		err = apierrors.NewServiceUnavailable(msg)
	default:
		err = apierrors.NewTimeoutError(msg, 0)
	}
	if f.RetryAfterSeconds > 0 {
		if err.ErrStatus.Details == nil {
			err.ErrStatus.Details = &metav1.StatusDetails{}
		}
		err.ErrStatus.Details.RetryAfterSeconds = int32(f.RetryAfterSeconds)
	}
	if info != nil && info.Resource != "" && err.ErrStatus.Details != nil {
		gr := schema.ParseGroupResource(info.Resource)
		err.ErrStatus.Details.Group, err.ErrStatus.Details.Kind = gr.Group, gr.Resource
	}
	return err
}

// TooLargeResourceVersion is the watch cache's 504 for a read at want when
// it has only reached current (apiserver pkg/storage/errors.go
// NewTooLargeResourceVersionError), with Retry-After 1.
func TooLargeResourceVersion(want, current int64) *apierrors.StatusError {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", want, current), tooLargeRetryAfterSeconds)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}

// WriteStatus writes err's Status as JSON with its code, and Retry-After
// when the Status asks for a retry (responsewriters ErrorNegotiated). It is
// for writers that negotiate nothing (the proxy, the control API).
func WriteStatus(w http.ResponseWriter, err error) {
	var se apierrors.APIStatus
	st := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}
	if errors.As(err, &se) {
		st = se.Status()
	}
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", retryAfter(st.Details.RetryAfterSeconds))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(&st)
}

// WriteTruncated writes the first half of frame (at least one byte short
// of it) and flushes, so the client holds a partial event or body.
func WriteTruncated(w http.ResponseWriter, frame []byte) {
	_, _ = w.Write(frame[:len(frame)/2])
	_ = http.NewResponseController(w).Flush()
}

// Abort resets the connection of the response being written and ends the
// handler; it never returns. After a flush it hijacks the connection and,
// on TCP, closes it with SO_LINGER 0 so the peer gets a RST ("connection
// reset by peer"); elsewhere (in-memory pipes, HTTP/2) it panics with
// http.ErrAbortHandler, which closes the connection (HTTP/1: the client
// reads an unexpected EOF inside the chunked body) or resets the stream
// (HTTP/2). Either way net/http logs nothing.
func Abort(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		resetConn(conn)
	}
	panic(http.ErrAbortHandler)
}

// resetConn closes conn abruptly: with a RST on TCP (also under TLS).
func resetConn(conn net.Conn) {
	raw := conn
	if nc, ok := conn.(interface{ NetConn() net.Conn }); ok {
		raw = nc.NetConn()
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
		_ = tc.Close()
		return
	}
	// Unblock a reader on the other side before closing.
	_ = conn.SetDeadline(time.Now())
	_ = conn.Close()
}

// Group-resources named in control API errors.
var (
	emptyGR  = schema.GroupResource{}
	faultsGR = schema.GroupResource{Group: "lw-sim", Resource: "faults"}
)
