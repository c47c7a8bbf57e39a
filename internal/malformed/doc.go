// Package malformed is a corpus of malformed Kubernetes API requests: paths
// with "..", "." and empty or encoded segments, the wrong method for every
// kind of path (watch paths and subresources included), bad values of every
// list, watch and write option, resourceVersions that overflow, bad bodies
// and content types, and deep, large and aliased bodies within sizes a CI
// run can afford.
//
// The corpus is generated, not recorded: [Corpus] builds the same requests,
// in the same order and with the same names, every time. Two users read it:
//
//   - conformance's Malformed* cases send every request to a server and
//     compare each answer (status code, reason, message) with the answer
//     kube-apiserver v1.37.2 gave, kept in conformance/testdata;
//   - the fuzz targets of fakeapiserver and internal/kubewire take its
//     paths, queries and bodies as seeds.
//
// A request names the objects of a [Fixture] (one namespace holding a
// ConfigMap, a Pod and a Deployment) and otherwise only names that exist
// nowhere, so a server that wrongly accepts a request harms nothing but the
// fixture, which the sender restores (see [Request.Mutates]). A DELETE that
// does not test its query is a dry run with a label selector no object
// matches, so that even one routed to the fixture's namespace or to a
// collection deletes nothing.
package malformed
