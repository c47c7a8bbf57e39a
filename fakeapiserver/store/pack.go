package store

import (
	"iter"
	"unsafe"
)

// PackSlots lays the encodings cached in slot for encs (a LIST page's
// items, in order) out in one allocation, one after the other, when they
// lie scattered over the heap: each copy is an encoded as newEncoded
// makes it (its length, then its bytes, padded to a word), and each slot
// is pointed at its copy. A later read of the same items (the next
// traversal of the collection) then copies a few sequential runs of
// memory, which the processor streams, instead of hundreds of separate
// allocations, each a cold miss or two on a page whose memory the client's
// decoding evicted. It reports whether it packed.
//
// The bytes a slot holds are the same before and after; a reader that
// loaded the slot before keeps valid bytes (the old allocation lives as
// long as it is referred to). Encodings without bytes in slot (nil, or
// not cached yet) are left out. Encodings already laid out in order, but
// for at most a quarter of them (updated since, or read in another page
// alignment), are left as they are: packing again would copy the page
// for little.
//
// The allocation lives as long as any slot points into it: an item
// rewritten since keeps its old copy in the allocation until the last of
// its neighbours is rewritten or packed again. Packing again only
// happens when a page is read, so a collection rewritten almost entirely
// and never read again holds up to its old encodings once more.
func PackSlots(encs []*Encodings, slot int) bool {
	return packSlots(encs, slot, packMin)
}

// packSlots is PackSlots packing from least cached encodings on (the
// state machine packs its small pages with 1).
func packSlots(encs []*Encodings, slot, least int) bool {
	if len(encs) < least {
		return false
	}
	words, scattered, cached := 0, 0, 0
	var next uintptr // where the next encoding lies if the page is in order
	for _, p := range cachedIn(encs, slot) {
		if cached++; cached > 1 && uintptr(unsafe.Pointer(p)) != next {
			scattered++ // not right after the one before
		}
		w := encodedWords(p.n)
		words += w
		next = uintptr(unsafe.Pointer(p)) + uintptr(w*encodedWord)
	}
	if cached < least || scattered*4 <= cached {
		return false
	}
	arena := make([]uint64, words)
	off := 0
	for e, p := range cachedIn(encs, slot) {
		w := encodedWords(p.n)
		if off+w > len(arena) {
			break // filled since the count: left out
		}
		q := (*encoded)(unsafe.Pointer(&arena[off]))
		q.n = p.n
		copy(q.bytes(), p.bytes())
		off += w
		// A slot filled once only changes here; a concurrent packer may
		// have won, and its copy holds the same bytes.
		e.slots[slot].CompareAndSwap(p, q)
	}
	return true
}

// cachedIn yields each of encs that has an encoding cached in slot, with
// that encoding, in order.
func cachedIn(encs []*Encodings, slot int) iter.Seq2[*Encodings, *encoded] {
	return func(yield func(*Encodings, *encoded) bool) {
		for _, e := range encs {
			if e == nil {
				continue
			}
			if p := e.slots[slot].Load(); p != nil && !yield(e, p) {
				return
			}
		}
	}
}

// Packed reports whether PackSlots would leave the encodings as they
// are, read from parts: each an encoding as [CachedSlots] returns it (nil
// for none). A LIST page checks the parts it is spliced from, which are
// at hand, rather than have PackSlots read every slot again.
func Packed(parts [][]byte) bool {
	return packed(parts, packMin)
}

// packed is Packed for packSlots with least.
func packed(parts [][]byte, least int) bool {
	if len(parts) < least {
		return true
	}
	cached, scattered := 0, 0
	var next uintptr
	for _, b := range parts {
		if b == nil {
			continue
		}
		at := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(encodedWord) // its encoded
		if cached++; cached > 1 && at != next {
			scattered++
		}
		next = at + uintptr(encodedWords(len(b))*encodedWord)
	}
	return cached < least || scattered*4 <= cached
}

// packMin is the fewest cached encodings PackSlots packs.
const packMin = 16

// encodedWords is the number of words an encoded of n bytes takes
// (newEncoded).
func encodedWords(n int) int { return 1 + (n+encodedWord-1)/encodedWord }
