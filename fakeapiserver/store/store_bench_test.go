package store

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
)

// benchCompactEvery is how often the benchmarks compact: a server must compact
// (see the package doc), and without it a long run would measure the garbage
// collector walking every retained snapshot rather than the store.
const benchCompactEvery = 10_000

// benchKey returns the i-th key of a benchmark, in a namespace of 1000 keys,
// zero-padded so that key order is index order.
func benchKey(i int) string {
	return fmt.Sprintf("ns-%04d/obj-%07d", i/1000, i)
}

// newBenchStore returns a store holding n configmaps, compacted to its
// current RV, with the garbage of building it already collected so that the
// timed loop does not pay for it.
func newBenchStore(b *testing.B, n int) *Store {
	b.Helper()
	s := New(Options{})
	for i := range n {
		if _, err := s.Create("configmaps", benchKey(i), newConfigMap("ns", strconv.Itoa(i), i)); err != nil {
			b.Fatal(err)
		}
		if i%benchCompactEvery == 0 {
			if err := s.Compact(s.CurrentRV()); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := s.Compact(s.CurrentRV()); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	return s
}

func BenchmarkCreate(b *testing.B) {
	s := New(Options{})
	i := 0
	for b.Loop() {
		if _, err := s.Create("configmaps", benchKey(i), newConfigMap("ns", "x", i)); err != nil {
			b.Fatal(err)
		}
		i++
		if i%benchCompactEvery == 0 {
			if err := s.Compact(s.CurrentRV()); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkListPage reads a page of 500 from the middle of the key space, with
// Remaining computed, at two store sizes: the cost must not grow with n beyond
// its log.
func BenchmarkListPage(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			s := newBenchStore(b, n)
			opts := ListOptions{Start: benchKey(n / 2), Limit: 500}
			for b.Loop() {
				res, err := s.List("configmaps", opts)
				if err != nil || len(res.Items) != 500 || res.Remaining != int64(n/2-500) {
					b.Fatalf("List() = %d items, remaining %d, %v", len(res.Items), res.Remaining, err)
				}
			}
		})
	}
}

// BenchmarkChanges reads the last 100 of 100k retained events, as a watcher
// that is slightly behind does.
func BenchmarkChanges(b *testing.B) {
	const events, behind = 100_000, 100
	s := New(Options{})
	for i := range events {
		if _, err := s.Create("configmaps", benchKey(i), newConfigMap("ns", "x", i)); err != nil {
			b.Fatal(err)
		}
	}
	after := s.CurrentRV() - behind
	runtime.GC()
	for b.Loop() {
		evs, _, err := s.Changes("configmaps", after)
		if err != nil || len(evs) != behind {
			b.Fatalf("Changes() = %d events, %v", len(evs), err)
		}
	}
}
