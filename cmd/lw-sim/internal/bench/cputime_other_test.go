//go:build !unix

package bench

import "time"

// processCPU is 0: the platform's CPU time is not read here.
func processCPU() time.Duration { return 0 }

// contextSwitches is unknown (-1) here.
func contextSwitches() (voluntary, involuntary int64) { return -1, -1 }
