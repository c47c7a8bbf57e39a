package fakeapiserver

import "sync"

// maxPooledPage is the largest page buffer a pool keeps. A whole unpaged
// LIST of a big collection is rare, and holding its buffer until the next
// collections would cost more than encoding it afresh.
const maxPooledPage = 16 << 20

// pageBuffers recycles the buffers LIST pages are encoded into (one pool
// per Server: nothing is shared between servers). A page is written from
// its items' cached encodings into a buffer that an earlier page already
// grew, so serving a page allocates nothing in proportion to it: no fresh
// memory to clear and no garbage whose collection would scan the store's
// whole heap. Buffers a page took go back after its body was written
// (listPage.releaseBody).
type pageBuffers struct {
	pool sync.Pool // of *pageBuffer
}

// pageBuffer is one page's scratch: the body and the item encodings it is
// assembled from.
type pageBuffer struct {
	body  []byte
	parts [][]byte
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
	if cap(pb.body) > maxPooledPage {
		return
	}
	clear(pb.parts) // drop the references into the store's encodings
	pb.body, pb.parts = pb.body[:0], pb.parts[:0]
	b.pool.Put(pb)
}
