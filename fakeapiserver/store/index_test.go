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
