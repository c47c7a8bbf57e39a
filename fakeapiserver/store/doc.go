// Package store is the multi-version (MVCC) object store under the fake API
// server: it keeps every state of every resource since the last compaction,
// readable at any retained resourceVersion (RV), and the log of writes that
// watches replay.
//
// # Resource versions
//
// RVs come from one global counter, like etcd's revision: a fresh store's
// [Store.CurrentRV] is 1, and every Create, Update or Delete, of any
// resource, takes the next integer. An object's metadata.resourceVersion is
// the RV of its last write. [Store.CompactedRV] is the oldest readable RV (0
// until the first [Store.Compact]). A read at RV r sees the state after every
// write with RV <= r; it is valid for CompactedRV <= r <= CurrentRV, gives
// [ErrCompacted] below that range and [ErrFutureRV] above it, and r = 0 means
// "latest". A resource never written before r reads as empty at r.
// Changes after an RV is per resource, like the watch cache's history: it
// fails with [ErrCompacted] only when compaction dropped one of that
// resource's own events after the RV, so a reader of a quiet resource is not
// cut off by compaction that other resources' writes moved on.
//
// # Ownership
//
// Objects passed to Create and Update become the store's; the store stamps
// their resourceVersion and hands the very same objects out to later reads
// and events, as long as they are held somewhere. With a [Codec] for
// them ([Options.Codec]) the store itself keeps each version as its
// canonical encoding, holding the decoded object strongly only for the
// latest writes ([Options.HotObjects]) and weakly after that: a read of
// a version whose object was collected decodes an equal one
// ([Encodings.Object]), so an object nobody holds costs its encoding.
// Every object handed out is shared and immutable by contract:
// callers that want to modify one must DeepCopy it first. The store copies
// only where it must: the object of a DELETED event is a copy of the last
// state carrying the delete's RV, because the last state itself is still what
// reads at older RVs return.
//
// # Encoding caches
//
// Every version (and every DELETED event's copy) comes with an [Encodings],
// a per-version memo of its wire encodings, handed out beside the object
// in [ListResult.Encodings] and [Event.Encodings]: a version's entry in a
// read and its write's event share one. The caller fills it lazily, once
// per format, so a LIST page or a watch event is a copy of cached bytes
// rather than an encode. It lives and dies with the version: compaction
// frees it with the last snapshot and event that hold the version, so its
// memory is bounded by what the store retains.
// It also memoises one view of the object derived from state the store does
// not know ([Encodings.View], keyed by that state), such as a custom
// resource defaulted by its CRD's current schema; with a [Codec] the view
// is held as the object is, strongly while hot and weakly after.
//
// # Data structure
//
// Each resource keeps an RV-ordered slice of checkpoints (rv, root), one
// per 64 writes to it, where root is a persistent treap (type tree,
// tree.go) holding the whole state of the resource after that write, and
// the log of its writes (its events, each with the version it stored).
// The state at an RV is the newest checkpoint at or below it with the
// writes after it up to the RV laid over it (type state, state.go): at
// most 63 of them, sorted once per read. The treap is path-copying: a
// write copies the O(log n) nodes on one root-to-leaf path and shares the
// rest with the previous root, so older checkpoints never change. Between
// two checkpoints the latest state is a working tree that only writers,
// under the lock, read: a write changes in place the nodes an earlier
// write of the same batch copied (transient nodes), and the checkpoint
// freezes them, so a batch copies the union of its writes' paths, once,
// rather than a path per write; a batch of creates of neighbouring keys,
// the common case, costs a few nodes a write. Every node records its
// subtree size. This gives:
//
//   - reading at RV r: binary search for the newest checkpoint with rv <= r
//     and for the writes after it, O(log w) in the number of retained
//     writes w, plus O(k log k) to lay the k < 64 writes over it;
//   - a page of k keys from a start key: O(log n + k), walking in key order;
//   - the number of keys after a position (ListResult.Remaining): O(log n)
//     plus the writes laid over, as a difference of two ranks, without
//     scanning;
//   - lock-free reads: checkpoints' nodes and logged writes are immutable,
//     so a reader takes the lock only to pick them, then reads while
//     writers go on.
//
// This is the design of kube-apiserver's watch cache with
// ListFromCacheSnapshot, which keeps a copy-on-write btree snapshot per event
// RV (apiserver pkg/storage/cacher/store/watch_cache_storage.go,
// store_btree.go), with sizes added so counting is O(log n) where the
// btree's Count is O(k), and a checkpoint per batch of writes where it
// keeps a snapshot per event. A treap rather than a balanced tree keeps the write
// paths short (no rebalancing cases) and, with priorities hashed from the
// key, makes a tree's shape a pure function of its key set. The
// alternatives fall short: a map plus a per-key version list answers "state
// at r" only by scanning all keys, and an etcd-style key index needs a
// separate ordered structure for paging and still scans to count.
//
// Beside the checkpoints, each resource keeps its events with RV above the
// compaction point in an RV-ordered slice that is only ever appended to;
// [Store.Changes] hands out capped sub-slices of it without copying.
// [Store.Compact] drops the checkpoints and events no retained RV needs
// (it copies what it keeps, so slices handed out stay valid and dropped
// trees become garbage); the writes between the newest checkpoint it
// keeps and the compaction point are replayed onto that checkpoint, into
// one at the compaction point, so no read needs the dropped events.
// Without compaction memory grows by up to O(log n) nodes per write, so
// the server must compact, as etcd does. Secondary indexes
// ([Options.Indexes]) are not copied per write: one tree an index holds
// the entries of every retained state, each with the RVs during which it
// stands (index.go), and only its latest version is kept.
//
// # Concurrency
//
// One mutex guards all of the store's state. A write takes it, assigns the
// RV, records the new snapshot and event, and closes the notify channels of
// its resource and of the store ([Store.Changes], [Store.Notify]); waking a
// waiter is a channel close, which never blocks, and no caller code runs
// under the lock. Watchers pull: they re-call Changes from their last RV when
// their channel fires, so a writer never waits for a reader. The lock is a plain mutex rather than
// a reader/writer lock because every critical section is a few binary
// searches, and even the read-side Changes and Notify write (they create
// notify channels lazily, so writes nobody watches allocate none).
package store
