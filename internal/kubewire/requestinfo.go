package kubewire

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RequestInfo is what kube-apiserver's RequestInfoFactory
// (apiserver pkg/endpoints/request/requestinfo.go) reads from a request: the
// verb and, for a resource request, the group, version, namespace,
// resource, subresource and name.
type RequestInfo struct {
	// IsResourceRequest is false for paths outside /api/<v> and
	// /apis/<g>/<v> (discovery roots, /healthz, /version, /openapi).
	IsResourceRequest bool
	// Verb is the Kubernetes verb (get, list, watch, create, update, patch,
	// delete, deletecollection, or the path verb); for a non-resource
	// request it is the lower-cased method. [ParsePath] leaves it empty.
	Verb string
	// PathVerb is "watch" or "proxy" when the path begins with that
	// deprecated verb segment (/api/v1/watch/...), or "".
	PathVerb string
	// APIPrefix is "api" or "apis"; Group is empty for "api".
	APIPrefix, Group, Version string
	// Namespace is the namespace the path names. For a Namespace object it
	// is that namespace itself, as RequestInfoFactory scopes it for
	// authorization; see [RequestInfo.ObjectNamespace].
	Namespace string
	// InNamespace is set when the resource comes after a namespace segment
	// (/namespaces/<ns>/<resource>), even an empty one: such a path is a
	// namespaced route's (an empty Namespace there is "Namespace parameter
	// required", not the cluster-wide path). A Namespace object's own path
	// is not in a namespace.
	InNamespace bool
	// Resource, Name and Subresource are the resource/name/subresource
	// segments after the namespace.
	Resource, Name, Subresource string
	// Parts are the segments from the resource on; more than three means
	// segments RequestInfoFactory does not interpret.
	Parts []string
}

// Path verbs and subresources RequestInfoFactory knows by name (its
// sets, as switches: a request reads them on every parse).

// isSpecialVerb reports the deprecated verb prefixes of resource paths.
func isSpecialVerb(s string) bool { return s == "proxy" || s == "watch" }

// isSpecialVerbNoSubresources reports the path verbs whose third part is
// not a subresource.
func isSpecialVerbNoSubresources(s string) bool { return s == "proxy" }

// isNamespaceSubresource reports the subresources of a namespace object,
// which must not be mistaken for a namespaced resource's name.
func isNamespaceSubresource(s string) bool { return s == "status" || s == "finalize" }

// methodVerb is the verb of a resource request's method before the
// collection rules apply ("" for a method with none).
func methodVerb(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// ParsePath reads a URL path as RequestInfoFactory does, all but the verb
// (which needs the method and query: [NewRequestInfo]). Like the factory it
// fails only for a path verb with nothing after it ("/api/v1/watch"), and
// then returns what it read so far.
func ParsePath(path string) (RequestInfo, error) {
	info := RequestInfo{}
	parts := SplitPath(path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return info, nil
	}
	info.APIPrefix, parts = parts[0], parts[1:]
	if info.APIPrefix == "apis" {
		// The group takes one more segment: /apis/<g>/<v>/<resource>.
		if len(parts) < 3 {
			return info, nil
		}
		info.Group, parts = parts[0], parts[1:]
	}
	info.IsResourceRequest = true
	info.Version, parts = parts[0], parts[1:]
	if isSpecialVerb(parts[0]) {
		if len(parts) < 2 {
			return info, fmt.Errorf("unable to determine kind and namespace from url, %s", path)
		}
		info.PathVerb, parts = parts[0], parts[1:]
	}
	info.Parts = scopeParts(&info, parts)
	setResourceParts(&info)
	return info, nil
}

// scopeParts reads /namespaces/<ns>/... into info.Namespace and returns the
// parts from the resource on. A namespace's own subresources
// (/namespaces/<ns>/status) keep "namespaces" as the resource.
func scopeParts(info *RequestInfo, parts []string) []string {
	if parts[0] != "namespaces" || len(parts) < 2 {
		return parts
	}
	info.Namespace = parts[1]
	if len(parts) > 2 && !isNamespaceSubresource(parts[2]) {
		info.InNamespace = true
		return parts[2:]
	}
	return parts
}

// setResourceParts fills in resource, name and subresource from info.Parts.
func setResourceParts(info *RequestInfo) {
	p := info.Parts
	if len(p) >= 3 && !isSpecialVerbNoSubresources(info.PathVerb) {
		info.Subresource = p[2]
	}
	if len(p) >= 2 {
		info.Name = p[1]
	}
	info.Resource = p[0]
}

// NewRequestInfo is RequestInfoFactory.NewRequestInfo for r: [ParsePath]
// and the verb. A GET without a name is a list, or a watch when ?watch= is
// true ([WatchParam]), and takes its name from a metadata.name field
// selector; a DELETE without a name is a deletecollection.
//
// A server parses each request once, at the front of its filter chain
// ([WithRequestInfo]); the rest read that ([RequestInfoOf]).
func NewRequestInfo(r *http.Request) (RequestInfo, error) {
	return newRequestInfo(r, nil)
}

// newRequestInfo is [NewRequestInfo] with r's query already parsed into
// query, or parsed here, only if the verb needs it, when query is nil.
func newRequestInfo(r *http.Request, query url.Values) (RequestInfo, error) {
	countParse(r)
	info, err := ParsePath(r.URL.Path)
	if err != nil {
		return info, err
	}
	if !info.IsResourceRequest {
		info.Verb = strings.ToLower(r.Method)
		return info, nil
	}
	info.Verb = info.PathVerb
	if info.Verb == "" {
		info.Verb = methodVerb(r.Method)
	}
	if info.Name == "" && info.Verb == "get" {
		if query == nil {
			query = r.URL.Query()
		}
		info.Verb, info.Name = collectionRead(query)
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	return info, nil
}

// collectionRead is the verb of a GET on a collection, list or watch, and
// the name a metadata.name field selector narrows it to (a valid path
// segment only). The factory reads both from the decoded ListOptions; when
// they do not decode (a bad selector or limit) the read is still a watch if
// ?watch= says so, but names nothing.
func collectionRead(query url.Values) (verb, name string) {
	verb = "list"
	if WatchParam(query) {
		verb = "watch"
	}
	if !query.Has("fieldSelector") {
		// Decoded or not, ListOptions.Watch is WatchParam's answer: only a
		// field selector needs the decoding (microseconds a request).
		return verb, ""
	}
	opts := metainternalversion.ListOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &opts); err != nil {
		return verb, ""
	}
	if opts.FieldSelector != nil {
		if n, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok && len(content.IsPathSegmentName(n)) == 0 {
			name = n
		}
	}
	return verb, name
}

// WatchParam reads ?watch= with the query-parameter boolean rule
// (apimachinery runtime.Convert_Slice_string_To_bool): absent, "0" and
// "false" in any case are false; anything else, even "", is true.
func WatchParam(query url.Values) bool {
	vals := query["watch"]
	if len(vals) == 0 {
		return false
	}
	return vals[0] != "0" && !strings.EqualFold(vals[0], "false")
}

// SplitPath splits a URL path into its segments, as RequestInfoFactory
// does: leading and trailing slashes dropped, inner empty segments kept.
func SplitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// ObjectNamespace is the namespace the named object lives in: Namespace,
// except for the namespaces resource, which is cluster-scoped although
// RequestInfoFactory scopes a namespace to itself.
func (info RequestInfo) ObjectNamespace() string {
	if info.Resource == "namespaces" {
		return ""
	}
	return info.Namespace
}

// GroupVersionResource is the resource the path names.
func (info RequestInfo) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource}
}
