package listwatch

import (
	"testing"

	"go.uber.org/goleak"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// TestMain fails the package if a test leaves a goroutine running: the tests
// that run a Client rely on it to prove that Run joins every watch stream
// it opened before it returns.
//
// It also drops apimachinery's HandleError rate limiter for this test
// binary (before any test runs): it stamped real time at init, and in a
// testing/synctest bubble, whose clock starts in 2000, it sleeps for the
// difference, decades of virtual time, stalling the client-go goroutine
// that reported an error (a Reflector path that bypasses the informer's
// watch error handler would never recover). Errors are still logged.
func TestMain(m *testing.M) {
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	goleak.VerifyTestMain(m)
}
