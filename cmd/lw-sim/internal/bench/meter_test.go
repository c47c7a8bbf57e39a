package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/lw-sim/lw-sim/internal/cputime"
)

// meter measures what a timed loop cost the whole process besides wall
// time: CPU time (user and system, every thread: on a shared machine it
// is steadier than wall time, which includes waiting for a core), bytes
// allocated and collections run.
type meter struct {
	cpu  time.Duration
	vcsw int64 // voluntary context switches: blocking, sleeping, waking
	ms   runtime.MemStats
}

// startMeter collects first, so the loop does not pay for the garbage of
// what ran before it (seeding 100 000 pods leaves a lot) and every loop
// starts with the heap goal its live heap sets; then it reads the
// counters.
func startMeter() *meter {
	runtime.GC()
	m := &meter{cpu: cputime.Process()}
	m.vcsw, _ = cputime.ContextSwitches()
	runtime.ReadMemStats(&m.ms)
	return m
}

// report adds the per-page costs since startMeter to b's metrics:
// cpu-ns/page and vcsw/page, the threads' voluntary context switches,
// each a sleep and a wakeup (when the platform reports them),
// alloc-B/page and gc/page.
func (m *meter) report(b *testing.B, pages int) {
	if pages == 0 {
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if cpu := cputime.Process(); cpu > 0 {
		b.ReportMetric(float64((cpu-m.cpu).Nanoseconds())/float64(pages), "cpu-ns/page")
	}
	if vcsw, _ := cputime.ContextSwitches(); vcsw >= 0 && m.vcsw >= 0 {
		b.ReportMetric(float64(vcsw-m.vcsw)/float64(pages), "vcsw/page")
	}
	b.ReportMetric(float64(ms.TotalAlloc-m.ms.TotalAlloc)/float64(pages), "alloc-B/page")
	b.ReportMetric(float64(ms.NumGC-m.ms.NumGC)/float64(pages), "gc/page")
}
