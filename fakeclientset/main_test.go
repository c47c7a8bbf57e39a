package fakeclientset_test

import (
	"testing"

	"go.uber.org/goleak"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// TestMain fails the package if a test leaves a goroutine running: the
// tests rely on it to prove that tb.Cleanup stops the server, its watches
// and its clients' connections. It drops apimachinery's HandleError rate
// limiter as fakeapiserver's TestMain does (that limiter sleeps on wall
// time read off a synctest bubble's clock).
func TestMain(m *testing.M) {
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	goleak.VerifyTestMain(m)
}
