//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// contextSwitches is how many times the process's threads have given up
// their CPU: voluntarily (blocked: on the network, a lock, an idle
// scheduler) and involuntarily (preempted), or -1 if unknown.
func contextSwitches() (voluntary, involuntary int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1, -1
	}
	return ru.Nvcsw, ru.Nivcsw
}
