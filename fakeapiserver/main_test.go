package fakeapiserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine running. Tests
// that use Start rely on it to prove that Cleanup stops the serving
// goroutine and every watch, and that client connections end with the
// server.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
