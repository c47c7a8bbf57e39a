//go:build !unix

package cputime

import "time"

func process() time.Duration { return 0 }

func contextSwitches() (voluntary, involuntary int64) { return -1, -1 }
