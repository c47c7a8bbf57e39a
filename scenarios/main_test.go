package scenarios

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: every run starts
// a server, streams and clients, and Run must stop them all.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
