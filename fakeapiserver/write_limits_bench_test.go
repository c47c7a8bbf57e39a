package fakeapiserver

import (
	"net/http"
	"runtime"
	"testing"
)

// BenchmarkPatchCopyBomb sends the 16-copy bomb once per iteration and
// reports the heap in use after it (MiB): without the copy limit each
// bomb builds a 64 MiB object and heap-MiB climbs past 100; with it the
// heap stays flat at a few MiB. No timing is asserted.
func BenchmarkPatchCopyBomb(b *testing.B) {
	srv := Start(b)
	doWrite(b, srv, http.MethodPost, cmPath, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bomb"}}`))
	bomb := copyBomb(b, 16)
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		resp := doWrite(b, srv, http.MethodPatch, cmPath+"/bomb", bomb, "Content-Type", "application/json-patch+json")
		if resp.code != http.StatusUnprocessableEntity {
			b.Fatalf("bomb = %d %.200s", resp.code, resp.body)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
