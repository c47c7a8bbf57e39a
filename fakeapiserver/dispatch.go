package fakeapiserver

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A resource request flows: buildHandler's filters (handler.go) → route
// and resourceRequest (the routing errors) → serveVerb → the handler the
// dispatch tables below name → one writer: writeResponse (response.go)
// for an answer, writeError (status.go) for an error. Watch is the one
// exception: serveWatch (watch.go) streams its events itself.

// verbHandler is the shape of every resource verb but watch: it makes the
// upstream handler's checks in their order and returns the answer, or the
// error to answer with. A handler writes neither a status line nor a body
// (serveVerb does, with writeResponse or writeError); it may add headers
// (Warning, X-Lwsim-Compacted-Revision), which go out with either.
type verbHandler func(s *Server, req *request) (response, error)

// verbHandlers serve the main resource, and its status and approval
// subresources (whose body is the whole object), by verb.
var verbHandlers = map[string]verbHandler{
	"get":              (*Server).handleGet,
	"list":             (*Server).handleList,
	"create":           (*Server).handleCreate,
	"update":           (*Server).handleUpdate,
	"patch":            (*Server).handlePatch,
	"delete":           (*Server).handleDelete,
	"deletecollection": (*Server).handleDeleteCollection,
}

// subresourceHandlers serve the subresources besides status, each with one
// handler for all of its verbs.
var subresourceHandlers = map[string]verbHandler{
	"scale":    (*Server).handleScale,
	"eviction": (*Server).handleEviction,
	"binding":  (*Server).handleBinding,
	"token":    (*Server).handleTokenRequest,
}

// serveVerb runs the request's handler and writes what it returns: the
// response, or the error as a Status. Watch, the one streaming verb,
// writes its own stream (watch.go).
func (s *Server) serveVerb(req *request) {
	if req.verb == "watch" {
		s.serveWatch(req)
		return
	}
	s.serveResponse(req)
}

// serveResponse answers a request of a verb other than watch with its
// handler's response. It is not inlined into serveVerb, whose frame would
// then hold the response under every open watch (serveWatch).
//
//go:noinline
func (s *Server) serveResponse(req *request) {
	resp, err := s.handle(req)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.writeResponse(req, resp)
}

// handle runs the request's handler; a request no handler serves is
// go-restful's 405, although routing (verbAllowed) lets none through.
func (s *Server) handle(req *request) (response, error) {
	h, ok := handlerOf(req)
	if !ok {
		return response{}, methodNotAllowed()
	}
	return h(s, req)
}

// handlerOf is the dispatch table's lookup: the subresource's handler,
// else the verb's, where the create of a review kind is a review.
func handlerOf(req *request) (verbHandler, bool) {
	if h, ok := subresourceHandlers[req.info.subresource]; ok {
		return h, true
	}
	if req.verb == "create" && req.res.review != nil {
		return (*Server).handleReview, true // reviews.go
	}
	h, ok := verbHandlers[req.verb]
	return h, ok
}

// methodNotAllowed is go-restful's 405 for a method no route of the path
// serves, as kube-apiserver's serviceErrorHandler writes it
// (pkg/server/handler.go).
func methodNotAllowed() error {
	return apierrors.NewGenericServerResponse(http.StatusMethodNotAllowed, "", schema.GroupResource{}, "", "405: Method Not Allowed", 0, false)
}
