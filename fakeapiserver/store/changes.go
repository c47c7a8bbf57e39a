package store

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Event is one write to the store, as a watch reports it.
type Event struct {
	// Type is watch.Added, watch.Modified or watch.Deleted.
	Type watch.EventType
	// Resource and Key say what was written.
	Resource string
	Key      string
	// RV is the write's RV, also stamped into the object.
	RV int64
	// Encodings holds the new state ([Event.Object]) and caches its
	// encodings: for watch.Added and watch.Modified the same as the
	// version's in reads.
	Encodings *Encodings
	// Prev holds the state before the write ([Event.PrevObject]); nil
	// for watch.Added.
	Prev *Encodings
}

// Object is the new state (see [Encodings.Object]). For watch.Deleted it is
// a copy of the last state stamped with the delete's RV. Shared: do not
// modify.
func (ev Event) Object() runtime.Object { return ev.Encodings.Object() }

// PrevObject is the state before the write (nil for watch.Added), with its
// own RV. Shared: do not modify.
func (ev Event) PrevObject() runtime.Object { return ev.Prev.Object() }

// Changes returns every event of resource with RV > afterRV in RV order, and a
// channel that is closed at the next write to resource. Both are taken under
// one lock, so no event falls between them: a watcher loops on "Changes from
// its last RV, send, wait for the channel".
//
// afterRV above [Store.CurrentRV] is allowed and returns no events yet.
// Changes returns [ErrCompacted] if compaction dropped an event of resource
// with RV > afterRV (or afterRV < 0); with afterRV >= [Store.CompactedRV]
// that never happens.
//
// The slice and its events are shared and immutable: the caller must not
// modify them, and later writes or compactions never change them either.
func (s *Store) Changes(resource string, afterRV int64) ([]Event, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Only the resource's own dropped events matter, as in the watch cache's
	// per-resource history: a caught-up reader of a quiet resource keeps
	// going however far compaction (driven by other resources' writes)
	// moved, while one that would miss a dropped event of its resource gets
	// ErrCompacted.
	if dropped := s.droppedRV[resource]; afterRV < 0 || afterRV < dropped {
		return nil, nil, fmt.Errorf("changes of %s after rv %d, its events through rv %d compacted: %w", resource, afterRV, dropped, ErrCompacted)
	}
	// Creating the resource here gives its channel a home for the writer
	// to find; compaction forgets it again once nobody waits.
	r := s.resourceLocked(resource)
	return r.since(afterRV), waitOn(&r.notify), nil
}

// Notify returns a channel that is closed at the next write to any resource.
// A reader of a future RV waits on it, then checks [Store.CurrentRV] again.
func (s *Store) Notify() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return waitOn(&s.notify)
}

// waitOn returns the channel *ch, creating it if nobody waits yet. The
// caller holds Store.mu.
func waitOn(ch *chan struct{}) <-chan struct{} {
	if *ch == nil {
		*ch = make(chan struct{})
	}
	return *ch
}

// wake closes the channel *ch, if anybody waits on it, and clears it so the
// next waiter gets a fresh one. The caller holds Store.mu.
func wake(ch *chan struct{}) {
	if *ch != nil {
		close(*ch)
		*ch = nil
	}
}
