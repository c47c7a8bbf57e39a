package store

import (
	"slices"
	"sort"
	"sync/atomic"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
)

// version is one state of one key. Trees hold it by pointer, so the
// O(log n) nodes a write copies stay small, and its encodings cache lives
// in it rather than in an allocation of its own.
type version struct {
	// enc holds the object (enc.Object) and caches its encodings; shared
	// with the write's Event (&enc). It is the first field: see
	// encodings.
	enc Encodings
	rv  int64 // RV of the write that produced the object; equals its metadata.resourceVersion
}

// obj is the object v stored.
func (v *version) obj() runtime.Object { return v.enc.Object() }

// encodings is &v.enc without reading v: v is never nil, but the
// compiler does not know it and checks &v.enc by loading from v, a cache
// miss for each item of a LIST page whose versions are cold, paid again
// when the page's encodings are read (CachedSlots, which overlaps its
// misses). enc is v's first field, so v points at it.
func (v *version) encodings() *Encodings {
	return (*Encodings)(unsafe.Pointer(v))
}

// snapshot is the whole state of one resource at rv, a checkpoint: reads
// at rv and until the next checkpoint start from its tree.
type snapshot struct {
	rv   int64
	tree tree[*version]
}

// defaultCheckpointEvery is how many writes to a resource a checkpoint
// (a frozen tree, see resource.snapshots) covers: a read between two
// checkpoints replays at most this many minus one writes over the older
// one (see state), and the writes of one batch share the nodes they copy,
// so a batch of creates of neighbouring keys copies a few nodes each
// rather than a root-to-leaf path each.
const defaultCheckpointEvery = 64

// resource is the retained history of one resource. It is guarded by
// Store.mu; the trees and events it hands out are immutable and may be read
// without the lock.
type resource struct {
	// snapshots are RV-ordered checkpoints: one after every
	// Store.checkpointEvery writes to this resource, preceded by at most
	// one older one (the state at the compaction point). The state at an
	// RV is its newest checkpoint at or below it, with the writes to this
	// resource between the two (events) replayed over it (see state); before the
	// first checkpoint it is an empty tree with those writes.
	snapshots []snapshot
	// work is the latest state: the newest checkpoint's tree with the
	// writes since replayed by edits (tree.editPut), so only a write that
	// takes the lock reads it. A checkpoint freezes it.
	work tree[*version]
	// sinceCheckpoint counts the writes after the newest checkpoint.
	sinceCheckpoint int
	// events holds exactly this resource's events with RV > compactedRV, in
	// RV order. An element is never written once appended, and slices handed
	// out are capped at their length, so a caller's slice can never observe a
	// later append or compaction (compaction copies into a new array).
	events []Event
	// versions holds the version each event of events wrote (same
	// index), nil for a delete: what a read between checkpoints replays.
	// Appended and compacted with events, and never written otherwise.
	versions []*version
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
	// assembled is the last state a read assembled (readAt.state), set
	// by readers without the lock; compaction clears it, so it does not
	// keep a dropped checkpoint's tree.
	assembled atomic.Pointer[assembledState]
}

// latest returns the current state, for a caller holding Store.mu: it is
// the working tree, which the next write may change. A nil resource is
// empty.
func (r *resource) latest() tree[*version] {
	if r == nil {
		return tree[*version]{}
	}
	return r.work
}

// at returns what a read of the state at rv needs, for the caller to
// assemble (readAt.state) without the lock: the newest checkpoint at or
// below rv and the writes after it up to rv. The caller holds Store.mu.
func (r *resource) at(rv int64) readAt {
	if r == nil {
		return readAt{}
	}
	var ra readAt
	if i := r.firstSnapshotAfter(rv); i > 0 {
		ra.base = r.snapshots[i-1]
	}
	lo, hi := r.firstEventAfter(ra.base.rv), r.firstEventAfter(rv)
	ra.events, ra.versions = r.events[lo:hi:hi], r.versions[lo:hi:hi]
	ra.assembled = &r.assembled
	return ra
}

// firstSnapshotAfter returns the index of the first snapshot with RV > rv.
func (r *resource) firstSnapshotAfter(rv int64) int {
	return sort.Search(len(r.snapshots), func(i int) bool { return r.snapshots[i].rv > rv })
}

// firstEventAfter returns the index of the first event with RV > rv.
func (r *resource) firstEventAfter(rv int64) int {
	return sort.Search(len(r.events), func(i int) bool { return r.events[i].RV > rv })
}

// record appends a write, v being the version it stored (nil for a
// delete), applies it to the working tree, checkpoints the tree after
// every checkpointEvery writes, and wakes this resource's waiters.
func (r *resource) record(ev Event, v *version, checkpointEvery int) {
	if v != nil {
		r.work = r.work.editPut(ev.Key, v)
	} else {
		r.work, _ = r.work.editRemove(ev.Key)
	}
	r.indexWrite(ev)
	r.events = append(r.events, ev)
	r.versions = append(r.versions, v)
	if r.sinceCheckpoint++; r.sinceCheckpoint >= checkpointEvery {
		r.snapshots = append(r.snapshots, snapshot{rv: ev.RV, tree: r.work.freeze()})
		r.sinceCheckpoint = 0
	}
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

// compact drops what no read at an RV >= rv needs: every checkpoint older
// than the newest one at or below rv, and every event with RV <= rv. The
// writes between that checkpoint and rv are replayed onto it (copying
// paths, as a persistent tree does) into a checkpoint at the last of
// them, so no read needs the dropped events. The kept parts are copied so
// the dropped snapshots' trees and events become garbage. It returns the
// RV of the newest event it dropped, 0 if none.
func (r *resource) compact(rv int64) (droppedRV int64) {
	i := r.firstSnapshotAfter(rv)
	var base snapshot
	if i > 0 {
		base = r.snapshots[i-1]
	}
	if lo, hi := r.firstEventAfter(base.rv), r.firstEventAfter(rv); lo < hi {
		t := base.tree
		for j := lo; j < hi; j++ {
			if v := r.versions[j]; v != nil {
				t = t.put(r.events[j].Key, v)
			} else {
				t, _ = t.remove(r.events[j].Key)
			}
		}
		base = snapshot{rv: r.events[hi-1].RV, tree: t}
		r.snapshots = append([]snapshot{base}, r.snapshots[i:]...)
	} else if i > 1 {
		r.snapshots = slices.Clone(r.snapshots[i-1:])
	}
	if i := r.firstEventAfter(rv); i > 0 {
		droppedRV = r.events[i-1].RV
		r.events = slices.Clone(r.events[i:])
		r.versions = slices.Clone(r.versions[i:])
	}
	r.indexCompact(rv)
	r.assembled.Store(nil)
	return droppedRV
}

// isDisposable reports whether forgetting r loses nothing: it is empty, has no
// retained events and nobody waits on it. A resource created again later
// reads as empty before its first snapshot, which is what r says too.
func (r *resource) isDisposable() bool {
	return r.latest().len() == 0 && len(r.events) == 0 && r.notify == nil
}
