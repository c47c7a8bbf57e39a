package store

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine running; the
// concurrency tests rely on it to prove their readers and writers all exit.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
