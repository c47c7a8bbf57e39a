package crfake_test

import (
	"testing"

	"go.uber.org/goleak"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// TestMain fails the package if a test leaves a goroutine running: the
// tests rely on it to prove that t.Cleanup stops the server, its watches
// and the client's connections. It drops apimachinery's HandleError rate
// limiter as fakeclientset's TestMain does (that limiter sleeps on wall
// time read off a synctest bubble's clock).
func TestMain(m *testing.M) {
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	goleak.VerifyTestMain(m)
}
