package store

import (
	"fmt"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// initialRV is the CurrentRV of a fresh store, so the first write gets RV 2.
// etcd's revision starts at 1 too, and it keeps every real RV above "0",
// which the Kubernetes API reserves for "any version".
const initialRV = 1

// Options configures a [Store]. The zero value is valid.
type Options struct {
	// Indexes, when set, returns the secondary indexes of a resource
	// ([Index]); it is called once, at the resource's first write or
	// read, and must return the same indexes for a name every time.
	Indexes func(resource string) []Index
	// Codec, when set, returns the codec a version of resource holding
	// obj is kept in (see [Codec]), called at every write; nil (or a nil
	// Codec) keeps obj itself, decoded, for as long as the version lives.
	Codec func(resource string, obj runtime.Object) Codec
	// HotObjects is how many of the latest writes (of any resource) keep
	// their decoded objects strongly when they have a Codec; 0 means
	// 1024, negative none.
	HotObjects int
	// DecodeEveryRead keeps no decoded object of a version with a Codec
	// past its write (HotObjects is then ignored): every read decodes.
	// It is for tests of the Codec and of the code reading objects, which
	// must not tell the difference.
	DecodeEveryRead bool
}

// Store is an in-memory multi-version store of Kubernetes objects, grouped by
// resource and keyed by string. See the package documentation for RV
// semantics, ownership and concurrency. All methods are safe for concurrent use.
type Store struct {
	// mu guards the fields below.
	mu sync.Mutex
	// currentRV is the RV of the last write; it only grows.
	currentRV int64
	// compactedRV is the oldest readable RV; 0 <= compactedRV <= currentRV.
	compactedRV int64
	// resources holds the retained history of every resource written or watched.
	resources map[string]*resource
	// droppedRV is, per resource, the RV of its newest event that compaction
	// dropped: Changes after an RV below it would miss that event. Kept
	// apart from resources because an idle resource may be forgotten.
	droppedRV map[string]int64
	// notify is closed at the next write to any resource; nil while nobody waits.
	notify chan struct{}
	// keepRevisions is the automatic compaction policy set by
	// [Store.SetRetention]; 0 means off.
	keepRevisions int64
	// indexes is Options.Indexes.
	indexes func(resource string) []Index
	// checkpointEvery is how many writes to a resource pass between two
	// checkpoints of its state (see resource.snapshots); tests lower it
	// to exercise reads between checkpoints.
	checkpointEvery int
	// codec is Options.Codec.
	codec func(resource string, obj runtime.Object) Codec
	// hot holds the latest writes' objects strongly (Options.HotObjects).
	hot hotRing
}

// New returns an empty store whose [Store.CurrentRV] is 1 and
// [Store.CompactedRV] is 0.
func New(opts Options) *Store {
	hot := opts.HotObjects
	switch {
	case opts.DecodeEveryRead:
		hot = 0
	case hot == 0:
		hot = defaultHotObjects
	}
	return &Store{
		currentRV: initialRV, resources: make(map[string]*resource), droppedRV: make(map[string]int64),
		indexes: opts.Indexes, checkpointEvery: defaultCheckpointEvery, codec: opts.Codec,
		hot: hotRing{ring: make([]*Encodings, max(hot, 0)), keep: !opts.DecodeEveryRead},
	}
}

// newVersion returns the version holding obj, written to resource at rv
// (already stamped into obj), with its canonical encoding if resource has
// a codec. The caller holds mu.
func (s *Store) newVersion(resource string, obj runtime.Object, rv int64) (*version, error) {
	v := &version{rv: rv}
	if err := s.hold(&v.enc, resource, obj); err != nil {
		return nil, err
	}
	return v, nil
}

// hold makes e hold obj, a state of resource, as newVersion does.
func (s *Store) hold(e *Encodings, resource string, obj runtime.Object) error {
	var c Codec
	if s.codec != nil {
		c = s.codec(resource, obj)
	}
	return e.hold(obj, c)
}

// Create stores obj under (resource, key) with the next RV, stamps that RV into
// obj's metadata.resourceVersion and returns obj.
//
// The store takes ownership of obj: the caller must not modify it afterwards,
// and obj is handed out, shared, by later reads and events. Create returns
// [ErrAlreadyExists] if the key is live, and an unwrapped error if obj has no
// object metadata.
func (s *Store) Create(resource, key string, obj runtime.Object) (runtime.Object, error) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("create %s %q: %w", resource, key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.resourceLocked(resource)
	if _, ok := r.latest().get(key); ok {
		return nil, fmt.Errorf("create %s %q: %w", resource, key, ErrAlreadyExists)
	}
	rv := s.currentRV + 1
	setRV(acc, rv)
	v, err := s.newVersion(resource, obj, rv)
	if err != nil {
		return nil, fmt.Errorf("create %s %q: %w", resource, key, err)
	}
	s.nextRVLocked()
	ev := Event{Type: watch.Added, Resource: resource, Key: key, RV: rv, Encodings: &v.enc}
	s.commitLocked(r, ev, v)
	return obj, nil
}

// Update replaces the live object under (resource, key) with obj, stamped with
// the next RV, and returns obj. Ownership of obj passes to the store as in
// [Store.Create].
//
// expectRV 0 means unconditional. Otherwise Update returns [ErrConflict] if
// the live object's RV differs from expectRV. It returns [ErrNotFound] (checked
// first) if the key is not live.
func (s *Store) Update(resource, key string, obj runtime.Object, expectRV int64) (runtime.Object, error) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("update %s %q: %w", resource, key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, prev, err := s.liveLocked(resource, key, expectRV)
	if err != nil {
		return nil, fmt.Errorf("update %s %q: %w", resource, key, err)
	}
	rv := s.currentRV + 1
	setRV(acc, rv)
	v, err := s.newVersion(resource, obj, rv)
	if err != nil {
		return nil, fmt.Errorf("update %s %q: %w", resource, key, err)
	}
	s.nextRVLocked()
	ev := Event{Type: watch.Modified, Resource: resource, Key: key, RV: rv, Encodings: &v.enc, Prev: &prev.enc}
	s.commitLocked(r, ev, v)
	return obj, nil
}

// Delete removes the live object under (resource, key) with the next RV. It
// records a [watch.Deleted] event whose Object is a deep copy of the last state
// with metadata.resourceVersion set to the delete's RV (as the watch cache
// reports deletions), and returns that copy. PrevObject is the last state as
// stored. expectRV and the errors are as in [Store.Update].
func (s *Store) Delete(resource, key string, expectRV int64) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, prev, err := s.liveLocked(resource, key, expectRV)
	if err != nil {
		return nil, fmt.Errorf("delete %s %q: %w", resource, key, err)
	}
	// The stored object is shared with readers of older RVs, so the new RV
	// goes on a copy. The copy cannot fail the Accessor check: the original
	// passed it when it was stored.
	last := prev.obj().DeepCopyObject()
	acc, err := meta.Accessor(last)
	if err != nil {
		return nil, fmt.Errorf("delete %s %q: %w", resource, key, err)
	}
	rv := s.currentRV + 1
	setRV(acc, rv)
	enc := &Encodings{}
	if err := s.hold(enc, resource, last); err != nil {
		return nil, fmt.Errorf("delete %s %q: %w", resource, key, err)
	}
	s.nextRVLocked()
	ev := Event{Type: watch.Deleted, Resource: resource, Key: key, RV: rv, Encodings: enc, Prev: &prev.enc}
	s.commitLocked(r, ev, nil)
	return last, nil
}

// AdvanceRV records a write that changes no object, and returns its RV:
// [Store.CurrentRV] grows by one, no resource gets an event, and waiters on
// [Store.Notify] wake (a read waiting for that RV can now be served). It is
// what a write to an etcd key outside the registry does to the revision
// every LIST reports, such as kube-apiserver's compactor bumping
// compact_rev_key at each tick (apiserver pkg/storage/etcd3/compact.go
// Compact): that write is why a continue token expires on an idle cluster.
func (s *Store) AdvanceRV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := s.nextRVLocked()
	s.retainLocked()
	wake(&s.notify)
	return rv
}

// CurrentRV returns the RV of the last write to any resource, or 1 if there
// was none. Every RV in [CompactedRV, CurrentRV] is readable.
func (s *Store) CurrentRV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentRV
}

// CompactedRV returns the oldest readable RV: reads at an RV below it and
// [Store.Changes] with afterRV below it return [ErrCompacted]. It is 0 until
// the first [Store.Compact], so a fresh store serves every RV from 1 on.
func (s *Store) CompactedRV() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compactedRV
}

// resourceLocked returns the history of resource, creating it if needed.
func (s *Store) resourceLocked(name string) *resource {
	r, ok := s.resources[name]
	if !ok {
		r = &resource{}
		if s.indexes != nil {
			r.indexes = s.indexes(name)
		}
		s.resources[name] = r
	}
	return r
}

// liveLocked returns the live version of key and its resource, checking the
// write precondition expectRV (0 = none).
func (s *Store) liveLocked(name, key string, expectRV int64) (*resource, *version, error) {
	r := s.resources[name]
	cur, ok := r.latest().get(key)
	if !ok {
		return nil, nil, ErrNotFound
	}
	if expectRV != 0 && expectRV != cur.rv {
		return nil, nil, fmt.Errorf("expected rv %d, current rv %d: %w", expectRV, cur.rv, ErrConflict)
	}
	return r, cur, nil
}

// nextRVLocked allocates the RV of a write that is certain to be committed.
func (s *Store) nextRVLocked() int64 {
	s.currentRV++
	return s.currentRV
}

// commitLocked records ev, which stored v in r (nil for a delete), then
// wakes the waiters of r and of the whole store. Closing a channel never
// blocks, so this is safe under mu.
func (s *Store) commitLocked(r *resource, ev Event, v *version) {
	r.record(ev, v, s.checkpointEvery)
	s.hot.add(ev.Encodings)
	s.retainLocked()
	wake(&s.notify)
}

// setRV stamps rv into an object's metadata.resourceVersion, in the decimal
// form the API uses.
func setRV(acc metav1.Object, rv int64) {
	acc.SetResourceVersion(strconv.FormatInt(rv, 10))
}
