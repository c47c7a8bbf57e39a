package faults

import (
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/kubewire"
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

// ParseRequest reads r as kube-apiserver's RequestInfoFactory does, enough
// to match faults: the verb, resource, namespace, name and the list
// parameters. The RequestInfo is the one a server's filter chain parsed
// and keeps in r's context, else r is parsed here
// (kubewire.RequestInfoOf). Page is left 0; [Injector.Request] fills it in.
func ParseRequest(r *http.Request) RequestInfo {
	q := kubewire.QueryOf(r)
	info := RequestInfo{
		Method: r.Method, URI: r.URL.RequestURI(), UserAgent: r.UserAgent(),
		LabelSelector: q.Get("labelSelector"), FieldSelector: q.Get("fieldSelector"),
		ResourceVersion: q.Get("resourceVersion"), Continue: q.Get("continue"),
		SendInitialEvents: q.Get("sendInitialEvents") == "true",
	}
	ri, err := kubewire.RequestInfoOf(r)
	if err != nil || !ri.IsResourceRequest {
		return info
	}
	info.Verb = ri.Verb
	info.Resource = schema.GroupResource{Group: ri.Group, Resource: ri.Resource}.String()
	// A fault on a namespace matches its objects, not the Namespace itself.
	info.Namespace = ri.ObjectNamespace()
	info.Name = ri.Name
	return info
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
