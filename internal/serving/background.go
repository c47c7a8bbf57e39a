package serving

import (
	"errors"
	"net"
	"sync"
)

// Background runs serve(ln) in a new goroutine, like go serve(ln), but
// returns only once serve accepts connections (or has already returned),
// so a URL recorded before the first Accept is known when it returns. The
// caller owns the goroutine: after stopping the server it must receive
// from the returned channel, which yields serve's result exactly once (nil
// when serve returned an error matching closed, the server's "stopped by
// Close") and is then closed.
func Background(ln net.Listener, serve func(net.Listener) error, closed error) <-chan error {
	rl := &readyListener{Listener: ln, ready: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		defer close(done)
		err := serve(rl)
		if errors.Is(err, closed) {
			err = nil
		}
		done <- err
	}()
	select {
	case <-rl.ready:
		return done
	case err := <-done:
		// serve returned without accepting (Close came first, or it
		// failed): hand its result on to the caller.
		replay := make(chan error, 1)
		replay <- err
		close(replay)
		return replay
	}
}

// readyListener closes ready on the first call of Accept.
type readyListener struct {
	net.Listener
	once  sync.Once
	ready chan struct{}
}

func (l *readyListener) Accept() (net.Conn, error) {
	l.once.Do(func() { close(l.ready) })
	return l.Listener.Accept()
}
