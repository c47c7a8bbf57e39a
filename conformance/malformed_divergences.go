package conformance

import (
	"net/http"
	"path"
)

// Reasons a corpus request is excluded; DIVERGENCES.md, "The
// malformed-request corpus", explains each at length.
const (
	reasonUnservedRoute = "a route lw-sim does not serve: the methods it takes get the 404 of an unserved path " +
		"(DIVERGENCES.md, Built-in groups); the methods it does not take are compared"
	reasonGenerateNameOnUpdate = "an update's generateName is replaced by the stored one, so not validated (DIVERGENCES.md, Validation)"
	reasonYAMLBound            = "YAML aliases expanding past 24 MiB of JSON are a 413: kube-apiserver expands them " +
		"(DIVERGENCES.md, YAML aliases are bounded)"
)

// malformedDivergences are the corpus requests (internal/malformed) the
// fake answers otherwise than kube-apiserver v1.37.2 on purpose, by name
// or by a path.Match pattern of names, each with its reason.
var malformedDivergences = append(unservedRoutes(),
	malformedDivergence{"body/update/json/generatename-long", reasonGenerateNameOnUpdate},
	malformedDivergence{"size/create/yaml-alias-32MiB", reasonYAMLBound},
)

// malformedDivergence excludes the corpus requests whose names match
// pattern.
type malformedDivergence struct {
	pattern, reason string
}

// unservedRoutes are the corpus's requests with a method an unserved route
// takes (fakeapiserver/routes_unserved.go): the real server runs its
// handler, the fake answers 404.
func unservedRoutes() []malformedDivergence {
	proxy := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions}
	// A HEAD of a missing node's proxy is a 404 with no body on both.
	nodeProxy := proxy[:5:5]
	nodeProxy = append(nodeProxy, http.MethodOptions)
	routes := map[string][]string{
		"pod-log":                 {http.MethodGet},
		"pod-exec":                {http.MethodGet, http.MethodPost},
		"pod-attach":              {http.MethodGet, http.MethodPost},
		"pod-portforward":         {http.MethodGet, http.MethodPost},
		"pod-proxy":               proxy,
		"pod-proxy-path":          proxy,
		"node-proxy":              nodeProxy,
		"node-proxy-path":         nodeProxy,
		"service-proxy":           proxy,
		"pod-ephemeralcontainers": {http.MethodGet, http.MethodPut, http.MethodPatch},
		"pod-resize":              {http.MethodGet, http.MethodPut, http.MethodPatch},
		"bindings":                {http.MethodPost},
	}
	var out []malformedDivergence
	for kind, methods := range routes {
		for _, m := range methods {
			out = append(out, malformedDivergence{"verbs/" + kind + "/" + m, reasonUnservedRoute})
		}
	}
	return out
}

// malformedExcluded reports whether the corpus request name is excluded
// from the comparison, and why.
func malformedExcluded(name string) (string, bool) {
	for _, d := range malformedDivergences {
		if ok, _ := path.Match(d.pattern, name); ok {
			return d.reason, true
		}
	}
	return "", false
}
