package store

import "sync/atomic"

// EncodingSlots is the number of encodings an [Encodings] holds: one per
// wire format its user caches (fakeapiserver: JSON and protobuf).
const EncodingSlots = 2

// Encodings memoises the encoded forms of one stored object version, one
// per slot, so an object read by many LIST pages and watch events is
// encoded once per format. The store creates one with every version it
// keeps (and with the copy a delete reports) and hands it out beside the
// object ([ListResult.Encodings], [Event.Encodings]); it is freed with the
// version, when compaction drops the last snapshot and event that hold it.
// Which slot means which format is the caller's convention.
//
// All methods are safe for concurrent use, and a nil *Encodings caches
// nothing.
type Encodings struct {
	slots [EncodingSlots]atomic.Pointer[[]byte]
}

// newEncodings returns an empty cache for a new version.
func newEncodings() *Encodings { return &Encodings{} }

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
