package fakeapiservertest

import (
	"context"
	"net"
	"sync"
)

// PipeListener is an in-memory net.Listener whose connections are
// net.Pipe pairs made by DialContext. Safe for concurrent use.
type PipeListener struct {
	conns  chan net.Conn
	done   chan struct{}
	closed sync.Once
}

var _ net.Listener = (*PipeListener)(nil)

// NewPipeListener returns an open listener.
func NewPipeListener() *PipeListener {
	return &PipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next DialContext; after Close it returns
// net.ErrClosed.
func (l *PipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and DialContext; connections already made stay open.
// It is safe to call more than once.
func (l *PipeListener) Close() error {
	l.closed.Do(func() { close(l.done) })
	return nil
}

// Addr is a placeholder address ("fake-apiserver.pipe"); any host in a
// client's URL reaches the listener, since DialContext ignores it.
func (l *PipeListener) Addr() net.Addr { return pipeAddr{} }

// DialContext connects a client to the listener, blocking until Accept takes
// the connection, the listener closes (net.ErrClosed) or ctx ends. Its
// signature fits rest.Config.Dial and http.Transport.DialContext.
func (l *PipeListener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	srv, cli := net.Pipe()
	select {
	case l.conns <- srv:
		return cli, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeAddr is the listener's net.Addr.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "fake-apiserver.pipe" }
