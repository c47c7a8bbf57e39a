// Package kubewire holds the Kubernetes wire details that the fake API
// server (fakeapiserver), the fault proxy (faultproxy), the fault engine
// (package faults), the scenarios and the conformance suite all need, so
// that each is written once and matches kube-apiserver v1.37 byte for byte:
//
//	requestinfo.go  what a request path names: RequestInfoFactory's rules
//	continue.go     the continue-token codec and its error texts
//	errors.go       upstream error constructors shared by server and faults
//	status.go       an error as the Status a client sees, and its JSON writer
//	frame.go        the JSON watch-event frame: reader and writer
//	cut.go          stream actions: cut a response mid-frame, reset the connection
//
// Each file cites the kube-apiserver source it mirrors. The package keeps no
// state: every function is safe to call from many servers at once.
package kubewire
