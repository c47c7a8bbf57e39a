package store

import "fmt"

// retentionBatch is the fraction (1/retentionBatch) of the retained
// revisions by which the history may exceed its SetRetention limit before
// a write compacts it: 1/4 keeps the amortised compaction cost per write
// O(1) and the memory overshoot at 25%.
const retentionBatch = 4

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
	s.compactLocked(rv)
	return nil
}

// SetRetention sets the automatic compaction policy: with keepRevisions > 0,
// every write leaves at least the newest keepRevisions RVs readable
// (CurrentRV-keepRevisions+1 through CurrentRV) and compacts everything
// older, in batches of [retentionBatch] of keepRevisions so the O(retained)
// cost of a compaction is paid once per batch of writes, not per write; at
// most keepRevisions plus one batch are retained. This is etcd's
// revision-based auto-compaction (--auto-compaction-mode=revision) without
// its timer. keepRevisions <= 0 turns the policy off (the default); explicit
// [Store.Compact] works either way. The next write applies a new policy.
func (s *Store) SetRetention(keepRevisions int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepRevisions = max(keepRevisions, 0)
}

// retainLocked applies the SetRetention policy after a write.
func (s *Store) retainLocked() {
	k := s.keepRevisions
	if k <= 0 {
		return
	}
	target := s.currentRV - k + 1
	if target-s.compactedRV >= max(k/retentionBatch, 1) {
		s.compactLocked(target)
	}
}

// compactLocked is Compact for an rv <= currentRV.
func (s *Store) compactLocked(rv int64) {
	if rv <= s.compactedRV {
		return
	}
	for name, r := range s.resources {
		if dropped := r.compact(rv); dropped > 0 {
			s.droppedRV[name] = dropped
		}
		if r.isDisposable() {
			delete(s.resources, name)
		}
	}
	s.compactedRV = rv
}
