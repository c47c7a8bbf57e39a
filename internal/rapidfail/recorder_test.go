package rapidfail

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestRecorderCountsChecks: a property that fails from its fifth check on
// is recorded, not failed, with the number of the check that failed; a
// passing one records nothing.
func TestRecorderCountsChecks(t *testing.T) {
	// No fail file: a saved one would be replayed first on the next run.
	NoFailFiles(t)
	n := 0
	r := New(t)
	rapid.Check(r, func(rt *rapid.T) {
		_ = rapid.Int().Draw(rt, "x")
		if n++; n >= 5 {
			rt.Fatalf("boom")
		}
	})
	if !r.Failed() || r.Checks() != 5 || !strings.Contains(r.Message(), "boom") {
		t.Fatalf("Failed %v, Checks %d, Message %q; want a failure at check 5", r.Failed(), r.Checks(), r.Message())
	}
	ok := New(t)
	rapid.Check(ok, func(rt *rapid.T) { _ = rapid.Int().Draw(rt, "x") })
	if ok.Failed() || ok.Checks() != 0 {
		t.Fatalf("a passing property: Failed %v, Checks %d", ok.Failed(), ok.Checks())
	}
}
