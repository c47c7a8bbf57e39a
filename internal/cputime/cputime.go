// Package cputime reads the CPU the current process has used, for the
// benchmarks that report CPU beside wall time: on a shared machine CPU
// time is the steadier figure, since wall time also counts the time other
// processes held the cores.
package cputime

import "time"

// Process returns the CPU time the process has used so far, user and
// system, or 0 where the platform's figure is not read. Only differences
// of two calls mean anything.
func Process() time.Duration { return process() }

// ContextSwitches returns how many times the process's threads have given
// up their CPU so far: voluntarily (blocked: on the network, a lock, an
// idle scheduler) and involuntarily (preempted), or -1 and -1 where the
// platform's figures are not read.
func ContextSwitches() (voluntary, involuntary int64) { return contextSwitches() }
