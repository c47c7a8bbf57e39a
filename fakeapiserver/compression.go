package fakeapiserver

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// gzipThreshold is the body size above which kube-apiserver gzips a
// response for a client that accepts gzip (apiserver
// pkg/endpoints/handlers/responsewriters/writers.go,
// defaultGzipThresholdBytes, compared with the first write, which is the
// whole body for the serializers' single Write). Go's transport, and so
// client-go unless rest.Config.DisableCompression is set, asks for gzip on
// every request and decompresses transparently, so a paged LIST of a few
// hundred objects travels compressed.
const gzipThreshold = 128 * 1024

// KubeAPIServerCompressionLevel is the gzip level kube-apiserver compresses
// responses at (responsewriters/compression.go gzipContentEncodingLevel:
// gzip.BestSpeed, the cheapest that still compresses, kubernetes#112296).
// Set [Config.ResponseCompressionLevel] to it for the real server's bytes.
const KubeAPIServerCompressionLevel = gzip.BestSpeed

// maxPooledGzip is the largest compressed-body buffer a pool keeps, as
// maxPooledPage for the bodies themselves.
const maxPooledGzip = maxPooledPage

// checkCompressionLevel refuses a level compress/gzip does not have.
func checkCompressionLevel(level int) error {
	if level < gzip.HuffmanOnly || level > gzip.BestCompression {
		return fmt.Errorf("fakeapiserver: ResponseCompressionLevel %d: want %d (Huffman only) to %d", level, gzip.HuffmanOnly, gzip.BestCompression)
	}
	return nil
}

// acceptsGzip reports whether r asks for gzip as kube-apiserver reads
// Accept-Encoding (responsewriters ContentEncodingSupported, with the
// APIResponseCompression gate on, its default since 1.16): one of the
// comma-separated tokens is exactly "gzip" once trimmed, so "gzip;q=0.5"
// does not count.
func acceptsGzip(r *http.Request) bool {
	for token := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		if strings.TrimSpace(token) == "gzip" {
			return true
		}
	}
	return false
}

// gzipWriters compresses response bodies at one level, recycling the
// writers (a gzip.Writer holds some 800 KiB of compressor state, and
// kube-apiserver pools its own) and the buffers the compressed bodies are
// assembled in.
type gzipWriters struct {
	level   int       // [Config.ResponseCompressionLevel]
	writers sync.Pool // of *gzip.Writer
	bufs    sync.Pool // of *gzipBuffer
}

// gzipBuffer is a compressed body being assembled: an io.Writer that
// appends.
type gzipBuffer struct{ b []byte }

// Write appends p.
func (w *gzipBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// gzipBody returns the gzip stream of the body made of pieces (in order)
// at g's level, in a recycled buffer that release gives back once the
// caller has written it. The whole stream is built before anything is
// sent, so the response can carry its Content-Length and go out in one
// Write (respond). The bytes are compress/gzip's for the joined body at
// g's level, whatever the pieces: compress/flate compresses, or stores,
// a block once its window is full or the stream ends, never at a Write's
// end (TestGzipBodyMatchesCompressGzip).
func (g *gzipWriters) gzipBody(pieces [][]byte) (zipped []byte, release func(), err error) {
	buf, ok := g.bufs.Get().(*gzipBuffer)
	if !ok {
		buf = new(gzipBuffer)
	}
	if g.level == gzip.NoCompression {
		buf.b = appendStoredGzip(buf.b[:0], pieces)
		return buf.b, func() { g.putBuffer(buf) }, nil
	}
	// A compressed stream is seldom larger than a stored one.
	size := 0
	for _, b := range pieces {
		size += len(b)
	}
	if n := storedGzipLen(size); cap(buf.b) < n {
		buf.b = make([]byte, 0, n)
	}
	if err := g.compress(buf, pieces); err != nil {
		g.putBuffer(buf)
		return nil, nil, err
	}
	return buf.b, func() { g.putBuffer(buf) }, nil
}

// compress appends the gzip stream of pieces, joined, at g's level to buf.
func (g *gzipWriters) compress(buf io.Writer, pieces [][]byte) error {
	zw, err := g.writer(buf)
	if err != nil {
		return err
	}
	for _, b := range pieces {
		if _, err := zw.Write(b); err != nil {
			return err
		}
	}
	err = zw.Close()
	g.put(zw)
	return err
}

// writer returns a gzip.Writer at g's level writing to w, recycled if one
// is free; put gives it back once closed.
func (g *gzipWriters) writer(w io.Writer) (*gzip.Writer, error) {
	if zw, ok := g.writers.Get().(*gzip.Writer); ok {
		zw.Reset(w)
		return zw, nil
	}
	return gzip.NewWriterLevel(w, g.level)
}

// put recycles a closed writer from [gzipWriters.writer].
func (g *gzipWriters) put(zw *gzip.Writer) {
	zw.Reset(nil) // drop the destination
	g.writers.Put(zw)
}

// putBuffer recycles buf unless it grew past maxPooledGzip.
func (g *gzipWriters) putBuffer(buf *gzipBuffer) {
	if cap(buf.b) > maxPooledGzip {
		return
	}
	buf.b = buf.b[:0]
	g.bufs.Put(buf)
}
