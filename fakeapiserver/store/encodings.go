package store

import "sync/atomic"

// EncodingSlots is the number of encodings an [Encodings] holds: one per
// wire format its user caches (fakeapiserver: the object's JSON and
// protobuf, and its metadata-only forms in both).
const EncodingSlots = 4

// Encodings memoises the encoded forms of one stored object version, one
// per slot, so an object read by many LIST pages and watch events is
// encoded once per format. The store creates one with every version it
// keeps (and with the copy a delete reports) and hands it out beside the
// object ([ListResult.Encodings], [Event.Encodings]); it is freed with the
// version, when compaction drops the last snapshot and event that hold it.
// Which slot means which format is the caller's convention.
//
// Beside the encodings it memoises one derived view of the object (see
// [Encodings.View]), and it holds the object itself ([Encodings.Object]).
//
// All methods are safe for concurrent use, and a nil *Encodings caches
// nothing.
type Encodings struct {
	slots [EncodingSlots]atomic.Pointer[[]byte]
	view  atomic.Pointer[viewMemo]
	// obj holds the version's object (see Object): strongly without a
	// codec, else strongly while hot and weakly after.
	obj atomic.Pointer[objRef]
	// codec, when set, wrote the canonical encoding into its slot at the
	// write; Object decodes it when the weak hold is gone.
	codec Codec
}

// viewMemo is one memoised view and the key it was derived under.
type viewMemo struct {
	key any
	val any
}

// Get returns the bytes cached in slot, calling encode to fill it on the
// first call. The object is immutable, so every call of encode yields the
// same bytes: two callers that miss together both encode and the first to
// finish wins, which costs a duplicate encode instead of a lock on every
// hit. An error is returned and not cached. The bytes are shared: callers
// must not modify them.
func (e *Encodings) Get(slot int, encode func() ([]byte, error)) ([]byte, error) {
	if e == nil {
		return encode()
	}
	if p := e.slots[slot].Load(); p != nil {
		return *p, nil
	}
	b, err := encode()
	if err != nil {
		return nil, err
	}
	if !e.slots[slot].CompareAndSwap(nil, &b) {
		return *e.slots[slot].Load(), nil
	}
	return b, nil
}

// View returns the value memoised under key, calling build to derive it
// when the memo is empty or was filled under another key, which it then
// replaces. It is for a view of the object that depends on state outside
// the store (fakeapiserver: a custom resource as its CRD's current schema
// defaults it on read), named by a comparable key that changes whenever
// that state does, so a stale view is never returned. One view is kept:
// readers alternating between two keys rebuild each time, which costs
// only the build. An error is returned and not memoised. The value is
// shared: callers must not modify it.
func (e *Encodings) View(key any, build func() (any, error)) (any, error) {
	if e == nil {
		return build()
	}
	if m := e.view.Load(); m != nil && m.key == key {
		return m.val, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	e.view.Store(&viewMemo{key: key, val: v})
	return v, nil
}
