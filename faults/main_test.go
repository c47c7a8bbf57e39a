package faults

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine running (timers
// of After triggers and windows included).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
