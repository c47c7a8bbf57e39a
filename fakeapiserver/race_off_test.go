//go:build !race

package fakeapiserver

// raceEnabled reports a test binary built with -race, whose frames (and
// so goroutine stacks) are larger than a normal build's.
const raceEnabled = false
