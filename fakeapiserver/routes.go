package fakeapiserver

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// requestInfo is what a resource URL names, as the route table reads it
// from kube-apiserver's RequestInfo (kubewire.RequestInfoOf).
type requestInfo struct {
	gv          schema.GroupVersion
	resource    string
	namespace   string
	name        string
	subresource string
	// namespaced is set when the resource comes after a namespace segment,
	// even an empty one: go-restful matches "/namespaces//configmaps" to
	// the namespaced route with an empty {namespace}.
	namespaced bool
	// item is set when the path has a name segment, even an empty one
	// ("/deployments//scale" is the scale route with an empty {name}).
	item bool
	// subpath is set for segments past the subresource, which only the
	// {path:*} routes of the proxy subresources take.
	subpath bool
	// forceWatch is set for the deprecated /watch/ paths.
	forceWatch bool
}

// resourcePath reads the route of a parsed /api/v1/... or
// /apis/<group>/<version>/... path (kubewire.RequestInfoOf); ok is false
// for paths that are not resource paths (discovery, unknown) and for the
// resource paths no route serves: those with segments past the
// subresource (but the proxy subresource's), and the /proxy/ verb paths
// kube-apiserver no longer serves.
func resourcePath(p kubewire.RequestInfo, err error) (requestInfo, bool) {
	if err != nil || !p.IsResourceRequest || p.PathVerb == "proxy" || (len(p.Parts) > 3 && p.Subresource != "proxy") {
		return requestInfo{}, false
	}
	return requestInfo{
		gv:       schema.GroupVersion{Group: p.Group, Version: p.Version},
		resource: p.Resource, namespace: p.ObjectNamespace(), name: p.Name, subresource: p.Subresource,
		namespaced: p.InNamespace, item: len(p.Parts) >= 2, subpath: len(p.Parts) > 3,
		forceWatch: p.PathVerb == "watch",
	}, true
}

// splitPath splits a URL path into its segments, as kube-apiserver does
// (kubewire.SplitPath), for the non-resource routes.
func splitPath(path string) []string { return kubewire.SplitPath(path) }

// verb is the route table's verb of an HTTP method on a parsed path: the
// handler that serves it, or "" when the method is not allowed there (405).
// It is not RequestInfo's verb, which names the method whether or not a
// route serves it. A /watch/ path has one route, a GET (apiserver
// pkg/endpoints/installer.go registers MethodWatch and MethodWatchList as
// GET only), so any other method there is a 405, never a write.
func (info requestInfo) verb(method string, watchParam bool) string {
	if info.forceWatch {
		if method == http.MethodGet {
			return "watch"
		}
		return ""
	}
	collection := !info.item
	switch method {
	case http.MethodGet:
		switch {
		case watchParam:
			return "watch"
		case collection:
			return "list"
		default:
			return "get"
		}
	case http.MethodPost:
		if collection || isCreateSubresource(info.subresource) {
			return "create"
		}
	case http.MethodPut:
		if !collection {
			return "update"
		}
	case http.MethodPatch:
		if !collection {
			return "patch"
		}
	case http.MethodDelete:
		if collection {
			return "deletecollection"
		}
		return "delete"
	}
	return ""
}
