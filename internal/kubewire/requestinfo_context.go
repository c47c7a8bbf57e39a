package kubewire

import (
	"context"
	"net/http"
	"net/url"
	"sync/atomic"
)

// requestInfoKey is the context key of a request's parsed RequestInfo.
type requestInfoKey struct{}

// parsed is [NewRequestInfo]'s answer for a request, error included: a
// path the factory cannot read is read as such by every filter. It keeps
// the request's query too, parsed once for every reader ([QueryOf]).
type parsed struct {
	info RequestInfo
	err  error
	// query is nil once ReleaseQuery dropped it.
	query atomic.Pointer[url.Values]
}

// parseCountKey is the context key of a test's parse counter.
type parseCountKey struct{}

// WithRequestInfo parses r once ([NewRequestInfo]) and returns r with the
// result in its context, as kube-apiserver's WithRequestInfo filter does
// (apiserver pkg/endpoints/filters/requestinfo.go), for the filters and
// handlers behind it to read with [RequestInfoOf]. Unlike that filter it
// does not answer a path it cannot read: the error is kept for each reader
// to treat as it does today. The query is parsed once with it, for
// [QueryOf]; r.URL must not change after.
func WithRequestInfo(r *http.Request) *http.Request {
	return r.WithContext(ContextWithRequestInfo(r))
}

// ContextWithRequestInfo is [WithRequestInfo]'s context: r's, with r
// parsed in it. It is for a filter that adds more to the context before
// it makes the request that carries it, so that r is copied once.
func ContextWithRequestInfo(r *http.Request) context.Context {
	query := r.URL.Query()
	p := &parsed{}
	p.query.Store(&query)
	p.info, p.err = newRequestInfo(r, query)
	return context.WithValue(r.Context(), requestInfoKey{}, p)
}

// RequestInfoOf is r's RequestInfo: the one [WithRequestInfo] put in its
// context, else (a request no such filter saw: a proxy's, a client's
// transport) parsed now.
func RequestInfoOf(r *http.Request) (RequestInfo, error) {
	if p, ok := r.Context().Value(requestInfoKey{}).(*parsed); ok {
		return p.info, p.err
	}
	return NewRequestInfo(r)
}

// QueryOf is r's query (r.URL.Query()): the one [WithRequestInfo] parsed,
// else parsed now. The parsed query is shared by every reader of the
// request, so callers must not modify it.
func QueryOf(r *http.Request) url.Values {
	if p, ok := r.Context().Value(requestInfoKey{}).(*parsed); ok {
		if q := p.query.Load(); q != nil {
			return *q
		}
	}
	return r.URL.Query()
}

// ReleaseQuery drops the query [WithRequestInfo] parsed for r, so that a
// request that lives on past its reads of it (a watch, whose stream keeps
// its context for as long as it runs) does not keep it; [QueryOf] parses
// it again if asked after.
func ReleaseQuery(r *http.Request) {
	if p, ok := r.Context().Value(requestInfoKey{}).(*parsed); ok {
		p.query.Store(nil)
	}
}

// WithParseCount returns ctx with n counting every parse [NewRequestInfo]
// makes of a request carrying it: a test's check that a filter chain
// parses each request once.
func WithParseCount(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, parseCountKey{}, n)
}

// countParse adds one to r's parse counter, if it has one.
func countParse(r *http.Request) {
	if n, ok := r.Context().Value(parseCountKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
