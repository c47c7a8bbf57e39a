package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestListNameAfterStart: a per-namespace name lookup resumed inside a
// namespace (a continue token's start) skips that namespace's key at or
// before the start, as a walk of every key does.
func TestListNameAfterStart(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	for _, k := range [][2]string{{"ns-a", "x"}, {"ns-a", "xx"}, {"ns-b", "x"}, {"ns-b", "y"}} {
		if _, err := s.Create("configmaps", k[0]+"/"+k[1], newConfigMap(k[0], k[1], 0)); err != nil {
			t.Fatal(err)
		}
	}
	for _, start := range []string{"", "ns-a/x\x00", "ns-a/xx", "ns-b/x\x00"} {
		opts := ListOptions{Start: start, Limit: 1, Filter: func(obj runtime.Object) bool { return view(obj).Name == "x" }}
		walked, err := s.List("configmaps", opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Name = "x"
		named, err := s.List("configmaps", opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(viewPage(walked), viewPage(named), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("start %q: List with Name mismatch (-walk +named):\n%s", start, diff)
		}
	}
}

// TestIndexAcrossSpans: an index read at an older RV sees the value a key
// had then, whatever later writes did to it: a key that lost the value and
// got it back (its entry's span restarted), and, after a compaction to the
// RV just before the write that took the value away, a key that still had
// it at that RV.
func TestIndexAcrossSpans(t *testing.T) {
	t.Parallel()
	s := New(Options{Indexes: machineIndexes})
	write := func(key string, v int) int64 {
		t.Helper()
		var err error
		if _, gerr := s.Get("configmaps", key, 0); gerr != nil {
			_, err = s.Create("configmaps", key, newConfigMap("ns", key, v))
		} else {
			_, err = s.Update("configmaps", key, newConfigMap("ns", key, v), 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		return s.CurrentRV()
	}
	even := func(rv int64) []string {
		t.Helper()
		res, err := s.List("configmaps", ListOptions{RV: rv, Index: &IndexValue{Name: "parity", Value: "even"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Keys
	}
	a1 := write("ns/a", 2) // even
	b1 := write("ns/b", 2) // even
	write("ns/a", 1)       // odd
	a3 := write("ns/a", 4) // even again: a's span restarts
	write("ns/b", 3)       // odd: b's span ends
	for _, c := range []struct {
		rv   int64
		want []string
	}{{a1, []string{"ns/a"}}, {b1, []string{"ns/a", "ns/b"}}, {b1 + 1, []string{"ns/b"}}, {a3, []string{"ns/a", "ns/b"}}, {0, []string{"ns/a"}}} {
		if diff := cmp.Diff(c.want, even(c.rv), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("even at rv %d (-want +got):\n%s", c.rv, diff)
		}
	}
	if err := s.Compact(a3); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ns/a", "ns/b"}, even(a3), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("even at rv %d after compacting to it (-want +got):\n%s", a3, diff)
	}
}
