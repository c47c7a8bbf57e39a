//go:build unix

package fakeapiserver

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system: on a
// shared machine, steadier than wall time, which counts the time other
// processes held the cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
