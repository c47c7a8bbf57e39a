package fakeapiserver

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// requestInfo is what a resource URL names, as kube-apiserver's
// RequestInfoFactory (apiserver pkg/endpoints/request/requestinfo.go) parses it.
type requestInfo struct {
	gv          schema.GroupVersion
	resource    string
	namespace   string
	name        string
	subresource string
	// forceWatch is set for the deprecated /watch/ paths.
	forceWatch bool
}

// namespaceSubresources are the subresources of a namespace object, which
// the parser must not mistake for a namespaced resource name.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// parseResourcePath parses /api/v1/... and /apis/<group>/<version>/...; ok is
// false for paths that are not resource paths (discovery, unknown).
func parseResourcePath(path string) (requestInfo, bool) {
	parts := splitPath(path)
	var info requestInfo
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		info.gv = schema.GroupVersion{Version: parts[1]}
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		info.gv = schema.GroupVersion{Group: parts[1], Version: parts[2]}
		parts = parts[3:]
	default:
		return info, false
	}
	if parts[0] == "watch" {
		info.forceWatch = true
		parts = parts[1:]
		if len(parts) == 0 {
			return info, false
		}
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	info.resource = parts[0]
	if len(parts) > 1 {
		info.name = parts[1]
	}
	if len(parts) > 2 {
		info.subresource = parts[2]
	}
	if len(parts) > 3 {
		return info, false
	}
	if info.resource == "namespaces" {
		// A namespace is cluster-scoped; its own name is not a scope.
		info.namespace = ""
	}
	return info, true
}

// splitPath splits a URL path into its non-empty segments.
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// verb maps an HTTP method on a parsed path to a Kubernetes verb, or "" when
// the method is not allowed there.
func (info requestInfo) verb(method string, watchParam bool) string {
	collection := info.name == ""
	switch method {
	case http.MethodGet:
		switch {
		case info.forceWatch || watchParam:
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
