// Package openapi serves the /openapi/v2 and /openapi/v3 documents of a
// fakeapiserver as kube-apiserver serves them, on the contracts of
// kube-openapi's handler (v2: the same status, headers and bytes, checked
// against it in v2_test.go) and handler3 (v3): kube-apiserver v1.37.2's
// own documents (internal/captured) byte for byte for the group-versions
// it serves, a generated document ([Generate]) for any other, and the
// documents apiextensions-apiserver builds for CRDs
// ([Service.SyncCustomResources]), published and withdrawn at runtime.
//
// The v2 document of the default group-versions is served prebuilt
// (prebuilt.go: embedded, its gzip form sent as it is), so a fresh
// server's first answer to kubectl costs a copy, not the seconds of
// kube-openapi's protobuf conversion; any other composition is composed
// and encoded when first asked for, and each form compressed once.
package openapi
