package store

import (
	"reflect"
	"sync/atomic"
	"unsafe"
	"weak"
)

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
	slots [EncodingSlots]atomic.Pointer[encoded]
	view  atomic.Pointer[viewMemo]
	// obj holds the version's object (see Object): strongly without a
	// codec, else strongly while hot and weakly after.
	obj atomic.Pointer[objRef]
	// codec, when set, wrote the canonical encoding into its slot at the
	// write; Object decodes it when the weak hold is gone.
	codec Codec
}

// encoded is one cached encoding in a single allocation: its length,
// then its bytes (newEncoded). A slot points at it directly, so reading a
// cached encoding costs one dependent load before its bytes, whose first
// cache line holds the length too; a pointer to a slice header in an
// allocation of its own cost two, each a cache miss on a LIST page whose
// items the client's decoding evicted. It also saves memory: the
// header's 24 bytes, less the length's 8 (a stored ConfigMap: 659 → 651
// live bytes, BenchmarkMemoryPerObject in fakeapiserver).
type encoded struct {
	n int // the number of bytes after this word
}

// encodedWord is the size of the words an encoded is allocated in.
const encodedWord = int(unsafe.Sizeof(uint64(0)))

// newEncoded copies b into a new encoded: an allocation of words (so the
// length is aligned) holding no pointers, which the collector does not
// scan.
func newEncoded(b []byte) *encoded {
	words := make([]uint64, encodedWords(len(b)))
	p := (*encoded)(unsafe.Pointer(&words[0]))
	p.n = len(b)
	copy(p.bytes(), b)
	return p
}

// bytes are the encoding's bytes, shared (capped at their length, so an
// append copies).
func (p *encoded) bytes() []byte {
	if p.n == 0 {
		return []byte{} // not past the allocation's end
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(p), encodedWord)), p.n)
}

// viewMemo is one memoised view and the key it was derived under. A
// view of a version with a [Codec] is held like its object (strongly
// while the version is among the latest writes, weakly after), when the
// view is a pointer a weak hold can follow.
type viewMemo struct {
	key    any
	strong any
	typ    reflect.Type // the pointed-to type of a weakly held *T
	weak   weak.Pointer[byte]
}

// get returns the view m holds, false if it was collected.
func (m *viewMemo) get() (any, bool) {
	if m.typ == nil {
		return m.strong, true
	}
	p := m.weak.Value()
	if p == nil {
		return nil, false
	}
	return reflect.NewAt(m.typ, unsafe.Pointer(p)).Interface(), true
}

// weakened is m holding its view weakly, or m itself if the view is held
// weakly already or is no pointer.
func (m *viewMemo) weakened() *viewMemo {
	v := reflect.ValueOf(m.strong)
	if m.typ != nil || v.Kind() != reflect.Pointer || v.IsNil() {
		return m
	}
	return &viewMemo{key: m.key, typ: v.Type().Elem(), weak: weak.Make((*byte)(v.UnsafePointer()))}
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
		return p.bytes(), nil
	}
	b, err := encode()
	if err != nil {
		return nil, err
	}
	p := newEncoded(b)
	if !e.slots[slot].CompareAndSwap(nil, p) {
		return e.slots[slot].Load().bytes(), nil
	}
	return p.bytes(), nil
}

// CachedSlots appends to dst, for each of encs in order, the bytes cached
// in its slot (as [Encodings.Get] would return them), or nil where
// there are none yet (or the Encodings is nil), and returns the extended
// slice. A LIST page reads its items' encodings with it: it loads them a
// chunk at a time, first every slot of the chunk, then every encoding's
// length, so the cache misses of a cold page's items, which do not depend
// on each other, overlap instead of coming one after the other.
func CachedSlots(encs []*Encodings, slot int, dst [][]byte) [][]byte {
	var chunk [cachedChunk]*encoded
	for len(encs) > 0 {
		part := encs[:min(len(encs), cachedChunk)]
		encs = encs[len(part):]
		for i, e := range part {
			if e != nil {
				chunk[i] = e.slots[slot].Load()
			} else {
				chunk[i] = nil
			}
		}
		for _, p := range chunk[:len(part)] {
			if p == nil {
				dst = append(dst, nil)
			} else {
				dst = append(dst, p.bytes())
			}
		}
	}
	return dst
}

// cachedChunk is how many items CachedSlots loads at a time.
const cachedChunk = 128

// View returns the value memoised under key, calling build to derive it
// when the memo is empty or was filled under another key, which it then
// replaces. It is for a view of the object that depends on state outside
// the store (fakeapiserver: a custom resource as its CRD's current schema
// defaults it on read), named by a comparable key that changes whenever
// that state does, so a stale view is never returned. One view is kept:
// readers alternating between two keys rebuild each time, which costs
// only the build. An error is returned and not memoised. The value is
// shared: callers must not modify it.
//
// A version with a [Codec] holds its view as it holds its object:
// strongly while it is among the latest writes, weakly after (when the
// view is a pointer), so a collected view is built again; under
// [Options.DecodeEveryRead] only a view that is no pointer is kept.
func (e *Encodings) View(key any, build func() (any, error)) (any, error) {
	if e == nil {
		return build()
	}
	if m := e.view.Load(); m != nil && m.key == key {
		if v, ok := m.get(); ok {
			return v, nil
		}
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	if e.codec == nil {
		e.view.Store(&viewMemo{key: key, strong: v})
		return v, nil
	}
	m := &viewMemo{key: key, strong: v}
	r := e.obj.Load()
	if r != nil && r.drop {
		if m.weakened() == m {
			e.view.Store(m) // no pointer: no object kept
		}
		return v, nil
	}
	if r == nil || r.strong == nil {
		m = m.weakened()
	}
	e.view.Store(m)
	if r := e.obj.Load(); r == nil || r.strong == nil {
		e.weakenView() // demoted between the Load and the Store
	}
	return v, nil
}

// dropView forgets e's view unless it is no pointer (demote under
// [Options.DecodeEveryRead]).
func (e *Encodings) dropView() {
	if m := e.view.Load(); m != nil && (m.typ != nil || m.weakened() != m) {
		e.view.CompareAndSwap(m, nil)
	}
}

// Memo returns the view memoised under key, if there is one still held,
// without building it.
func (e *Encodings) Memo(key any) (any, bool) {
	if e == nil {
		return nil, false
	}
	if m := e.view.Load(); m != nil && m.key == key {
		return m.get()
	}
	return nil, false
}

// weakenView turns a strong hold of e's view into a weak one (demote).
func (e *Encodings) weakenView() {
	if m := e.view.Load(); m != nil && m.typ == nil {
		if w := m.weakened(); w != m {
			e.view.CompareAndSwap(m, w)
		}
	}
}
