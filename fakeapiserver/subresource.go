package fakeapiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The subresources besides status: scale (subresource_scale.go) on the
// resources that declare a [ScaleSubresource], and pods/eviction
// (subresource_eviction.go) and pods/binding (subresource_binding.go).

// Kinds the subresources speak, each served only if the scheme knows it.
var (
	scaleGVK    = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	evictionGVK = schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}
	bindingGVK  = schema.GroupVersionKind{Version: "v1", Kind: "Binding"}
)

// subresourceServed reports whether res has the named subresource other
// than status (kube-apiserver has no route, so 404, for the others).
func (s *Server) subresourceServed(res *resourceInfo, sub string) bool {
	switch sub {
	case "scale":
		return res.Scale != nil && s.cfg.Scheme.Recognizes(scaleGVK)
	case "eviction":
		return isPod(res) && s.cfg.Scheme.Recognizes(evictionGVK)
	case "binding":
		return isPod(res) && s.cfg.Scheme.Recognizes(bindingGVK)
	}
	return false
}

// subresourceVerbAllowed is the route table of subresources: eviction and
// binding are POST only, status and scale get, update and patch (405 for
// the rest).
func subresourceVerbAllowed(sub, verb string) bool {
	if isCreateSubresource(sub) {
		return verb == "create"
	}
	return verb == "get" || verb == "update" || verb == "patch"
}

// isCreateSubresource reports the subresources a POST to a named object
// creates (the only named POST routes).
func isCreateSubresource(sub string) bool { return sub == "eviction" || sub == "binding" }

// serveSubresource answers requests for scale, eviction and binding; it
// returns false for everything else (the main resource and status).
func (s *Server) serveSubresource(req *request) bool {
	switch req.info.subresource {
	case "scale":
		s.serveScale(req)
	case "eviction":
		s.serveEviction(req)
	case "binding":
		s.serveBinding(req)
	default:
		return false
	}
	return true
}

// subresourceDiscovery lists the subresources of res besides status as
// kube-apiserver's legacy discovery does: the group and version are set
// when the subresource's kind is of another group-version than res.
func (s *Server) subresourceDiscovery(res *resourceInfo) []metav1.APIResource {
	var out []metav1.APIResource
	add := func(sub string, gvk schema.GroupVersionKind, verbs metav1.Verbs) {
		if !s.subresourceServed(res, sub) {
			return
		}
		r := metav1.APIResource{Name: res.gvr.Resource + "/" + sub, Namespaced: !res.ClusterScoped, Kind: gvk.Kind, Verbs: verbs}
		if gvk.GroupVersion() != res.Kind.GroupVersion() {
			r.Group, r.Version = gvk.Group, gvk.Version
		}
		out = append(out, r)
	}
	add("binding", bindingGVK, metav1.Verbs{"create"})
	add("eviction", evictionGVK, metav1.Verbs{"create"})
	add("scale", scaleGVK, statusVerbs())
	return out
}
