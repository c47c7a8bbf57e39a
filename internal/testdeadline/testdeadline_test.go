package testdeadline

import "testing"

// TestContext: the context ends at the binary's deadline less the margin
// (go test always runs with one unless -timeout 0), and with the test.
func TestContext(t *testing.T) {
	ctx, cancel := Context(t)
	defer cancel()
	binary, ok := t.Deadline()
	got, hasDeadline := ctx.Deadline()
	switch {
	case !ok && hasDeadline:
		t.Errorf("Context has deadline %v without a binary deadline", got)
	case ok && !hasDeadline:
		t.Errorf("Context has no deadline; the binary's is %v", binary)
	case ok && (got.After(binary) || binary.Sub(got) > margin):
		t.Errorf("Context deadline %v, want at most %v before the binary's %v", got, margin, binary)
	}
	if err := ctx.Err(); err != nil {
		t.Errorf("Context already ended: %v", err)
	}
}

// TestBinaryContext: without a *testing.T the deadline is the binary's too.
func TestBinaryContext(t *testing.T) {
	ctx, cancel := BinaryContext()
	defer cancel()
	binary, ok := t.Deadline()
	got, hasDeadline := ctx.Deadline()
	if ok != hasDeadline {
		t.Fatalf("BinaryContext deadline %v (%v), the binary's %v (%v)", got, hasDeadline, binary, ok)
	}
	if ok && (got.After(binary) || binary.Sub(got) > 2*margin) {
		t.Errorf("BinaryContext deadline %v, want about %v before the binary's %v", got, margin, binary)
	}
}
