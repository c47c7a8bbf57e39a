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
// identity or ask for another one. The proxy acts upstream with the
// upstream kubeconfig's credentials, so none of them may travel with
// those: an Impersonate-User: admin next to the proxy's own token would
// let any caller act as anyone the token may impersonate. Impersonate-*
// headers (Impersonate-Extra-<key> included) are matched by prefix.
var callerCredentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// impersonatePrefix opens every impersonation header (client-go
// transport.ImpersonateUserHeader and friends).
const impersonatePrefix = "Impersonate-"

// stripCallerCredentials removes the caller's credentials and
// impersonation requests from h before the upstream credentials are added.
func stripCallerCredentials(h http.Header) {
	for _, k := range callerCredentialHeaders {
		h.Del(k)
	}
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), impersonatePrefix) {
			delete(h, k)
		}
	}
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
