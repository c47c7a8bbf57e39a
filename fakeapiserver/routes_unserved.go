package fakeapiserver

import (
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kube-apiserver has routes lw-sim has no handler for: the connect
// subresources (log, exec, attach, port-forward, the proxies), pods'
// ephemeralcontainers and resize, serviceaccounts/token,
// namespaces/finalize and the bindings collection. Their routes still
// decide which methods they take, and a method they do not take is
// go-restful's 405 before any handler runs; lw-sim answers those 405s as
// the real server does, and the methods the route takes with the 404 of
// an unserved path (conformance/DIVERGENCES.md, "Built-in groups").

// proxyMethods are the methods of the proxy subresources' routes
// (kubernetes pkg/registry/core/{pod,node,service}/rest proxyMethods).
var proxyMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
	http.MethodHead, http.MethodOptions}

// unservedRoute is one route lw-sim does not serve.
type unservedRoute struct {
	// methods are the methods the route takes (its ConnectMethods, or the
	// methods of its Getter, Updater, Patcher or Creater).
	methods []string
	// subpath is set for the routes that take "{path:*}" after the
	// subresource (connectSubpath).
	subpath bool
}

// unservedSubresources are the subresource routes of kube-apiserver v1.37.2
// (kubernetes pkg/registry/core/{pod,node,service,serviceaccount,namespace}
// storage) that lw-sim does not serve, by resource and subresource.
var unservedSubresources = map[schema.GroupResource]map[string]unservedRoute{
	{Resource: "pods"}: {
		"log":                 {methods: []string{http.MethodGet}},
		"exec":                {methods: []string{http.MethodGet, http.MethodPost}},
		"attach":              {methods: []string{http.MethodGet, http.MethodPost}},
		"portforward":         {methods: []string{http.MethodGet, http.MethodPost}},
		"proxy":               {methods: proxyMethods, subpath: true},
		"ephemeralcontainers": {methods: []string{http.MethodGet, http.MethodPut, http.MethodPatch}},
		"resize":              {methods: []string{http.MethodGet, http.MethodPut, http.MethodPatch}},
	},
	{Resource: "nodes"}:           {"proxy": {methods: proxyMethods, subpath: true}},
	{Resource: "services"}:        {"proxy": {methods: proxyMethods, subpath: true}},
	{Resource: "serviceaccounts"}: {"token": {methods: []string{http.MethodPost}}},
	{Resource: "namespaces"}:      {"finalize": {methods: []string{http.MethodPut}}},
}

// unservedRouteOf is the unserved route a parsed path takes, if any: a
// subresource of the table above (whose path fits the resource's scope),
// or a POST-only collection kube-apiserver has and lw-sim does not
// (core/v1 bindings, a create-only resource of pods' namespaces).
func unservedRouteOf(info requestInfo, res *resourceInfo) (unservedRoute, bool) {
	if info.forceWatch || info.subresource == "" || res.ClusterScoped == info.namespaced {
		return unservedRoute{}, false
	}
	r, ok := unservedSubresources[res.gvr.GroupResource()][info.subresource]
	if !ok || (info.subpath && !r.subpath) {
		return unservedRoute{}, false
	}
	return r, true
}

// unservedCollection reports whether a path names the bindings
// collection of a namespace, which kube-apiserver routes (POST only) and
// lw-sim does not serve.
func unservedCollection(info requestInfo) bool {
	return info.gv == schema.GroupVersion{Version: "v1"} && info.resource == "bindings" && info.namespaced &&
		!info.item && !info.forceWatch
}

// unservedError is the answer to a request on an unserved route: 405 for
// a method the route does not take, else the 404 of a path no handler
// serves.
func unservedError(methods []string, method string) error {
	if !slices.Contains(methods, method) {
		return methodNotAllowed()
	}
	return notFound()
}
