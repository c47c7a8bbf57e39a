package bench

import (
	"runtime"
	"runtime/debug"
)

// collected runs f from a freshly collected heap with the collector off,
// and turns the collector back on after. The client-go LIST rows compare
// a traversal's time with the decode of the same bytes; a traversal of
// 20 pages allocates 60–90 MB, near the collector's goal with a fake of
// 10 000 pods in the heap, so whether a cycle lands in a phase (and in
// which) swung a quotient by ±0.5 from run to run. With each phase
// starting collected and running uncollected, the quotient compares the
// work of the two, not the collector's timing; the memory rows say what
// the traversal allocates, which is what a collector has to pay for.
func collected(f func() error) error {
	runtime.GC()
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	return f()
}
