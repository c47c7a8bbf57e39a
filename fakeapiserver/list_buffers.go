package fakeapiserver

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// maxPooledPage is the largest page buffer a pool keeps. A whole unpaged
// LIST of a big collection is rare, and holding its buffer until the next
// collections would cost more than encoding it afresh.
const maxPooledPage = 16 << 20

// pageBuffers recycles the buffers LIST pages are encoded into (one pool
// per Server: nothing is shared between servers). A page is spliced from
// its items' cached encodings, kept by reference, and the few bytes
// between them, written into a buffer that an earlier page already grew;
// the body is joined from these into another such buffer, or gzipped
// straight from them (respond), so serving a page allocates nothing in
// proportion to it: no fresh memory to clear and no garbage whose
// collection would scan the store's whole heap. Buffers a page took go
// back after its body was written (listPage.releaseBody).
type pageBuffers struct {
	pool   sync.Pool // of *pageBuffer
	arrays sync.Pool // of *listArrays
}

// listArrays are the arrays a LIST page's store read is written into
// (store.ListOptions.Reuse), recycled by the listPage that holds them
// once its body is written (listPage.releaseBody): a page of 500 items
// would otherwise allocate 20 KB of fresh, zeroed memory for them.
type listArrays struct {
	items []runtime.Object
	keys  []string
	encs  []*store.Encodings
}

// maxPooledItems is the most items a pooled listArrays has room for.
const maxPooledItems = 4096

// getArrays returns arrays for a store read, recycled when the pool has
// them.
func (b *pageBuffers) getArrays() *listArrays {
	if a, ok := b.arrays.Get().(*listArrays); ok {
		return a
	}
	return &listArrays{}
}

// putArrays recycles a, which the caller must not use afterwards.
func (b *pageBuffers) putArrays(a *listArrays) {
	if cap(a.items) > maxPooledItems || cap(a.keys) > maxPooledItems || cap(a.encs) > maxPooledItems {
		return
	}
	// Drop the references into the store, up to the capacity: a page
	// may have left some past the last one's length.
	clear(a.items[:cap(a.items)])
	clear(a.keys[:cap(a.keys)])
	clear(a.encs[:cap(a.encs)])
	a.items, a.keys, a.encs = a.items[:0], a.keys[:0], a.encs[:0]
	b.arrays.Put(a)
}

// pageBuffer is one page's scratch: the item encodings it is spliced
// from, the splice itself (glue and spans) and the joined body.
type pageBuffer struct {
	body  []byte
	parts [][]byte
	// glue holds the bytes between the shared pieces (a list's frame,
	// each item's field key and length or separators), glued up to
	// where spans covers it.
	glue  []byte
	glued int
	// spans is the body in order: shared pieces and stretches of glue.
	spans []span
	// pieces is spans resolved to byte slices, for pieces().
	pieces [][]byte
}

// span is one piece of a spliced body: shared bytes (a cached encoding,
// by reference, never written to) or, when shared is nil, glue[from:to].
// Glue is referred to by offsets because it may move as it grows.
type span struct {
	shared   []byte
	from, to int
}

// get returns an empty buffer, recycled when the pool has one.
func (b *pageBuffers) get() *pageBuffer {
	if pb, ok := b.pool.Get().(*pageBuffer); ok {
		return pb
	}
	return &pageBuffer{}
}

// put recycles pb; the caller must not use it, or the body it returned,
// afterwards.
func (b *pageBuffers) put(pb *pageBuffer) {
	if cap(pb.body) > maxPooledPage || cap(pb.glue) > maxPooledPage {
		return
	}
	clear(pb.parts) // drop the references into the store's encodings
	clear(pb.spans)
	clear(pb.pieces)
	pb.body, pb.parts, pb.glue, pb.glued, pb.spans, pb.pieces = pb.body[:0], pb.parts[:0], pb.glue[:0], 0, pb.spans[:0], pb.pieces[:0]
	b.pool.Put(pb)
}

// joinJSONItems splices head, then pb.parts as the items of a JSON array
// (comma-separated, each between open and close, either of which may be
// empty), then tail: the body of a JSON list page whose frame was cut at
// its items (jsonFrame).
func (pb *pageBuffer) joinJSONItems(head []byte, open, close string, tail []byte) {
	pb.glue = append(pb.glue, head...)
	for k, b := range pb.parts {
		if k > 0 {
			pb.glue = append(pb.glue, ',')
		}
		pb.glue = append(pb.glue, open...)
		pb.share(b)
		pb.glue = append(pb.glue, close...)
	}
	pb.glue = append(pb.glue, tail...)
}

// share appends b to the splice by reference, after the glue written
// since the last span.
func (pb *pageBuffer) share(b []byte) {
	pb.closeGlue()
	if len(b) > 0 {
		pb.spans = append(pb.spans, span{shared: b})
	}
}

// closeGlue makes the glue appended since the last span a span.
func (pb *pageBuffer) closeGlue() {
	if len(pb.glue) > pb.glued {
		pb.spans = append(pb.spans, span{from: pb.glued, to: len(pb.glue)})
		pb.glued = len(pb.glue)
	}
}

// splice returns the spliced body as its pieces, in order, and their total
// length; the pieces stay valid until pb is put back or spliced again.
func (pb *pageBuffer) splice() (pieces [][]byte, size int) {
	pb.closeGlue()
	pieces = pb.pieces[:0]
	for _, s := range pb.spans {
		b := s.shared
		if b == nil {
			b = pb.glue[s.from:s.to]
		}
		pieces = append(pieces, b)
		size += len(b)
	}
	pb.pieces = pieces
	return pieces, size
}

// join is the spliced body in one slice, in pb's body buffer, grown once
// to its exact size.
func (pb *pageBuffer) join() []byte {
	pieces, size := pb.splice()
	out := pb.body[:0]
	if cap(out) < size {
		out = make([]byte, 0, size)
	}
	for _, b := range pieces {
		out = append(out, b...)
	}
	pb.body = out
	return out
}
