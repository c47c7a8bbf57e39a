//go:build unix

package cputime

import "testing"

// TestProcessCounts checks that work shows as CPU time: a broken read
// (always 0, or the wrong field) fails.
func TestProcessCounts(t *testing.T) {
	start := Process()
	x := uint64(1)
	for Process()-start == 0 {
		for range 1_000_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 0 {
		t.Log(x) // keep x live
	}
	if v, i := ContextSwitches(); v < 0 || i < 0 {
		t.Errorf("ContextSwitches() = %d, %d, want counts", v, i)
	}
}
