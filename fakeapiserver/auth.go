package fakeapiserver

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

const (
	// anonymousUser is the user kube-apiserver's anonymous authenticator
	// assigns to a request without credentials (authenticator/request/anonymous).
	anonymousUser = "system:anonymous"
	// extraSpaceWarning is the Warning kube-apiserver adds when the token
	// follows "Bearer" after two spaces, a header it then ignores
	// (authentication/request/bearertoken invalidTokenWithSpaceWarning).
	extraSpaceWarning = "the provided Authorization header contains extra space before the bearer token, and is ignored"
)

// publicInfoPaths are the non-resource URLs the bootstrap ClusterRole
// system:public-info-viewer lets system:unauthenticated GET
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go): health
// endpoints without their per-check subpaths, and the version.
var publicInfoPaths = map[string]bool{
	"/healthz": true, "/livez": true, "/readyz": true, "/version": true, "/version/": true,
}

// caller is who a request comes from once [Server.authenticate] has read
// its Authorization header.
type caller int

const (
	// callerAuthorized carries the configured token, or no token is set.
	callerAuthorized caller = iota
	// callerAnonymous has no bearer token: kube-apiserver's anonymous user.
	callerAnonymous
	// callerRejected presented a bearer token that is not the configured one.
	callerRejected
)

// authenticate reads the Authorization header as kube-apiserver's bearer
// token authenticator does (authentication/request/bearertoken): the scheme
// "Bearer" in any case, then one space and the token. No header, another
// scheme or an empty token is anonymous; a wrong token is rejected (401).
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) caller {
	if s.cfg.Token == "" {
		return callerAuthorized
	}
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	parts := strings.SplitN(auth, " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") {
		return callerAnonymous
	}
	if parts[1] == "" {
		if len(parts) == 3 {
			w.Header().Add("Warning", `299 - "`+extraSpaceWarning+`"`)
		}
		return callerAnonymous
	}
	if subtle.ConstantTimeCompare([]byte(parts[1]), []byte(s.cfg.Token)) != 1 {
		return callerRejected
	}
	return callerAuthorized
}

// anonymousForbidden is nil when kube-apiserver's default RBAC lets the
// anonymous user make r (GET of publicInfoPaths), and otherwise its 403,
// worded by responsewriters.ForbiddenStatusError from the request's
// RequestInfo (kubewire.NewRequestInfo): its verb names the method whether
// or not a route serves it, and a namespace is scoped to itself.
func anonymousForbidden(r *http.Request) error {
	if r.Method == http.MethodGet && publicInfoPaths[r.URL.Path] {
		return nil
	}
	info, err := kubewire.NewRequestInfo(r)
	if err != nil || !info.IsResourceRequest {
		return apierrors.NewForbidden(schema.GroupResource{}, "",
			fmt.Errorf("User %q cannot %s path %q", anonymousUser, strings.ToLower(r.Method), r.URL.Path))
	}
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	scope := "at the cluster scope"
	if info.Namespace != "" {
		scope = fmt.Sprintf("in the namespace %q", info.Namespace)
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: info.Group, Resource: info.Resource}, info.Name,
		fmt.Errorf("User %q cannot %s resource %q in API group %q %s", anonymousUser, info.Verb, resource, info.Group, scope))
}
