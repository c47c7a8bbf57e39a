package fakeapiserver

import (
	"compress/gzip"
	"net/http"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
)

// A watch-list stream (sendInitialEvents=true) is gzipped for a client
// that accepts gzip, as kube-apiserver v1.37 does with the
// WatchListCompression gate (beta, on): handlers/watch.go BeginStream sets
// Content-Encoding: gzip and Vary: Accept-Encoding, and its
// perFlushGzipWriter compresses what is written between two flushes as one
// complete gzip member, so every flush reaches the client decodable (a
// gzip reader reads the members as one stream). Other watches are never
// compressed. client-go asks for gzip (Go's transport does, unless
// rest.Config.DisableCompression) and so gets a compressed watch-list.

// watchListGzipped reports whether a watch with opts, asked by r, is sent
// gzipped: a watch-list as handlers/get.go isListWatchRequest defines it
// (initial events, after the WatchList defaulting, and bookmarks), for a
// client that accepts gzip.
func watchListGzipped(r *http.Request, opts metainternalversion.ListOptions) bool {
	return sendsInitialEvents(opts) && opts.AllowWatchBookmarks && acceptsGzip(r)
}

// perFlushGzip is an http.ResponseWriter that gzips the body, one member
// per flush (handlers/watch.go perFlushGzipWriter). It unwraps to the
// response it writes to, so http.ResponseController's deadlines and
// hijacking (a fault's connection reset) reach the connection.
type perFlushGzip struct {
	http.ResponseWriter
	pool *gzipWriters
	// zw is the member being written, nil between members.
	zw *gzip.Writer
}

// Write compresses p into the current member, starting one if none is.
func (g *perFlushGzip) Write(p []byte) (int, error) {
	if g.zw == nil {
		zw, err := g.pool.writer(g.ResponseWriter)
		if err != nil {
			return 0, err
		}
		g.zw = zw
	}
	return g.zw.Write(p)
}

// FlushError ends the current member, if any, and flushes the response.
// The member's data is sync-flushed before its final block, as upstream
// does, so a reader decodes it without waiting for the next member's
// header.
func (g *perFlushGzip) FlushError() error {
	if g.zw != nil {
		if err := g.zw.Flush(); err != nil {
			return err
		}
	}
	if err := g.Close(); err != nil {
		return err
	}
	return http.NewResponseController(g.ResponseWriter).Flush()
}

// Flush is FlushError for callers that cannot take its error.
func (g *perFlushGzip) Flush() { _ = g.FlushError() }

// Close ends the current member (its trailer is written, not flushed) and
// gives the compressor back; a stream ends with it.
func (g *perFlushGzip) Close() error {
	if g.zw == nil {
		return nil
	}
	err := g.zw.Close()
	g.pool.put(g.zw)
	g.zw = nil
	return err
}

// Unwrap returns the response g writes to (http.ResponseController).
func (g *perFlushGzip) Unwrap() http.ResponseWriter { return g.ResponseWriter }
