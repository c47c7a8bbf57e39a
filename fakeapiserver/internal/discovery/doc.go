// Package discovery builds the discovery documents of a fakeapiserver as
// kube-apiserver v1.37 serves them: the legacy /api, /apis, /apis/<group>
// and per-group-version resource lists, and the aggregated
// apidiscovery.k8s.io/v2 form of /api and /apis with its ETag caching.
//
// The documents are functions of a [Table], the served resources as
// discovery sees them. [Builtin] is kube-apiserver's own discovery of the
// group-versions it serves by default (internal/captured), from which the
// server takes names, verbs and subresources of the built-in resources;
// [CustomResource] describes a CRD version's resource as
// apiextensions-apiserver does. The HTTP routing and content negotiation
// stay with the server, which shares them with the resource handlers.
package discovery
