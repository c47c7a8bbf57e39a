package fakeapiserver

import (
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/hostcheck"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// request is one resource request after routing: what it names and which
// served resource that is. A verb handler (dispatch.go) only adds headers
// to w; serveVerb writes the rest.
type request struct {
	w    http.ResponseWriter
	r    *http.Request
	info requestInfo
	res  *resourceInfo
	verb string
}

// buildHandler assembles the filter chain: the request's one parse
// (kube-apiserver's WithRequestInfo: every filter and handler behind it
// reads the RequestInfo it keeps in the context,
// kubewire.RequestInfoOf), the Host check, the request-deadline filter,
// authentication, impersonation and authorization (auth.go), then routing
// to discovery, non-resource endpoints or a resource verb.
func (s *Server) buildHandler() http.Handler {
	authorized := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorize(w, r) { // authz.go
			return
		}
		if s.serveControl(w, r) { // fault control API, when enabled (faults.go)
			return
		}
		s.route(w, r)
	})
	impersonated := s.newImpersonation(authorized) // impersonate.go
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Audit-Id", newUID())
		// kube-apiserver's WithCacheControl filter, outside authentication
		// and every handler: an answer that sets no Cache-Control of its own
		// (aggregated discovery's "public", a hashed OpenAPI v3 document's
		// "public, immutable") is not to be cached, /version and the health
		// endpoints included.
		w.Header().Set("Cache-Control", "no-cache, private")
		// The request's one parse (kubewire.WithRequestInfo) and what
		// authentication reads (authContext) go in with one copy of r.
		r = r.WithContext(s.authContext(kubewire.ContextWithRequestInfo(r), w))
		if s.hosts != nil && !s.hosts.Allowed(r.Host) { // Config.AllowedHosts
			hostcheck.WriteForbidden(w, r.Host)
			return
		}
		// kube-apiserver's request-deadline filter runs outside
		// authentication (request_timeout.go).
		if err := checkTimeoutParam(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		r, ok := s.authenticate(w, r) // authn.go
		if !ok {
			return
		}
		if impersonating(r) {
			impersonated.ServeHTTP(w, withRequestInfo(r))
			return
		}
		authorized.ServeHTTP(w, r)
	})
}

// serveInFlight is the outermost step of the server's own chain: it counts
// the request in flight (for Close), and sets a watch up on a goroutine of
// its own to follow its changes here, on a shallow stack
// (watch_handoff.go). It is outside the balancer and the filters so that
// none of their frames is under a watch's follow loop.
func (s *Server) serveInFlight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.enter() {
			defer s.inflight.Done()
		}
		if !mayBeWatch(r) {
			next.ServeHTTP(w, r)
			return
		}
		setUpWatchElsewhere(next, w, r).follow()
	})
}

// enter counts a request in flight unless the server is closing. Taking mu
// orders every Add before Close's Wait, as sync.WaitGroup requires. A
// request that arrives after Close (through Handler, say) is still served,
// uncounted: /readyz then reports the shutdown, and a watch ends at once.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// route dispatches a request by path: outside the paths kube-apiserver's
// go-restful container serves, the exact non-resource endpoints
// (routes_root.go); inside, discovery and the non-resource endpoints, else a
// resource request to its verb's handler (serveVerb).
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if req := s.routeRequest(w, r); req != nil {
		s.serveVerb(req)
	}
}

// routeRequest is route up to the verb: it answers a request that is not
// a resource verb's (or fails to route, or a fault takes) and returns nil,
// else the resource request to serve. It is not inlined into route, whose
// frame would then hold the parsed path under every open watch
// (serveWatch).
//
//go:noinline
func (s *Server) routeRequest(w http.ResponseWriter, r *http.Request) *request {
	if !s.restfulPath(r.URL.Path) {
		s.serveNonRestful(w, r)
		return nil
	}
	info, ok := resourcePath(kubewire.RequestInfoOf(r))
	if !ok {
		if s.serveDiscovery(w, r) || s.serveNonResource(w, r) {
			return nil
		}
		s.writeError(w, r, notFound())
		return nil
	}
	req, err := s.resourceRequest(w, r, info)
	if err != nil {
		s.writeError(w, r, err)
		return nil
	}
	if s.faultRequest(req) { // injected latency, failure or LIST cut (faults_request.go)
		return nil
	}
	return req
}

// resourceRequest routes a resource path to the served resource and the
// verb, failing as go-restful's router does: 404 when no route serves the
// path, then restfulRouteError's 405, 415 and 406; then, for a route with
// an empty {name}, the handlers' 400.
func (s *Server) resourceRequest(w http.ResponseWriter, r *http.Request, info requestInfo) (*request, error) {
	if unservedCollection(info) {
		return nil, unservedError([]string{http.MethodPost}, r.Method) // routes_unserved.go
	}
	res, ok := s.resources.lookup(info.gv.WithResource(info.resource))
	if !ok {
		return nil, notFound()
	}
	if !s.validScope(info, res) {
		// A route kube-apiserver has and lw-sim does not serve still
		// refuses the methods it does not take (routes_unserved.go); a
		// subresource served here is never looked up there.
		if route, ok := unservedRouteOf(info, res); ok {
			return nil, unservedError(route.methods, r.Method)
		}
		return nil, notFound()
	}
	r = res.readStrategy().withResource(r, res) // its serializers, for custom resources (customresource_codec.go)
	verb := info.verb(r.Method, isWatchParam(r))
	if err := s.restfulRouteError(r, info, res, verb); err != nil {
		return nil, err
	}
	if info.item && info.name == "" {
		return nil, errNameRequired // every item handler asks its namer first (storage_key.go)
	}
	return &request{w: w, r: r, info: info, res: res, verb: verb}, nil
}

// restfulRouteError applies, in go-restful's order, the checks its router
// makes before any kube-apiserver handler runs (go-restful jsr311.go
// detectRoute, with errors written by pkg/server/handler.go
// serviceErrorHandler): the method (405), the Content-Type of a PATCH,
// the only route that declares what it consumes (415), then Accept (406).
func (s *Server) restfulRouteError(r *http.Request, info requestInfo, res *resourceInfo, verb string) error {
	if verb == "" || !verbAllowed(info, res, verb) {
		return methodNotAllowed()
	}
	if verb == "patch" && !restfulConsumesPatch(r.Header.Get("Content-Type")) {
		return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "", "415: Unsupported Media Type", 0, false)
	}
	return s.restfulNotAcceptable(r, verb == "list" || verb == "watch")
}

// validScope rejects paths whose namespace part does not fit the resource's
// scope, that name a subresource the resource lacks, or that are a /watch/
// path kube-apiserver has no route for; they are 404.
func (s *Server) validScope(info requestInfo, res *resourceInfo) bool {
	if res.ClusterScoped && info.namespaced {
		return false
	}
	// kube-apiserver installs the cluster-wide path of a namespaced
	// resource only to list it, and the item path only for item verbs, so
	// a review has neither.
	if !res.ClusterScoped && !info.namespaced && !slices.Contains(res.verbs, "list") {
		return false
	}
	if info.item && !slices.ContainsFunc(res.verbs, isItemVerb) {
		return false
	}
	// The /watch/ routes are installed for a resource that watches, never
	// for a subresource (installer.go registerResourceHandlers: "watch/" +
	// resourcePath and itemPath, both of the main resource here).
	if info.forceWatch && (info.subresource != "" || !slices.Contains(res.verbs, "watch")) {
		return false
	}
	if info.subpath {
		return false // only unserved proxy routes take a subpath
	}
	switch info.subresource {
	case "":
		return true
	case "status":
		return res.hasStatus
	case "scale":
		return res.readStrategy().scaleServed(s, res)
	default:
		return s.subresourceServed(res, info.subresource)
	}
}

// isItemVerb reports whether verb acts on one named object.
func isItemVerb(verb string) bool {
	return verb == "get" || verb == "update" || verb == "patch" || verb == "delete"
}

// verbAllowed applies the route table's limits: the resource's verbs (no
// deletecollection of namespaces, only create for reviews, ...), a
// namespaced collection is only listed or watched across namespaces, and
// subresources have no collection verbs.
func verbAllowed(info requestInfo, res *resourceInfo, verb string) bool {
	if info.subresource != "" {
		return subresourceVerbAllowed(info.subresource, verb)
	}
	if !slices.Contains(res.verbs, verb) {
		return false
	}
	if !res.ClusterScoped && !info.namespaced {
		return verb == "list" || verb == "watch"
	}
	return true
}

// isWatchParam reads ?watch= with the query-parameter boolean rules
// (absent, "0" and "false" are false; anything else, even "", is true).
func isWatchParam(r *http.Request) bool {
	// runtime.Convert_Slice_string_To_bool's rule, so routing agrees with
	// the ListOptions decoding.
	return kubewire.WatchParam(kubewire.QueryOf(r))
}

// notFound is the 404 for a path under a served group-version that no
// route serves, as go-restful's router reports it and kube-apiserver's
// serviceErrorHandler writes it (pkg/server/handler.go).
func notFound() error {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "404 page not found", 0, false)
}
