package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test or benchmark leaves a goroutine of
// a fake or of a watch reader running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
