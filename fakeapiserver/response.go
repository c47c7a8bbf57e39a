package fakeapiserver

import (
	"net/http"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// response is what a resource verb answers when it succeeds: obj, sent
// with code in the representation out that the handler negotiated at its
// step of the upstream order.
type response struct {
	code int
	out  outputType
	obj  runtime.Object
	// table is set by GET and LIST, the verbs that serve a Table form
	// (kubectl get): what that form shows when out asks for it.
	table *tableRows
}

// tableRows are the objects a Table form has a row for, and the list whose
// metadata it carries (nil for a single object: empty metadata).
type tableRows struct {
	items []runtime.Object
	// page, when set, has the items instead, read only if a Table is
	// asked for: they may have to be decoded (listPage.objects).
	page *listPage
	list runtime.Object
}

// objects are the rows' objects.
func (r *tableRows) objects() []runtime.Object {
	if r.page != nil {
		return r.page.objects()
	}
	return r.items
}

// writeResponse is the one writer of a resource verb's success: the form
// the client asked for with as= (a Table, the metadata alone:
// response_transform.go), then the encoded object with the response's
// code. A form that cannot be built is answered as its error (400 for a
// bad includeObject, 406 for metadata of the wrong shape).
func (s *Server) writeResponse(req *request, resp response) {
	obj, err := s.transformResponse(req, resp)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.respond(req.w, req.r, resp.out, resp.code, obj)
}

// tableOf converts rows to the Table form of meta.k8s.io version gv with
// the request's includeObject policy.
func (s *Server) tableOf(req *request, rows *tableRows, gv schema.GroupVersion) (runtime.Object, error) {
	var lm metav1.ListMeta
	if rows.list != nil {
		l, err := meta.ListAccessor(rows.list)
		if err != nil {
			return nil, err
		}
		lm = listMetaOf(l)
	}
	table, err := s.toTable(req.res, rows.objects(), lm, includeObjectParam(req.r), rows.list != nil)
	if err != nil {
		return nil, err
	}
	return inTableVersion(table, gv), nil
}

// respond encodes obj in the negotiated type and writes it with code: the
// one place a response body is written, for answers and errors alike. The
// body is encoded fully before the header goes out, so an encoding failure
// becomes a clean 500 instead of a truncated response. A body over
// gzipThreshold goes out gzipped when r accepts it, as kube-apiserver's
// SerializeObject sends it (compression.go), and every body with its
// Content-Length. A LIST page a client accepts gzip for is gzipped
// straight from the pieces it is spliced from (splicer), never joined.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, out outputType, code int, obj runtime.Object) {
	if rel, ok := obj.(bodyReleaser); ok {
		defer rel.releaseBody() // after the Write below, which keeps no reference
	}
	zip := acceptsGzip(r)
	var one [1][]byte
	pieces, size, spliced, err := encodePieces(out.info, obj, zip, one[:0])
	if err != nil {
		st := toStatus(err)
		body, _ := encode(s.codecs.SupportedMediaTypes()[0], st)
		out, code = outputType{info: s.codecs.SupportedMediaTypes()[0]}, int(st.Code)
		pieces, size, spliced = append(one[:0], body), len(body), nil
	}
	h := w.Header()
	h.Set("Content-Type", out.info.MediaType)
	var body []byte
	if size > gzipThreshold && zip {
		// gzipBody cannot fail at a level New accepted (it writes to
		// memory); if it did, the plain body is still a valid answer.
		if zipped, release, err := s.gzips.gzipBody(pieces); err == nil {
			defer release()
			h.Set("Content-Encoding", "gzip")
			h.Add("Vary", "Accept-Encoding")
			body = zipped
		}
	}
	switch {
	case body != nil:
	case spliced != nil:
		body = spliced.join()
	case len(pieces) == 1:
		body = pieces[0]
	}
	// With its length known, a body ends with its last byte: without it,
	// net/http sends a body over 2 KiB chunked and the terminating chunk
	// only after the handler returns, one more wakeup on either side of
	// every large response. (kube-apiserver leaves the length out; both
	// are valid HTTP framing, and client-go reads either.)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body) // an error: the client is gone, or the LIST is cut
}

// splicer is a body spliced from pieces (a LIST page: list_buffers.go):
// spliceBody returns the buffer holding them, for the caller to join or
// gzip, or nil when this body is encoded whole (encodeBody).
type splicer interface {
	selfEncoder
	spliceBody(info runtime.SerializerInfo) (*pageBuffer, error)
}

// encodePieces encodes obj in info's media type as the pieces of its body
// in order and their total length: when zip (the body may go out gzipped,
// compressed from its pieces) and obj is a splicer, its own pieces and
// the buffer that joins them (spliced); otherwise the whole encoded body,
// appended to dst as the one piece.
func encodePieces(info runtime.SerializerInfo, obj runtime.Object, zip bool, dst [][]byte) (pieces [][]byte, size int, spliced *pageBuffer, err error) {
	if sp, ok := obj.(splicer); ok && zip {
		pb, err := sp.spliceBody(info)
		if err != nil {
			return nil, 0, nil, err
		}
		if pb != nil {
			pieces, size := pb.splice()
			return pieces, size, pb, nil
		}
	}
	body, err := encode(info, obj)
	if err != nil {
		return nil, 0, nil, err
	}
	return append(dst, body), len(body), nil, nil
}

// bodyReleaser is an object whose encoded body lives in a recycled buffer
// (a LIST page, list_buffers.go): releaseBody hands the buffer back once
// the body is written.
type bodyReleaser interface {
	releaseBody()
}

// listMetaOf copies a list's metadata for the Table form.
func listMetaOf(lm metav1.ListInterface) metav1.ListMeta {
	return metav1.ListMeta{
		ResourceVersion:    lm.GetResourceVersion(),
		Continue:           lm.GetContinue(),
		RemainingItemCount: lm.GetRemainingItemCount(),
	}
}
