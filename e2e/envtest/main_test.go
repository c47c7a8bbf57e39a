package envtest

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain fails the package if a test leaves a goroutine running: envtest
// waits for each process it started in a goroutine, which ends only when
// the process has exited, so a stand-in that ignored SIGTERM would show
// here too.
func TestMain(m *testing.M) {
	// controller-runtime's package-level logger prints a stack trace 30 s
	// after first use unless a logger is set; envtest logs through it.
	ctrllog.SetLogger(logr.Discard())
	goleak.VerifyTestMain(m)
}
