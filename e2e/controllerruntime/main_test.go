package controllerruntime

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain fails the package if a test leaves a goroutine running: the
// manager must stop every informer, worker and watch when its context ends.
func TestMain(m *testing.M) {
	// controller-runtime's package-level logger prints a "log.SetLogger(...)
	// was never called" stack trace 30s after first use unless a logger is
	// set. Tests pass their own logger to the manager (Options.Logger);
	// this only silences the process-wide fallback. It is the one global
	// write of the package, made before any test runs.
	ctrllog.SetLogger(logr.Discard())
	goleak.VerifyTestMain(m,
		// controller-runtime's metadata informers (builder.OnlyMetadata)
		// wrap each watch in apimachinery's watch.Filter, whose goroutine
		// blocks forever sending an event nobody reads: stopping the
		// watch closes the stream, the StreamWatcher may then still hand
		// its "unable to decode" ERROR to the filter (it selects between
		// that send and its done channel), and the Reflector has stopped
		// reading. Upstream's, whatever the server: ignored, not ours.
		goleak.IgnoreTopFunction("k8s.io/apimachinery/pkg/watch.(*filteredWatch).loop"),
	)
}
