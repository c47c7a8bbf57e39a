package fakeapiserver

import (
	"bytes"
	"sync"
)

const (
	// batchWriteThrough is the size at which a watch stream hands its batch
	// of events to the connection before the batch ends, so a burst (the
	// initial events of a large list) never sits in memory whole.
	batchWriteThrough = 32 << 10
	// batchKeepMax is the largest batch buffer kept for reuse; one grown
	// past it by a very large event goes to the collector.
	batchKeepMax = 256 << 10
)

// eventBatch holds the framed events a watch stream has sent since its
// last flush, so a flush hands them to the connection in one write rather
// than one per event. On HTTP/1.1 every write that overflows the
// connection's 4 KiB buffer is a write syscall, and every flush is one:
// one write per batch is one syscall per batch (and one read on the
// client), however many events it holds. When the stream flushes is
// unchanged: at the end of a batch, when nothing more is pending.
//
// The buffer comes from the server's pool when the first event of a batch
// is written and goes back once the batch is written, so an idle watch
// holds none: a thousand quiet watches cost no batch memory.
type eventBatch struct {
	pool *sync.Pool // of *bytes.Buffer, the server's (watchHub.batches)
	buf  *bytes.Buffer
}

// Write appends p to the batch; it never fails.
func (b *eventBatch) Write(p []byte) (int, error) {
	if b.buf == nil {
		if v, ok := b.pool.Get().(*bytes.Buffer); ok {
			b.buf = v
		} else {
			b.buf = new(bytes.Buffer)
		}
	}
	return b.buf.Write(p)
}

// len is the size of the batch in bytes.
func (b *eventBatch) len() int {
	if b.buf == nil {
		return 0
	}
	return b.buf.Len()
}

// bytes is the batch, valid until release.
func (b *eventBatch) bytes() []byte {
	if b.buf == nil {
		return nil
	}
	return b.buf.Bytes()
}

// release empties the batch and returns its buffer to the pool.
func (b *eventBatch) release() {
	if b.buf == nil {
		return
	}
	if b.buf.Cap() <= batchKeepMax {
		b.buf.Reset()
		b.pool.Put(b.buf)
	}
	b.buf = nil
}
