package store

import (
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
)

// version is one state of one key. Trees hold it by pointer, so the
// O(log n) nodes a write copies stay small, and its encodings cache lives
// in it rather than in an allocation of its own.
type version struct {
	obj runtime.Object
	rv  int64 // RV of the write that produced obj; equals obj's metadata.resourceVersion
	// enc caches obj's encodings; shared with the write's Event (&enc).
	enc Encodings
}

// snapshot is the whole state of one resource from rv until the next snapshot.
type snapshot struct {
	rv   int64
	tree tree[*version]
}

// resource is the retained history of one resource. It is guarded by
// Store.mu; the trees and events it hands out are immutable and may be read
// without the lock.
type resource struct {
	// snapshots is RV-ordered: one per write to this resource with RV >
	// compactedRV, preceded by at most one older snapshot (the state at
	// compactedRV). Reading before the first snapshot reads an empty resource.
	snapshots []snapshot
	// events holds exactly this resource's events with RV > compactedRV, in
	// RV order. An element is never written once appended, and slices handed
	// out are capped at their length, so a caller's slice can never observe a
	// later append or compaction (compaction copies into a new array).
	events []Event
	// notify is closed at the next write to this resource; nil while nobody
	// waits, so writes nobody watches allocate no channel.
	notify chan struct{}
	// indexes are the secondary indexes kept with every snapshot
	// (Options.Indexes), fixed when the resource is first written.
	indexes []Index
	// idx are the indexes of every retained state (nil until a write
	// gives an object an index value): see indexTrees.
	idx indexTrees
	// drops are the index entries whose span ended, in RV order, for
	// compaction to remove.
	drops []indexDrop
}

// latest returns the current state. A nil resource is empty.
func (r *resource) latest() tree[*version] {
	if r == nil || len(r.snapshots) == 0 {
		return tree[*version]{}
	}
	return r.snapshots[len(r.snapshots)-1].tree
}

// at returns the state at rv: the newest snapshot with RV <= rv, or empty.
func (r *resource) at(rv int64) snapshot {
	if r == nil {
		return snapshot{}
	}
	i := r.firstSnapshotAfter(rv)
	if i == 0 {
		return snapshot{}
	}
	return r.snapshots[i-1]
}

// firstSnapshotAfter returns the index of the first snapshot with RV > rv.
func (r *resource) firstSnapshotAfter(rv int64) int {
	return sort.Search(len(r.snapshots), func(i int) bool { return r.snapshots[i].rv > rv })
}

// firstEventAfter returns the index of the first event with RV > rv.
func (r *resource) firstEventAfter(rv int64) int {
	return sort.Search(len(r.events), func(i int) bool { return r.events[i].RV > rv })
}

// record appends a write and its resulting state, and wakes this resource's
// waiters.
func (r *resource) record(ev Event, t tree[*version]) {
	r.snapshots = append(r.snapshots, snapshot{rv: ev.RV, tree: t})
	r.indexWrite(ev)
	r.events = append(r.events, ev)
	wake(&r.notify)
}

// since returns the events with RV > afterRV. The result aliases r.events
// with its capacity capped at its length: see the events field.
func (r *resource) since(afterRV int64) []Event {
	i, n := r.firstEventAfter(afterRV), len(r.events)
	if i == n {
		return nil
	}
	return r.events[i:n:n]
}

// compact drops what no read at an RV >= rv needs: every snapshot older than
// the newest one at or below rv, and every event with RV <= rv. The kept parts
// are copied so the dropped snapshots' trees and events become garbage. It
// returns the RV of the newest event it dropped, 0 if none.
func (r *resource) compact(rv int64) (droppedRV int64) {
	if i := r.firstSnapshotAfter(rv); i > 1 {
		r.snapshots = slices.Clone(r.snapshots[i-1:])
	}
	if i := r.firstEventAfter(rv); i > 0 {
		droppedRV = r.events[i-1].RV
		r.events = slices.Clone(r.events[i:])
	}
	r.indexCompact(rv)
	return droppedRV
}

// isDisposable reports whether forgetting r loses nothing: it is empty, has no
// retained events and nobody waits on it. A resource created again later
// reads as empty before its first snapshot, which is what r says too.
func (r *resource) isDisposable() bool {
	return r.latest().len() == 0 && len(r.events) == 0 && r.notify == nil
}
