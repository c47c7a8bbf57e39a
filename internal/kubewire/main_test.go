package kubewire

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine running (the
// HTTP servers of the cut tests).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
