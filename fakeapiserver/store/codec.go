package store

import (
	"fmt"
	"reflect"
	"unsafe"
	"weak"

	"k8s.io/apimachinery/pkg/runtime"
)

// Codec encodes a stored object into the one canonical encoding its
// version keeps, and decodes it back. A version stored with a Codec holds
// its decoded object only weakly (see [Encodings.Object]), so the objects
// nobody reads cost their encoding, not their decoded form.
type Codec interface {
	// Slot is the [Encodings] slot the canonical encoding goes in: the
	// caller's own cached form for that slot, so it is stored once.
	Slot() int
	// Encode returns obj's canonical encoding, what the caller would
	// cache in Slot.
	Encode(obj runtime.Object) ([]byte, error)
	// Decode returns an object equal to the one data was encoded from.
	// It must not keep data, which is shared.
	Decode(data []byte) (runtime.Object, error)
}

// defaultHotObjects is how many of the latest writes' objects the store
// holds strongly (Options.HotObjects): what watches fan out and
// controllers read right after a write is decoded already.
const defaultHotObjects = 1024

// objRef is how an [Encodings] holds its object: strongly (without a
// Codec, or while the version is among the latest writes) or weakly,
// with typ to rebuild the interface from the weak pointer.
type objRef struct {
	// drop says no decoded object is kept: every read decodes (the
	// store's tests' mode, Store.dropDecoded).
	drop   bool
	strong runtime.Object
	typ    reflect.Type // the pointed-to type of a weakly held *T
	weak   weak.Pointer[byte]
}

// strongRef holds obj strongly.
func strongRef(obj runtime.Object) *objRef { return &objRef{strong: obj} }

// weakRef holds obj weakly, or strongly if it is not a pointer (a weak
// pointer needs one); nil if keep is false, so the next read decodes.
func weakRef(obj runtime.Object, keep bool) *objRef {
	if !keep {
		return &objRef{drop: true}
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return strongRef(obj)
	}
	return &objRef{typ: v.Type().Elem(), weak: weak.Make((*byte)(v.UnsafePointer()))}
}

// get returns the object r holds, nil if it was collected (or never
// kept).
func (r *objRef) get() runtime.Object {
	if r == nil {
		return nil
	}
	if r.strong != nil {
		return r.strong
	}
	p := r.weak.Value()
	if p == nil {
		return nil
	}
	obj, _ := reflect.NewAt(r.typ, unsafe.Pointer(p)).Interface().(runtime.Object)
	return obj
}

// hold starts e's life in the store holding obj strongly, with codec's
// canonical encoding of it in the codec's slot when codec is set: the
// store calls it under its lock, at the write, before e is shared.
func (e *Encodings) hold(obj runtime.Object, codec Codec) error {
	e.obj.Store(strongRef(obj))
	if codec == nil {
		return nil
	}
	b, err := codec.Encode(obj)
	if err != nil {
		return fmt.Errorf("encode %T: %w", obj, err)
	}
	e.codec = codec
	e.slots[codec.Slot()].Store(newEncoded(b))
	return nil
}

// demote turns e's strong hold of its object (and of its view, see
// [Encodings.View]) into a weak one, when e has a codec to decode the
// object again from. keep false drops the object
// (the store's tests use it to make every read decode).
func (e *Encodings) demote(keep bool) {
	if e.codec == nil {
		return
	}
	if r := e.obj.Load(); r != nil && r.strong != nil {
		e.obj.Store(weakRef(r.strong, keep))
	}
	if keep {
		e.weakenView()
	} else {
		e.dropView()
	}
}

// Codec returns the [Codec] e's canonical encoding is in, nil if e keeps
// its object as written (or e is nil): what [Encodings.Object] decodes
// with.
func (e *Encodings) Codec() Codec {
	if e == nil {
		return nil
	}
	return e.codec
}

// Object returns the object this version stored. Without a [Codec] it is
// the object that was written; with one it is that object while anyone
// holds it (or the store does, for the latest writes), else an equal one
// decoded from the canonical encoding, held weakly for the next caller.
// Concurrent callers may decode twice; each gets an equal object. The
// object is shared and must not be modified. A nil *Encodings has none.
//
// Object panics if the store's own canonical encoding does not decode:
// a broken [Codec], not a state a caller can handle.
func (e *Encodings) Object() runtime.Object {
	if e == nil {
		return nil
	}
	r := e.obj.Load()
	if obj := r.get(); obj != nil || e.codec == nil {
		return obj
	}
	p := e.slots[e.codec.Slot()].Load()
	if p == nil {
		panic(fmt.Sprintf("store: a version without its canonical encoding in slot %d", e.codec.Slot()))
	}
	obj, err := e.codec.Decode(p.bytes())
	if err != nil {
		panic(fmt.Sprintf("store: decoding a stored %d-byte encoding: %v", p.n, err))
	}
	if r != nil && r.drop {
		return obj
	}
	if !e.obj.CompareAndSwap(r, weakRef(obj, true)) {
		if won := e.obj.Load().get(); won != nil {
			return won // another reader decoded first: share its object
		}
	}
	return obj
}

// hotRing holds the Encodings of the latest writes, whose objects stay
// strongly held until the ring wraps around to them.
type hotRing struct {
	ring []*Encodings
	next int
	// keep false makes a demoted version drop its object (tests).
	keep bool
}

// add holds e as one of the latest writes, demoting the oldest one.
func (h *hotRing) add(e *Encodings) {
	if e.codec == nil {
		return
	}
	if len(h.ring) == 0 {
		e.demote(h.keep)
		return
	}
	if old := h.ring[h.next]; old != nil {
		old.demote(h.keep)
	}
	h.ring[h.next] = e
	h.next = (h.next + 1) % len(h.ring)
}
