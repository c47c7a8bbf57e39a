package faultproxy

import (
	"crypto/subtle"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lw-sim/lw-sim/internal/hostcheck"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// callerCredentialHeaders are request headers that carry the caller's
// identity, claim one, or ask for another. The proxy acts upstream with
// the upstream kubeconfig's credentials, so none of them may travel with
// those: an Impersonate-User: admin next to the proxy's own token would
// let any caller act as anyone the token may impersonate; X-Remote-User
// and X-Remote-Group are the identity of kube-apiserver's request-header
// authentication (--requestheader-username-headers and friends, trusted
// from an authenticating proxy's client certificate, which a proxy with a
// client-certificate kubeconfig presents); X-Forwarded-For, X-Real-Ip and
// Forwarded name the client address the audit log and rate limits record.
// The headers of the callerCredentialPrefixes are matched by prefix.
var callerCredentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Remote-User", "X-Remote-Group",
	"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip", "Forwarded"}

// callerCredentialPrefixes open header families of callerCredentialHeaders'
// kind: every impersonation header (client-go transport.ImpersonateUserHeader
// and friends, Impersonate-Extra-<key> included) and the request-header
// authentication's extra attributes (--requestheader-extra-headers-prefix,
// X-Remote-Extra-<key>).
var callerCredentialPrefixes = []string{"Impersonate-", "X-Remote-Extra-"}

// stripCallerCredentials removes the caller's credentials, identity claims
// and impersonation requests from h before the upstream credentials are
// added.
func stripCallerCredentials(h http.Header) {
	for _, k := range callerCredentialHeaders {
		h.Del(k)
	}
	for k := range h {
		for _, prefix := range callerCredentialPrefixes {
			if strings.HasPrefix(http.CanonicalHeaderKey(k), prefix) {
				delete(h, k)
			}
		}
	}
}

// errDotSegments is the proxy's answer to a path with "." or ".." segments
// when the upstream sits under a path prefix (https://host/k8s/clusters/c1):
// a gateway that resolves dot segments there would take /k8s/clusters/c1/../c2
// to another cluster. Without a prefix the path goes upstream as it is,
// where kube-apiserver refuses such segments itself.
var errDotSegments = apierrors.NewBadRequest(`lw-sim proxy: a path with "." or ".." segments is not forwarded to an upstream under a path prefix`)

// hasDotSegment reports whether a (decoded) URL path has a "." or ".."
// segment.
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// guard wraps next with the checks on callers: the Host header (when
// AllowedHosts is set, 403 for other hosts) and the bearer token (when
// Token is set, 401 without it; the scheme matched in any case, as
// kube-apiserver does).
func guard(cfg Config, next http.Handler) http.Handler {
	h := next
	if cfg.Token != "" {
		token := []byte(cfg.Token)
		inner := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
			if !strings.EqualFold(scheme, "bearer") || subtle.ConstantTimeCompare([]byte(got), token) != 1 {
				kubewire.WriteStatus(w, apierrors.NewUnauthorized("Unauthorized"))
				return
			}
			inner.ServeHTTP(w, r)
		})
	}
	if cfg.AllowedHosts != nil {
		h = hostcheck.New(cfg.AllowedHosts...).Handler(h)
	}
	return h
}
