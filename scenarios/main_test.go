package scenarios

import (
	"testing"

	"go.uber.org/goleak"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// TestMain checks that no test leaves a goroutine behind: every run starts
// a server, streams and clients, and Run must stop them all.
//
// It also drops apimachinery's HandleError rate limiter for this test
// binary (before any test runs), as listwatch's and fakeapiserver's do: it
// stamped real time at init, and in a testing/synctest bubble
// (TestReplaysInBubbleAreExact), whose clock starts in 2000, it sleeps
// for the difference, decades of virtual time, so a Reflector that
// reported a failed watch through it would never retry. Errors are still
// logged.
func TestMain(m *testing.M) {
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	goleak.VerifyTestMain(m)
}
