package fakeapiserver

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkPatchCopyBomb sends a JSON patch of n copies, each doubling a
// 1 KiB value, once per iteration, and reports the allocations per patch
// (B/op), the peak heap in use after a patch and the process's RSS
// (MiB). Without the 3 MiB copy limit each extra copy doubles all three
// (16 copies build a 64 MiB object); with it, 12 copies and more stop at
// the 12th (2^12-1 KiB > 3 MiB) with the real server's 422, so the numbers
// of copies=12, 16 and 24 are the same: flat, however large the bomb.
// copies=8 (255 KiB copied, applied: 200) is the baseline of a patch that
// fits. No timing is asserted.
func BenchmarkPatchCopyBomb(b *testing.B) {
	for _, tc := range []struct{ copies, code int }{{8, http.StatusOK}, {12, 422}, {16, 422}, {24, 422}} {
		b.Run(fmt.Sprintf("copies=%d", tc.copies), func(b *testing.B) {
			srv := Start(b)
			doWrite(b, srv, http.MethodPost, cmPath, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bomb"}}`))
			bomb := copyBomb(b, tc.copies)
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				resp := doWrite(b, srv, http.MethodPatch, cmPath+"/bomb", bomb, "Content-Type", "application/json-patch+json")
				if resp.code != tc.code {
					b.Fatalf("%d copies = %d %.200s, want %d", tc.copies, resp.code, resp.body, tc.code)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(vmRSS(b))/(1<<20), "rss-MiB")
		})
	}
}

// vmRSS is this process's resident set size in bytes (0 where /proc is
// missing).
func vmRSS(b *testing.B) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("VmRSS %q: %v", v, err)
			}
			return kb << 10
		}
	}
	return 0
}
