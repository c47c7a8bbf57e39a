package fakeapiserver

import (
	"bytes"
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
	bufs    sync.Pool // of *bytes.Buffer
}

// gzipBody returns body's gzip stream at g's level, in a recycled buffer
// that release gives back once the caller has written it. The whole stream
// is built before anything is sent, so the response can carry its
// Content-Length and go out in one Write (respond).
func (g *gzipWriters) gzipBody(body []byte) (zipped []byte, release func(), err error) {
	buf, ok := g.bufs.Get().(*bytes.Buffer)
	if !ok {
		buf = new(bytes.Buffer)
	}
	// A stored stream is the body plus 5 bytes per 64 KiB block and the
	// gzip header and trailer; a compressed one is smaller.
	buf.Grow(len(body) + len(body)/8192 + 64)
	if err := g.compress(buf, body); err != nil {
		g.putBuffer(buf)
		return nil, nil, err
	}
	return buf.Bytes(), func() { g.putBuffer(buf) }, nil
}

// compress appends body's gzip stream at g's level to buf.
func (g *gzipWriters) compress(buf *bytes.Buffer, body []byte) error {
	zw, err := g.writer(buf)
	if err != nil {
		return err
	}
	if _, err := zw.Write(body); err != nil {
		return err
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
func (g *gzipWriters) putBuffer(buf *bytes.Buffer) {
	if buf.Cap() > maxPooledGzip {
		return
	}
	buf.Reset()
	g.bufs.Put(buf)
}
