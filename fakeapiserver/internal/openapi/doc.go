// Package openapi serves the /openapi/v2 and /openapi/v3 documents of a
// fakeapiserver as kube-apiserver serves them, on kube-openapi's handler
// (v2) and handler3's contract (v3): kube-apiserver v1.37.2's own documents
// (internal/captured) byte for byte for the group-versions it serves, a
// generated document ([Generate]) for any other, and the documents
// apiextensions-apiserver builds for CRDs ([Service.SyncCustomResources]),
// published and withdrawn at runtime.
package openapi
