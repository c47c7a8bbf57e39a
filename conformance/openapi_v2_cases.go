package conformance

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// openapiV2Cases are the cases of this file, in the order [Cases] runs them.
func openapiV2Cases() []Case {
	return []Case{
		{Name: "OpenAPIV2Headers", Run: runOpenAPIV2Headers},
	}
}

// The headers of /openapi/v2 as kube-openapi's handler, behind its gzip
// handler and kube-apiserver's filters, answers kubectl's first request
// (the protobuf form, gzipped: apply, create and explain validate against
// it), a conditional GET of it, an uncompressed one and an unacceptable
// Accept.

// openAPIV2ProtoAccept is the media type kubectl asks /openapi/v2 for.
const openAPIV2ProtoAccept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"

// openAPIV2ETagRE is kube-openapi's ETag: the upper-case hex SHA-512 of
// the JSON document, quoted.
var openAPIV2ETagRE = regexp.MustCompile(`^"[0-9A-F]{128}"$`)

// openAPIV2ProtoPrefix starts every /openapi/v2 protobuf document: field
// 1 (swagger), "2.0".
var openAPIV2ProtoPrefix = []byte("\n\x032.0")

// runOpenAPIV2Headers: /openapi/v2 in protobuf, gzipped, has kube-openapi's
// Content-Type, ETag, Last-Modified and Accept-Ranges, Vary: Accept-Encoding
// then Accept, and Cache-Control: no-cache, private; its ETag answers 304
// in protobuf too; uncompressed, it is the same document with its length;
// an Accept it cannot serve is an empty 406 with the same Vary and
// Cache-Control.
func runOpenAPIV2Headers(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	proto := request{Path: "/openapi/v2", Accept: openAPIV2ProtoAccept}
	r := c.doWithHeader(ctx, t, proto, "Accept-Encoding", "gzip")
	r.mustCode(t, http.StatusOK, "GET /openapi/v2 as protobuf, gzip")
	checkOpenAPIV2Headers(t, "GET /openapi/v2 as protobuf, gzip", r.Header, map[string]string{
		"Content-Type":     "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
		"Content-Encoding": "gzip",
		"Accept-Ranges":    "bytes",
	})
	etag := r.Header.Get("Etag")
	if !openAPIV2ETagRE.MatchString(etag) {
		t.Errorf("GET /openapi/v2 as protobuf: ETag %q, want a quoted upper-case hex SHA-512", etag)
	}
	if _, err := http.ParseTime(r.Header.Get("Last-Modified")); err != nil {
		t.Errorf("GET /openapi/v2 as protobuf: Last-Modified %q: %v", r.Header.Get("Last-Modified"), err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatalf("GET /openapi/v2 as protobuf, gzip: %v", err)
	}
	doc, err := io.ReadAll(zr)
	if err != nil || !bytes.HasPrefix(doc, openAPIV2ProtoPrefix) {
		t.Errorf("GET /openapi/v2 as protobuf, gzip: %d bytes (%v), want a swagger 2.0 document", len(doc), err)
	}

	checkOpenAPIV2ProtoETag(ctx, t, c, etag)

	r = c.doWithHeader(ctx, t, proto, "Accept-Encoding", "identity")
	r.mustCode(t, http.StatusOK, "GET /openapi/v2 as protobuf, identity")
	checkOpenAPIV2Headers(t, "GET /openapi/v2 as protobuf, identity", r.Header, map[string]string{
		"Content-Encoding": "",
		"Content-Length":   strconv.Itoa(len(r.Body)),
	})
	// Other cases change the document (CRDs) concurrently; it is the same
	// one only while its ETag is.
	if r.Header.Get("Etag") == etag && !bytes.Equal(r.Body, doc) {
		t.Errorf("GET /openapi/v2 as protobuf: %d bytes uncompressed, %d gzipped, with one ETag", len(r.Body), len(doc))
	}

	r = c.doWithHeader(ctx, t, request{Path: "/openapi/v2", Accept: "text/plain"}, "Accept-Encoding", "gzip")
	r.mustCode(t, http.StatusNotAcceptable, "GET /openapi/v2 as text/plain")
	checkOpenAPIV2Headers(t, "GET /openapi/v2 as text/plain", r.Header, map[string]string{"Content-Type": "", "Etag": ""})
	if len(r.Body) != 0 {
		t.Errorf("GET /openapi/v2 as text/plain: body %q, want none", r.Body)
	}
}

// checkOpenAPIV2Headers checks the headers every /openapi/v2 answer has
// (Vary, Cache-Control) and the given ones ("" for absent).
func checkOpenAPIV2Headers(t *testing.T, what string, h http.Header, want map[string]string) {
	t.Helper()
	if vary := h.Values("Vary"); !slices.Equal(vary, []string{"Accept-Encoding", "Accept"}) {
		t.Errorf("%s: Vary %q, want Accept-Encoding then Accept", what, vary)
	}
	if cc := h.Get("Cache-Control"); cc != "no-cache, private" {
		t.Errorf("%s: Cache-Control %q, want no-cache, private", what, cc)
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s %q, want %q", what, k, got, v)
		}
	}
}

// checkOpenAPIV2ProtoETag: a protobuf GET with If-None-Match of the
// current ETag is 304 with the ETag, Vary and Cache-Control. A 200 means
// the document changed in between; it is fetched again.
func checkOpenAPIV2ProtoETag(ctx context.Context, t *testing.T, c *client, etag string) {
	t.Helper()
	proto := request{Path: "/openapi/v2", Accept: openAPIV2ProtoAccept}
	for try := 1; ; try++ {
		r := c.doWithHeader(ctx, t, proto, "If-None-Match", etag)
		if r.Code == http.StatusNotModified {
			checkOpenAPIV2Headers(t, "GET /openapi/v2 as protobuf, If-None-Match", r.Header, map[string]string{"Etag": etag})
			return
		}
		if r.Code != http.StatusOK || try == openAPIV2ETagTries {
			t.Errorf("GET /openapi/v2 as protobuf with If-None-Match %q = %d, want 304 (try %d)", etag, r.Code, try)
			return
		}
		etag = r.Header.Get("Etag")
	}
}
