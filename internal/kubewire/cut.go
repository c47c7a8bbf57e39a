package kubewire

import (
	"net"
	"net/http"
	"time"
)

// idleFrame is the event a stream cut between events is cut in the middle
// of: the start of a MODIFIED, so the client holds half a frame.
var idleFrame = AppendFrame(nil, "MODIFIED", []byte(`{"kind":"Status","apiVersion":"v1","metadata":{}}`))

// Cut writes the first half of frame (at least one byte short of it: a
// partial event or body), flushes it, and resets the connection with
// [Abort]. It never returns.
func Cut(w http.ResponseWriter, frame []byte) {
	_, _ = w.Write(frame[:len(frame)/2])
	_ = http.NewResponseController(w).Flush()
	Abort(w)
}

// CutIdle is [Cut] for a watch stream between events: it cuts a frame
// that never was. It never returns.
func CutIdle(w http.ResponseWriter) { Cut(w, idleFrame) }

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
