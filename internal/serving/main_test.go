package serving

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a serving goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
