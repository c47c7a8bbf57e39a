// Package testdeadline gives tests a context that ends at the test
// binary's own deadline (go test -timeout), for tests that wait on real
// work: a server's answer, a subprocess, a stream's end. Such a test must
// not race a wall-clock budget of its own, which a loaded machine exceeds
// (issue 21: a 30 s budget failed TestRunAll at a load average of 25); it
// waits for the event, and only a hang, one that would outlast the whole
// binary, fails it, with the test's own message a little before go test's
// timeout panic would.
package testdeadline

import (
	"context"
	"flag"
	"testing"
	"time"
)

// margin is how long before the binary's deadline [Context] ends: enough
// for the test to report and clean up before go test panics.
const margin = 30 * time.Second

// started is when the test binary started, near enough: when this package
// was initialised. It is set once and only read.
var started = time.Now()

// deadliner is the part of *testing.T that knows the binary's deadline.
type deadliner interface {
	Deadline() (time.Time, bool)
}

// Context returns a context that ends when t's does (t.Context(): when the
// test ends) or margin before the test binary's deadline, whichever comes
// first; with no -timeout (go test -timeout 0) only when t's does. The
// caller must call cancel.
func Context(t testing.TB) (context.Context, context.CancelFunc) {
	return Derive(t.Context(), t)
}

// Derive is [Context] for another parent: parent's end, or margin before
// t's binary's deadline. A wait in a t.Cleanup function, which runs after
// t.Context() has ended, derives from context.Background().
func Derive(parent context.Context, t testing.TB) (context.Context, context.CancelFunc) {
	d, ok := t.(deadliner)
	if !ok {
		return context.WithCancel(parent)
	}
	deadline, ok := d.Deadline()
	if !ok {
		return context.WithCancel(parent)
	}
	if until := time.Until(deadline); until > 2*margin {
		deadline = deadline.Add(-margin)
	}
	return context.WithDeadline(parent, deadline)
}

// BinaryContext is a context ending margin before the test binary's
// deadline (its start plus -test.timeout), for a wait with no *testing.T at
// hand (inside a rapid.T, or a helper taking a narrower interface); with
// -test.timeout 0 it does not end. The caller must call cancel.
func BinaryContext() (context.Context, context.CancelFunc) {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return context.WithCancel(context.Background())
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return context.WithCancel(context.Background())
	}
	timeout, _ := g.Get().(time.Duration)
	if timeout <= 0 {
		return context.WithCancel(context.Background())
	}
	deadline := started.Add(timeout)
	if timeout > 2*margin {
		deadline = deadline.Add(-margin)
	}
	return context.WithDeadline(context.Background(), deadline)
}
