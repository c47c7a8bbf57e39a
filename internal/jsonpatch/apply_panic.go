package jsonpatch

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrUpstreamPanic is wrapped by the error ApplyWithLimit returns where
// upstream's patch code, unchanged here, panics: it dereferences a missing
// operation value (`[{"op":"test","path":""}]`, `[{"op":"replace","path":""}]`)
// or a null it compares. In kube-apiserver v1.37.2 that panic reaches
// net/http and the request gets no answer at all (conformance's
// MalformedPatches records it), so a caller that reproduces the server
// aborts the response on this error; a panic is not an answer to give.
var ErrUpstreamPanic = errors.New("json patch: upstream's implementation panics on this patch")

// recoverUpstreamPanic turns a runtime error raised by upstream's code into
// *err wrapping ErrUpstreamPanic. It is deferred by ApplyWithLimit alone,
// whose code is upstream's verbatim: the only panics it can raise are
// upstream's own. Any other panic value (not a runtime.Error) is not
// upstream's nil dereference and is raised again.
func recoverUpstreamPanic(err *error) {
	p := recover()
	if p == nil {
		return
	}
	re, ok := p.(runtime.Error)
	if !ok {
		panic(p)
	}
	*err = fmt.Errorf("%w: %w", ErrUpstreamPanic, re)
}
