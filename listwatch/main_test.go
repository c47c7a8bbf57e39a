package listwatch

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine running: the tests
// that run a Client rely on it to prove that Run joins every watch stream
// it opened before it returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
