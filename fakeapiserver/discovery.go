package fakeapiserver

import (
	"net/http"

	"github.com/munnerz/goautoneg"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
)

// discoveryOutput is the negotiated form of a discovery response.
type discoveryOutput struct {
	info runtime.SerializerInfo
	// aggregated selects the apidiscovery.k8s.io/v2 APIGroupDiscoveryList.
	aggregated bool
}

// serveDiscovery answers the discovery endpoints kube-apiserver serves:
// /api, /api/<version>, /apis, /apis/<group> and /apis/<group>/<version>,
// for served group-versions only, with the documents of internal/discovery.
// /api and /apis answer in the aggregated form when the Accept header asks
// for it. It returns false, writing nothing, for any other path (including
// unserved groups and versions, which the caller answers with its 404).
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) bool {
	parts := splitPath(r.URL.Path)
	if len(parts) == 0 || len(parts) > 3 || (parts[0] != "api" && parts[0] != "apis") {
		return false
	}
	if len(parts) == 1 {
		// /api or /apis: the only endpoints with an aggregated form.
		s.serveDiscoveryRoot(w, r, parts[0] == "api")
		return true
	}
	obj, ok := discoveryTable{s}.document(parts)
	if !ok {
		return false
	}
	if !s.checkDiscoveryMethod(w, r) {
		return true
	}
	out, err := s.negotiateDiscovery(r, false)
	if err != nil {
		s.writeError(w, r, err)
		return true
	}
	s.respond(w, r, outputType{info: out.info}, http.StatusOK, obj)
	return true
}

// document is the discovery document of /api/<v>, /apis/<g> or
// /apis/<g>/<v> (path segments parts), if it is served.
func (t discoveryTable) document(parts []string) (runtime.Object, bool) {
	switch {
	case parts[0] == "apis" && len(parts) == 2:
		return discovery.APIGroup(t, parts[1])
	case parts[0] == "api" && len(parts) == 2:
		return servedResourceList(t, schema.GroupVersion{Version: parts[1]})
	case parts[0] == "apis" && len(parts) == 3:
		return servedResourceList(t, schema.GroupVersion{Group: parts[1], Version: parts[2]})
	}
	return nil, false
}

// servedResourceList is gv's resource list, if gv is served.
func servedResourceList(t discovery.Table, gv schema.GroupVersion) (runtime.Object, bool) {
	if !discovery.Serves(t, gv) {
		return nil, false
	}
	return discovery.APIResourceList(t, gv), true
}

// serveDiscoveryRoot answers /api (core) or /apis (every other group), in
// the aggregated or the legacy form.
func (s *Server) serveDiscoveryRoot(w http.ResponseWriter, r *http.Request, core bool) {
	if !s.checkDiscoveryMethod(w, r) {
		return
	}
	out, err := s.negotiateDiscovery(r, true)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	t := discoveryTable{s}
	switch {
	case out.aggregated:
		if err := discovery.WriteAggregated(w, r, out.info, discovery.Aggregated(t, core)); err != nil {
			s.writeError(w, r, err)
		}
	case core:
		s.respond(w, r, outputType{info: out.info}, http.StatusOK, discovery.APIVersions(t, r.Host))
	default:
		s.respond(w, r, outputType{info: out.info}, http.StatusOK, discovery.APIGroupList(t))
	}
}

// checkDiscoveryMethod answers anything but GET with the 405 kube-apiserver's
// go-restful routes give; ok is false when it did.
func (s *Server) checkDiscoveryMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet {
		return true
	}
	s.writeError(w, r, nonResourceMethodNotAllowed())
	return false
}

// negotiateDiscovery picks the output form as kube-apiserver's discovery
// wrapper does (apiserver pkg/endpoints/discovery/aggregated/wrapper.go and
// negotiation.go): the first Accept clause that a serializer can produce,
// where a clause asking for apidiscovery.k8s.io/v2 APIGroupDiscoveryList
// selects the aggregated form (only where allowAggregated) and any other
// conversion or a stream is not acceptable. With no acceptable clause it
// is a 406: go-restful's where kube-apiserver routes the path through
// go-restful and no clause names a produced type, else the handler's.
// Unknown parameters, such as client-go's profile=nopeer, are ignored: this
// server has no peers.
func (s *Server) negotiateDiscovery(r *http.Request, allowAggregated bool) (discoveryOutput, error) {
	header := r.Header.Get("Accept")
	if header == "" {
		return discoveryOutput{info: s.codecs.SupportedMediaTypes()[0]}, nil
	}
	for _, clause := range goautoneg.ParseAccept(header) {
		for _, info := range s.codecs.SupportedMediaTypes() {
			if !mediaRangeMatches(clause, info) || clause.Params["stream"] != "" {
				continue
			}
			if discovery.IsAggregatedClause(clause.Params) {
				if allowAggregated {
					return discoveryOutput{info: info, aggregated: true}, nil
				}
				continue
			}
			if _, ok := acceptParams(clause.Params, info, noTransforms); ok {
				return discoveryOutput{info: info}, nil
			}
		}
	}
	if viaGoRestful(r.URL.Path) {
		if err := s.restfulNotAcceptable(r, false); err != nil {
			return discoveryOutput{}, err
		}
	}
	return discoveryOutput{}, s.handlerNotAcceptable()
}

// viaGoRestful reports whether kube-apiserver serves a discovery path on a
// go-restful route, whose own Accept check answers first when no clause
// names a type it produces: /api, /api/<v> and /apis/<g>/<v> are such
// routes, while kube-aggregator serves /apis and /apis/<g> on its
// non-restful mux (kube-aggregator pkg/apiserver/handler_apis.go).
func viaGoRestful(path string) bool {
	parts := splitPath(path)
	return len(parts) > 0 && (parts[0] == "api" || len(parts) == 3)
}
