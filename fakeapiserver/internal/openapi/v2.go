package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/NYTimes/gziphandler"
	"github.com/munnerz/goautoneg"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// v2Doc is one generation of /openapi/v2 in the forms kube-openapi's
// handler (pkg/handler) serves it: its JSON and protobuf bodies, the ETag
// of the JSON (for both: the responses vary by Accept) and when it was
// encoded (the Last-Modified).
type v2Doc struct {
	etag         string
	json, proto  v2Body
	lastModified time.Time
}

// v2Body is one form of a v2 document: its bytes and those bytes as
// kube-openapi's gzip handler compresses them, each made when first asked
// for and then only copied.
type v2Body struct {
	raw, gzip func() ([]byte, error)
}

// newV2Body memoises raw and derives its gzip form from it.
func newV2Body(raw func() ([]byte, error)) v2Body {
	raw = sync.OnceValues(raw)
	return v2Body{raw: raw, gzip: sync.OnceValues(func() ([]byte, error) {
		b, err := raw()
		if err != nil {
			return nil, err
		}
		return gzipV2(b)
	})}
}

// v2GzipLevel is the level of gziphandler.GzipHandler, which kube-openapi's
// handler wraps /openapi/v2 in.
const v2GzipLevel = gzip.DefaultCompression

// gzipV2 compresses b as gziphandler.GzipHandler does: a gzip stream at
// its level with an empty header, so the bytes are the ones it would
// write.
func gzipV2(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, v2GzipLevel)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, fmt.Errorf("openapi: gzip /openapi/v2: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("openapi: gzip /openapi/v2: %w", err)
	}
	return buf.Bytes(), nil
}

// encodeV2 encodes a composed document as kube-openapi's handler does:
// spec.Swagger's JSON, the ETag of it, and the protobuf form converted
// from it (handler.ToProtoBinary) when first asked for: that costs
// seconds under -race (gnostic parses the 2 MB of JSON as YAML), and most
// servers are never asked.
func encodeV2(sw *spec.Swagger, now time.Time) (*v2Doc, error) {
	j, err := sw.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("openapi: encode /openapi/v2: %w", err)
	}
	return &v2Doc{
		etag:         v2ETag(j),
		json:         newV2Body(func() ([]byte, error) { return j, nil }),
		proto:        newV2Body(func() ([]byte, error) { return handler.ToProtoBinary(j) }),
		lastModified: now,
	}, nil
}

// v2ETag is the ETag kube-openapi's handler gives a v2 document
// (computeETag): the SHA-512 of its JSON in upper-case hex.
func v2ETag(json []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(json))
}

// v2Format is a media type kube-openapi's handler serves /openapi/v2 in.
type v2Format struct {
	subType     string // matched against the Accept clause
	contentType string // answered
	proto       bool
}

// v2Formats are kube-openapi's handler's media types in its order of
// preference: JSON, then gnostic's protobuf under its deprecated and its
// current name (both answered with the current one).
var v2Formats = []v2Format{
	{"json", "application/json", false},
	{"com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", true},
	{"com.github.proto-openapi.spec.v2.v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", true},
}

// serveV2 answers /openapi/v2 as kube-openapi's handler
// (RegisterOpenAPIVersionedService) does, behind the same gzip handler
// ([Service] wraps it): Vary: Accept, the first Accept clause it can serve
// (406 if none), its Content-Type and ETag, and http.ServeContent's
// conditional GET and ranges; 503 when the document cannot be built and
// no earlier generation was. See serveV2Gzipped for a GET the gzip handler
// would compress.
func (o *Service) serveV2(w http.ResponseWriter, r *http.Request) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	w.Header().Add("Vary", "Accept")
	for _, clause := range goautoneg.ParseAccept(accept) {
		for _, f := range v2Formats {
			if (clause.Type != "application" && clause.Type != "*") || (clause.SubType != f.subType && clause.SubType != "*") {
				continue
			}
			doc, _, err := o.v2.Get()
			if err != nil || doc == nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			body := doc.json
			if f.proto {
				body = doc.proto
			}
			w.Header().Set("Content-Type", f.contentType)
			w.Header().Set("Etag", strconv.Quote(doc.etag))
			if gw := gzipResponseWriter(w); gw != nil && r.Method == http.MethodGet && r.Header.Get("Range") == "" {
				serveV2Gzipped(gw, r, doc, body)
				return
			}
			raw, err := body.raw()
			if err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			http.ServeContent(w, r, v2Path, doc.lastModified, bytes.NewReader(raw))
			return
		}
	}
	w.WriteHeader(http.StatusNotAcceptable)
}

// serveV2Gzipped answers a GET without Range from a client that accepts
// gzip with the body's gzip form, made once, instead of letting the gzip
// handler compress megabytes on every request (a second under -race): the
// same status, headers and bytes as the gzip handler would write over
// http.ServeContent of the raw body. The gzip handler writes nothing
// after it, as nothing reaches it.
func serveV2Gzipped(gw *gziphandler.GzipResponseWriter, r *http.Request, doc *v2Doc, body v2Body) {
	z, err := body.gzip()
	if err != nil {
		gw.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	http.ServeContent(gzipEncoded{gw.ResponseWriter}, r, v2Path, doc.lastModified, bytes.NewReader(z))
}

// gzipEncoded writes an already compressed body as gziphandler's writer
// does once it starts compressing: a 200 gets Content-Encoding: gzip and
// no Content-Length. Answers without a body (304, 412) pass as they are,
// as the gzip handler passes them.
type gzipEncoded struct{ http.ResponseWriter }

// WriteHeader marks a 200 as gzip-encoded.
func (w gzipEncoded) WriteHeader(code int) {
	if code == http.StatusOK {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Del("Content-Length")
	}
	w.ResponseWriter.WriteHeader(code)
}

// gzipResponseWriter returns the gzip handler's writer when w is one (the
// client accepts gzip), else nil.
func gzipResponseWriter(w http.ResponseWriter) *gziphandler.GzipResponseWriter {
	switch gw := w.(type) {
	case *gziphandler.GzipResponseWriter:
		return gw
	case gziphandler.GzipResponseWriterWithCloseNotify:
		return gw.GzipResponseWriter
	}
	return nil
}
