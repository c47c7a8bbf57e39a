package fakeapiserver

import (
	"testing"

	"go.uber.org/goleak"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// TestMain fails the package if a test leaves a goroutine running. Tests
// that use Start rely on it to prove that Cleanup stops the serving
// goroutine and every watch, and that client connections end with the
// server.
//
// It also drops apimachinery's HandleError rate limiter for this test
// binary (before any test runs), as listwatch's TestMain does. The limiter
// sleeps for the time between an error and the one before it, read off
// the wall clock, which it stamped with real time at init; a
// testing/synctest bubble's clock starts in 2000 (bubble times carry no
// monotonic reading), so the first error reported in a bubble slept 26
// years of virtual time, stalling the client-go goroutine that reported
// it: an informer whose WATCH got a 5xx never relisted
// (TestFaultInformerRecoversFromWatch5xx; the random-fault informer test
// failed so whenever its schedule put one there). Later bubbles slept
// until the virtual time of an earlier bubble's last error. Errors are
// still logged.
func TestMain(m *testing.M) {
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	goleak.VerifyTestMain(m)
}
