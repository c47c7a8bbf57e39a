package fakeapiserver

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
)

// The subresources besides status: scale (subresource_scale.go) on the
// resources that declare a [ScaleSubresource], pods/eviction
// (subresource_eviction.go), pods/binding (subresource_binding.go),
// serviceaccounts/token (tokenrequest.go),
// certificatesigningrequests/approval (subresource_approval.go) and
// namespaces/finalize (subresource_finalize.go).

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
		return res.strategy.Serves(sub) && s.cfg.Scheme.Recognizes(evictionGVK)
	case "binding":
		return res.strategy.Serves(sub) && s.cfg.Scheme.Recognizes(bindingGVK)
	case "token":
		return res.strategy.Serves(sub) && s.cfg.Scheme.Recognizes(tokenRequestGVK)
	}
	return res.strategy.Serves(sub)
}

// subresourceVerbAllowed is the route table of subresources: eviction,
// binding and token are POST only, a namespace's finalize PUT only, status
// and scale get, update and patch (405 for the rest).
func subresourceVerbAllowed(sub, verb string) bool {
	if isCreateSubresource(sub) {
		return verb == "create"
	}
	if sub == "finalize" {
		return verb == "update"
	}
	return verb == "get" || verb == "update" || verb == "patch"
}

// isCreateSubresource reports the subresources a POST to a named object
// creates (the only named POST routes).
func isCreateSubresource(sub string) bool {
	return sub == "eviction" || sub == "binding" || sub == "token"
}

// postSubresource answers a POST to a create subresource (eviction,
// binding): the create handler's decoding of the body as gvk with the
// object's scope (406, 415, 413, 400/422) and mutating admission, then
// act on the decoded body (which runs validating admission where the
// storage's Create calls createValidation); 201 with a Success Status.
func (s *Server) postSubresource(req *request, gvk schema.GroupVersionKind, newObject func() runtime.Object, act func(*request, runtime.Object) error) (response, error) {
	obj, out, err := s.decodeCreate(subresourceRequest(req, gvk, newObject))
	if err != nil {
		return response{}, err
	}
	// The create handler's namespace check, then its mutating admission
	// of the posted object (its kind's, the URL's name).
	if err := checkObjectNamespace(req.res, req.info.namespace, obj); err != nil {
		return response{}, err
	}
	if err := s.admitMutating(writeAdmission(req, nil), admission.Create, obj, nil); err != nil {
		return response{}, err
	}
	if err := act(req, obj); err != nil {
		return response{}, err
	}
	return response{code: http.StatusCreated, out: out, obj: createdStatus()}, nil
}

// subresourceRequest is req retargeted at a subresource's kind (the Scale
// read and written, the Eviction or Binding posted), for decoding and
// patching it with the scope of the object it belongs to.
func subresourceRequest(req *request, gvk schema.GroupVersionKind, newObject func() runtime.Object) *request {
	sreq := *req
	sreq.res = &resourceInfo{
		Resource:  Resource{Kind: gvk, ClusterScoped: req.res.ClusterScoped},
		gvr:       req.res.gvr,
		newObject: newObject,
	}
	return &sreq
}

// createdStatus is what a create that returns a bare Success Status
// answers: the create handler fills in code 201.
func createdStatus() *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Code:     http.StatusCreated,
	}
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
	add("scale", scaleGVK, discovery.StatusVerbs())
	return out
}
