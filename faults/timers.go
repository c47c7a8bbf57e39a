package faults

import "sync"

// timerWork runs what clock timers trigger on goroutines it owns. A timer's
// function cannot do the work itself: k8s.io/utils' fake clock calls it
// with the clock's lock held, and the work takes Injector.mu, under which
// the injector reads the clock, so the two locks would deadlock.
//
// Shutdown chain: Injector.Close calls close → no new goroutine starts →
// wg.Wait returns once the running ones have.
type timerWork struct {
	wg sync.WaitGroup
	// mu guards the field below; it is never held while calling the
	// clock or Injector.mu.
	mu     sync.Mutex
	closed bool
}

// do returns a timer function that runs fn on a new goroutine, unless
// the injector is closed.
func (tw *timerWork) do(fn func()) func() {
	return func() {
		tw.mu.Lock()
		defer tw.mu.Unlock()
		if !tw.closed {
			tw.wg.Go(fn)
		}
	}
}

// close stops new work and waits for the running work.
func (tw *timerWork) close() {
	tw.mu.Lock()
	tw.closed = true
	tw.mu.Unlock()
	tw.wg.Wait()
}
