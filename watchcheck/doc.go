// Package watchcheck checks recorded Kubernetes watch streams against the
// guarantees etcd's watch API makes, as etcd's robustness suite
// (tests/robustness/validate/watch.go) defines and checks them, plus the
// per-object rules a Kubernetes watch adds on top.
//
// A check takes a [History], every change the watched resource went
// through in resourceVersion order, and [Stream]s, the events watches
// delivered with the parameters they were opened with. [Check] projects the
// history through each stream's start point, namespace, label selector and
// field selector (a change that moves an object into the selection is
// ADDED, out of it DELETED, as the watch cache's cacheWatcher converts
// them) and compares:
//
//	Ordered       events are ordered by resourceVersion: no event precedes
//	              one already delivered (a BOOKMARK may repeat the last RV,
//	              never go below it); an ERROR ends the stream.
//	Unique        no event is delivered twice.
//	Atomic        an event is one whole write: the object (key and UID) the
//	              history changed at the event's RV. For Kubernetes, where
//	              every write has its own RV, this is etcd's "complete
//	              revisions" rule.
//	Reliable      no gap: after the first event, each event is the next
//	              matching change, and nothing else is delivered.
//	Resumable     a watch from RV r gets exactly what a continuous watch
//	              gets after r: its first event is the first matching change
//	              after r (for sendInitialEvents, after the snapshot).
//	Bookmarkable  a BOOKMARK at RV b promises every matching change up to b
//	              was delivered; the initial-events-end bookmark promises the
//	              initial events were the selection's state at b.
//	PerObject     each object's events form a lifecycle in the stream's
//	              view: ADDED when absent, then MODIFIED, then DELETED, one
//	              UID per life, with the type the projection gives.
//
// A stream may end anywhere (a cut, a timeout, a 410): a correct stream is
// a prefix of its projection. Streams are recorded with [FromWatchEvent],
// [Recorder] (a wrapped watch.Interface) or [Transport] (an HTTP round
// tripper that tees every JSON watch response, for client-go clients,
// informers, and streams through a proxy in front of a real server).
//
// Field selectors match metadata.name and metadata.namespace (from a
// change's key) and the selectable fields a change carries ([FieldsOf]
// reads the built-in kinds' from an object; a custom resource's
// selectableFields are read for streams that select on them).
//
// A History must be complete from the state it starts in: either the
// collection was empty (a fresh namespace or label) or its first changes
// create the objects. Use [HistoryFromEvents] to build one from a trusted
// unfiltered watch.
package watchcheck
