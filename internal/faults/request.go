package faults

import (
	"net/http"
	"slices"
	"strings"
)

// RequestInfo is what a fault can match on in a request.
type RequestInfo struct {
	// Verb is the Kubernetes verb ("" for a non-resource request).
	Verb string `json:"verb,omitempty"`
	// Resource is the plural name, with ".group" for a non-core group.
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// LabelSelector and FieldSelector are the request's parameters.
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
	UserAgent     string `json:"userAgent,omitempty"`
	// Page is the LIST page (1 without a continue token); 0 when unknown
	// or not a LIST.
	Page int `json:"page,omitempty"`
	// Method and URI identify the request in records.
	Method string `json:"method"`
	URI    string `json:"uri"`
	// ResourceVersion and Continue are the raw parameters.
	ResourceVersion string `json:"-"`
	Continue        string `json:"-"`
	// SendInitialEvents is set for a watch-list.
	SendInitialEvents bool `json:"-"`
}

// namespaceSubresources are a namespace object's subresources, which are
// not namespaced resource names.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// ParseRequest reads r as kube-apiserver's RequestInfoFactory does, enough
// to match faults: the verb, resource, namespace, name and the list
// parameters. Page is left 0; [Injector.Request] fills it in.
func ParseRequest(r *http.Request) RequestInfo {
	q := r.URL.Query()
	info := RequestInfo{
		Method: r.Method, URI: r.URL.RequestURI(), UserAgent: r.UserAgent(),
		LabelSelector: q.Get("labelSelector"), FieldSelector: q.Get("fieldSelector"),
		ResourceVersion: q.Get("resourceVersion"), Continue: q.Get("continue"),
		SendInitialEvents: q.Get("sendInitialEvents") == "true",
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var group string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group, parts = parts[1], parts[3:]
	default:
		return info
	}
	watchPath := parts[0] == "watch"
	if watchPath {
		parts = parts[1:]
	}
	if len(parts) > 1 && parts[0] == "namespaces" {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	if len(parts) == 0 {
		return info
	}
	info.Resource = parts[0]
	if group != "" {
		info.Resource += "." + group
	}
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if info.Resource == "namespaces" {
		info.Namespace = ""
	}
	w := q["watch"]
	info.Verb = verbOf(r.Method, info.Name == "", watchPath || (len(w) > 0 && w[0] != "0" && !strings.EqualFold(w[0], "false")))
	return info
}

// verbOf maps a method on a collection or object path to its verb.
func verbOf(method string, collection, watch bool) string {
	switch method {
	case http.MethodGet:
		switch {
		case watch:
			return "watch"
		case collection:
			return "list"
		}
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if collection {
			return "deletecollection"
		}
		return "delete"
	}
	return ""
}

// matches reports whether m selects the request.
func (m Match) matches(info RequestInfo) bool {
	switch {
	case len(m.Verbs) > 0 && !slices.Contains(m.Verbs, info.Verb):
		return false
	case m.Resource != "" && m.Resource != info.Resource:
		return false
	case m.Namespace != "" && m.Namespace != info.Namespace:
		return false
	case m.LabelSelector != "" && m.LabelSelector != info.LabelSelector:
		return false
	case m.FieldSelector != "" && m.FieldSelector != info.FieldSelector:
		return false
	case m.UserAgent != "" && !strings.Contains(info.UserAgent, m.UserAgent):
		return false
	case m.Page != 0 && m.Page != info.Page:
		return false
	}
	return true
}
