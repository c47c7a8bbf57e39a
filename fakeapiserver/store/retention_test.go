package store

import (
	"errors"
	"fmt"
	"testing"
)

// TestSetRetention checks the revision-count policy: after every write at
// least the newest K RVs are readable and at most K plus one batch (K/4)
// are retained; 0 turns it off.
func TestSetRetention(t *testing.T) {
	const keep = 8
	s := New(Options{})
	s.SetRetention(keep)
	for i := range 40 {
		if _, err := s.Create("configmaps", fmt.Sprintf("ns/cm-%02d", i), newConfigMap("ns", fmt.Sprintf("cm-%02d", i), i)); err != nil {
			t.Fatal(err)
		}
		cur, compacted := s.CurrentRV(), s.CompactedRV()
		if cur < keep {
			continue
		}
		if retained := cur - compacted + 1; retained < keep || retained >= keep+keep/retentionBatch {
			t.Fatalf("after write %d: current %d, compacted %d: %d RVs retained, want [%d, %d)", i, cur, compacted, retained, keep, keep+keep/retentionBatch)
		}
		if _, err := s.List("configmaps", ListOptions{RV: cur - keep + 1}); err != nil {
			t.Fatalf("List at the oldest kept rv %d = %v", cur-keep+1, err)
		}
	}
	if _, err := s.List("configmaps", ListOptions{RV: s.CompactedRV() - 1}); !errors.Is(err, ErrCompacted) {
		t.Errorf("List below the compaction point = %v, want ErrCompacted", err)
	}
	s.SetRetention(0)
	before := s.CompactedRV()
	for i := range 20 {
		if _, err := s.Create("configmaps", fmt.Sprintf("ns/x-%02d", i), newConfigMap("ns", fmt.Sprintf("x-%02d", i), i)); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.CompactedRV(); got != before {
		t.Errorf("CompactedRV() with retention off moved from %d to %d", before, got)
	}
}
