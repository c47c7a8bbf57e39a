package store

import "fmt"

// Compact makes rv the oldest readable RV, like etcd's compaction. It keeps
// exactly what is needed to read every resource at any RV >= rv and to replay
// every event with RV > rv, and drops the rest so the garbage collector can
// free the tree nodes no kept snapshot shares.
//
// Afterwards [Store.CompactedRV] is rv; reads at RVs below rv, and
// [Store.Changes] with afterRV below rv, return [ErrCompacted]. Compact returns
// [ErrFutureRV] if rv > [Store.CurrentRV] and does nothing if rv <=
// CompactedRV. It costs O(retained events + retained snapshots), so callers
// should compact in batches rather than after every write.
func (s *Store) Compact(rv int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv > s.currentRV {
		return fmt.Errorf("compact to rv %d, current rv %d: %w", rv, s.currentRV, ErrFutureRV)
	}
	if rv <= s.compactedRV {
		return nil
	}
	for name, r := range s.resources {
		r.compact(rv)
		if r.isDisposable() {
			delete(s.resources, name)
		}
	}
	s.compactedRV = rv
	return nil
}
