package store

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	kruntime "k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkMemoryPerObject reports the live heap the store adds per stored
// configmap after n creates (B/object-store: trees, indexes, encodings
// caches and events, not the objects themselves, whose heap is
// B/object-itself), with every revision retained (compact=none, as before
// the first compaction) and after compacting to the current RV
// (compact=all, the steady state of a quiet store), with no index and with
// a label index like fakeapiserver's (every object has two labels, one of
// them shared by a tenth of the objects). With codec=true the store keeps
// the objects as their protobuf (configMapCodec) and the bench drops its
// own references after the creates, so the objects are the store's alone:
// live-B/object-total is then everything a stored object costs, which
// without a codec is live-B/object-itself plus live-B/object-store. One
// iteration is enough: b.N only repeats it. With a codec the -store
// figures are the store less the decoded objects it replaced, and can be
// negative; read live-B/object-total there.
func BenchmarkMemoryPerObject(b *testing.B) {
	const n = 100_000
	labelIndex := func(string) []Index {
		return []Index{{Name: "label", Values: func(obj kruntime.Object) []string {
			m, _ := meta.Accessor(obj)
			out := make([]string, 0, len(m.GetLabels()))
			for k, v := range m.GetLabels() {
				out = append(out, k+"="+v)
			}
			return out
		}}}
	}
	for _, codec := range []bool{false, true} {
		for _, idx := range []bool{false, true} {
			for _, compact := range []bool{false, true} {
				b.Run(fmt.Sprintf("codec=%t/index=%t/compact=%t", codec, idx, compact), func(b *testing.B) {
					var opts Options
					if idx {
						opts.Indexes = labelIndex
					}
					if codec {
						opts.Codec = withCodec
					}
					for b.Loop() {
						base, baseLive := heapInuse()
						objs := make([]kruntime.Object, n)
						for i := range objs {
							cm := newConfigMap("ns", "obj-"+strconv.Itoa(i), i)
							cm.Labels = map[string]string{"app": "app-" + strconv.Itoa(i%10), "id": strconv.Itoa(i)}
							objs[i] = cm
						}
						mid, midLive := heapInuse()
						s := New(opts)
						for i, obj := range objs {
							if _, err := s.Create("configmaps", benchKey(i), obj); err != nil {
								b.Fatal(err)
							}
							if codec {
								objs[i] = nil
							}
						}
						if compact {
							if err := s.Compact(s.CurrentRV()); err != nil {
								b.Fatal(err)
							}
						}
						after, afterLive := heapInuse()
						runtime.KeepAlive(s)
						runtime.KeepAlive(objs)
						b.ReportMetric(perObject(mid, base, n), "B/object-itself")
						b.ReportMetric(perObject(after, mid, n), "B/object-store")
						b.ReportMetric(perObject(midLive, baseLive, n), "live-B/object-itself")
						b.ReportMetric(perObject(afterLive, midLive, n), "live-B/object-store")
						b.ReportMetric(perObject(afterLive, baseLive, n), "live-B/object-total")
					}
				})
			}
		}
	}
}

// perObject is (after-before)/n, negative when the heap shrank (with a
// codec the bench drops the decoded objects it counted in the store's
// own figure), where uint64 subtraction wrapped around (about 1.8e14
// per object).
func perObject(after, before uint64, n int) float64 {
	return (float64(after) - float64(before)) / float64(n)
}

// heapInuse is the heap in use (spans holding a live object, which is
// what the process keeps resident) and the live heap, after a collection.
func heapInuse() (inuse, live uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse, ms.HeapAlloc
}
