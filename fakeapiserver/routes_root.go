package fakeapiserver

import (
	"net/http"
	"strings"
)

// kube-apiserver's director (apiserver pkg/server/handler.go) hands a path
// to its go-restful container when it falls under the root path of a
// registered web service: /api (and /api/v1), /version, /apis/<group> and
// /apis/<group>/<version> of a served group, and /apis itself, but only as
// "/apis" or "/apis/" (the special case in director.ServeHTTP). A path no
// route of the container serves is go-restful's 404, a Status. Every other
// path goes to the non-go-restful mux, whose handlers match exact paths
// (/healthz, /healthz/ping, /openapi/v2, ...; PathRecorderMux), and ends
// in the delegation chain's NotFound handler: a plain-text "404 page not
// found", as http.NotFound writes it.

// restfulPath reports whether kube-apiserver's director hands path to the
// go-restful container.
func (s *Server) restfulPath(path string) bool {
	if path == "/apis" || path == "/apis/" || hasRootPath(path, "/api") || hasRootPath(path, "/version") {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/apis/")
	if !ok {
		return false
	}
	group, _, _ := strings.Cut(rest, "/")
	return group != "" && s.resources.servesGroup(group)
}

// hasRootPath reports whether path is root or under it (the director's
// prefix match at a path boundary).
func hasRootPath(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+"/")
}

// isExactPath reports whether path is as the non-go-restful mux registers
// its paths: no empty segment, no trailing slash.
func isExactPath(path string) bool {
	return path == "/"+strings.Join(splitPath(path), "/")
}

// serveNonRestful answers a path outside the go-restful container: the
// health, version and OpenAPI endpoints at their exact paths, else the
// plain-text 404.
func (s *Server) serveNonRestful(w http.ResponseWriter, r *http.Request) {
	if isExactPath(r.URL.Path) && s.serveNonResource(w, r) {
		return
	}
	http.NotFound(w, r)
}
