package fakeapiserver

import (
	"net/http"
	"strings"

	"k8s.io/apiserver/pkg/endpoints/filters/impersonation"
)

// Impersonation (Impersonate-User, -Group, -Uid, -Extra-*; kubectl --as,
// --as-group, --as-uid) is k8s.io/apiserver's own filter, the one
// kube-apiserver v1.37 runs with ConstrainedImpersonation on (beta, on by
// default): impersonation.WithConstrainedImpersonation over this server's
// authorizer. Its modes are tried in order (associated-node,
// arbitrary-node, serviceaccount, user-info, then legacy "impersonate"),
// each needing the "impersonate-on:<mode>:<verb>" verb on the request and
// "impersonate:<mode>" on each impersonated value, or legacy's
// "impersonate" on users, groups, uids, userextras and serviceaccounts;
// the first mode's denial is the 403 (every mode denied), a group or extra
// without a user the 400, word for word. It remembers per requestor which
// mode last worked and tries that one first, as kube-apiserver does, so the
// order of a caller's impersonations can change which denial a later one
// reports, there as here.

// impersonating reports whether r asks to impersonate anyone: a request
// without the headers skips the filter (and the RequestInfo it reads).
func impersonating(r *http.Request) bool {
	for k := range r.Header {
		if strings.HasPrefix(k, "Impersonate-") {
			return true
		}
	}
	return false
}

// newImpersonation wraps next (authorization and what follows) in the
// impersonation filter. The filter reads the request's user and
// RequestInfo from its context (withRequestInfo) and writes its errors
// with the server's codecs, as kube-apiserver writes them with its own.
func (s *Server) newImpersonation(next http.Handler) http.Handler {
	return impersonation.WithConstrainedImpersonation(next, s.authz, s.codecs)
}
