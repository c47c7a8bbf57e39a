package fakeapiserver

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// watchLife is how one watch ends. Its context ends at the watch's
// deadline (timeoutSeconds, or MinRequestTimeout times a random factor in
// [1, 2) as handleWatch does, on the server's clock), on Close, when the
// client goes away, or by a stream fault (cancel with cause
// faults.ErrStreamFault, faults_watch.go); the hook set by onEnd (the
// write deadline, watch_deadline.go) runs on the first three only, once.
// One context serves all four, with no child: an open watch keeps one
// context, its Done channel and its registration with the request's.
type watchLife struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  clock.Timer
	// stopOnClose and stopOnGone unregister end from the server's
	// and the request's contexts.
	stopOnClose, stopOnGone func() bool

	// mu guards the fields below.
	mu sync.Mutex
	// ended is set once the watch ended by other than a fault.
	ended bool
	// hook runs when it ends so; nil until onEnd.
	hook func()
}

// watchLife starts the life of a watch of the request whose context is
// parent, and returns it with the watch's deadline. The caller must call
// stop when the watch is over.
func (s *Server) watchLife(parent context.Context, p listParams) (*watchLife, time.Time) {
	timeout := time.Duration(float64(s.cfg.MinRequestTimeout) * (1 + rand.Float64()))
	if p.opts.TimeoutSeconds != nil && *p.opts.TimeoutSeconds > 0 {
		timeout = time.Duration(*p.opts.TimeoutSeconds) * time.Second
	}
	l := &watchLife{}
	l.ctx, l.cancel = context.WithCancelCause(parent)
	end := l.end // one method value for the three: each is an allocation the watch keeps
	l.stopOnClose = context.AfterFunc(s.stopCtx, end)
	l.stopOnGone = context.AfterFunc(parent, end)
	l.timer = s.cfg.Clock.AfterFunc(timeout, end)
	return l, s.cfg.Clock.Now().Add(timeout)
}

// end ends the watch (its deadline, Close, the client gone) and runs the
// hook, the first time.
func (l *watchLife) end() {
	l.cancel(nil)
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return
	}
	l.ended = true
	hook := l.hook
	l.mu.Unlock()
	if hook != nil {
		hook()
	}
}

// onEnd sets the hook of the watch's end, running it now if the watch
// has ended already.
func (l *watchLife) onEnd(hook func()) {
	l.mu.Lock()
	if !l.ended {
		l.hook = hook
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	hook()
}

// stop releases the watch's timer and registrations and ends its context.
func (l *watchLife) stop() {
	l.timer.Stop()
	l.stopOnClose()
	l.stopOnGone()
	l.cancel(nil)
}
