package fakeapiserver

import (
	"compress/gzip"
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

// gzipLevel is kube-apiserver's level (responsewriters/compression.go
// gzipContentEncodingLevel): the cheapest, kubernetes#112296.
const gzipLevel = gzip.BestSpeed

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

// gzipWriters recycles the server's gzip writers, as kube-apiserver pools
// its own (a gzip.Writer holds some 800 KiB of compressor state).
type gzipWriters struct {
	pool sync.Pool // of *gzip.Writer
}

// writeGzip writes body to w gzip-compressed at kube-apiserver's level.
func (g *gzipWriters) writeGzip(w http.ResponseWriter, body []byte) error {
	zw, ok := g.pool.Get().(*gzip.Writer)
	if ok {
		zw.Reset(w)
	} else {
		var err error
		if zw, err = gzip.NewWriterLevel(w, gzipLevel); err != nil {
			return err
		}
	}
	if _, err := zw.Write(body); err != nil {
		return err
	}
	err := zw.Close()
	zw.Reset(nil) // drop w
	g.pool.Put(zw)
	return err
}
